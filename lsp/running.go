package lsp

import (
	"context"
	"runtime/debug"
	"sync"
	"time"

	"go.lsp.dev/protocol"
)

// runningTurns are the turns being followed, one per folder at most. Its mutex also guards each
// view's token, which follow sets once the editor gave it.
type runningTurns struct {
	mu       sync.Mutex
	byFolder map[string]*turnView
	ended    chan struct{} // a turn ended: releaseLoop waits for idleness
}

func newRunningTurns() *runningTurns {
	return &runningTurns{byFolder: make(map[string]*turnView), ended: make(chan struct{}, 1)}
}

// in returns folder's running turn, or nil.
func (r *runningTurns) in(folder string) *turnView {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byFolder[folder]
}

// all returns every running turn.
func (r *runningTurns) all() []*turnView {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*turnView, 0, len(r.byFolder))
	for _, tv := range r.byFolder {
		out = append(out, tv)
	}
	return out
}

// add makes tv its folder's running turn.
func (r *runningTurns) add(tv *turnView) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byFolder[tv.folder.Path] = tv
}

// remove forgets tv, unless a newer turn of its folder took its place, and tells releaseLoop.
func (r *runningTurns) remove(tv *turnView) {
	r.mu.Lock()
	if r.byFolder[tv.folder.Path] == tv {
		delete(r.byFolder, tv.folder.Path)
	}
	r.mu.Unlock()
}

// setToken gives tv the progress token the editor made for it.
func (r *runningTurns) setToken(tv *turnView, token *protocol.ProgressToken) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tv.token = token
}

// byToken returns the running turn whose progress token is token, or nil.
func (r *runningTurns) byToken(token protocol.ProgressToken) *turnView {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, tv := range r.byFolder {
		if tv.token != nil && tv.token.String() == token.String() {
			return tv
		}
	}
	return nil
}

// idleRelease is how long the server waits, with no turn running, before it gives the memory of
// its turns back to the system: not after each turn, since a forced collection costs a
// millisecond, and turns often follow each other.
const idleRelease = 2 * time.Second

// endedIdle tells releaseLoop a turn has ended.
func (r *runningTurns) endedIdle() {
	select {
	case r.ended <- struct{}{}:
	default:
	}
}

// releaseLoop gives the memory turns used back to the system once no turn has run for
// idleRelease: a turn's events and transcript come and go, and an idle server should not keep
// their pages. It runs until ctx ends. Its make bench row: "Idle RSS of hermes-lsp after 103
// turns", 5.5 s after the last, is 18.7 MiB with it and 23.7 MiB without (target 20 MiB;
// docs/benchmarks.md, 2026-12-04).
func (r *runningTurns) releaseLoop(ctx context.Context) {
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.ended:
			timer = time.After(idleRelease) // a later turn's end starts the wait again
		case <-timer:
			timer = nil
			r.mu.Lock()
			idle := len(r.byFolder) == 0
			r.mu.Unlock()
			if idle {
				debug.FreeOSMemory()
			}
		}
	}
}
