package progress

import (
	"context"
	"fmt"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
)

// earlySeq names the progress tokens asked for before a turn has an id.
var earlySeq atomic.Int64

// Early is a progress token asked of the editor while the turn starts in codex, so that the
// editor's round trip and codex's overlap rather than add up.
type Early struct {
	done  chan struct{}
	token *protocol.ProgressToken // set before done closes
}

// AskEarly starts asking the editor for a progress token, on a goroutine that spawn starts and
// owns; spawn's context is the connection's, not a request's: the ask is answered before the
// editor is.
func AskEarly(spawn func(name string, f func(ctx context.Context)), ed *editor.Client) *Early {
	e := &Early{done: make(chan struct{})}
	name := fmt.Sprintf("hermes/ask-%d", earlySeq.Add(1))
	spawn("progress token", func(ctx context.Context) {
		defer close(e.done)
		e.token = ed.CreateProgress(ctx, name)
	})
	return e
}

// Wait returns the token, or nil when the editor refused it or ctx ended first.
func (e *Early) Wait(ctx context.Context) *protocol.ProgressToken {
	select {
	case <-e.done:
		return e.token
	case <-ctx.Done():
		return nil
	}
}
