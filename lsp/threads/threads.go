// Package threads is a folder's conversation as the editor steers it: its past threads
// (hermes.threads, hermes.resumeThread, and code actions that resume one for editors with no
// thread picker), a thread's history as codex keeps it (hermes.threadHistory), the models and reasoning efforts (hermes.models, hermes.setModel), the account's
// rate limits in hermes.status and progress, and the threads' transcripts (hermes.showTranscript,
// and a transcript's `hermes:` lines, which continue its thread).
package threads

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Config is what Threads needs of the server.
type Config struct {
	// Editor shows messages and documents, and says whether it picks threads itself.
	Editor *editor.Client
	Log    *slog.Logger
	// Host returns the agent host, nil before initialize.
	Host func() *agenthost.Host
	// Settings returns the settings in force.
	Settings func() *settings.Settings
	// Folders are the workspace folders: a transcript continues its thread only in one of them.
	Folders *workspace.Set
	// StateDir returns the host's state directory, where the transcripts are.
	StateDir func() string
}

// Threads answers the commands about a folder's threads and models. It keeps each folder's past
// threads as last listed for the code actions, under its mutex.
type Threads struct {
	cfg Config

	mu    sync.Mutex
	cache map[string]cachedThreads // per folder, the past threads code actions offer
}

// New returns Threads with nothing listed yet.
func New(cfg Config) *Threads {
	return &Threads{cfg: cfg, cache: make(map[string]cachedThreads)}
}

// errorf is an error with a JSON-RPC code, for the editor's request to fail with.
func errorf(code jsonrpc2.Code, format string, args ...any) error {
	return jsonrpc2.NewError(code, fmt.Sprintf(format, args...))
}

// List is hermes.threads: the folder's threads, newest first, each once, reviews marked.
func List(ctx context.Context, sess *agenthost.Session) ([]hermesproto.ThreadInfo, error) {
	list, err := sess.Threads(ctx)
	if err != nil {
		return nil, errorf(jsonrpc2.InternalError, "list the threads: %v", err)
	}
	out := make([]hermesproto.ThreadInfo, 0, len(list))
	for _, t := range list {
		out = append(out, hermesproto.ThreadInfo{ThreadID: t.ID, Title: t.Title, UpdatedAt: t.UpdatedAt, Turns: t.Turns, Current: t.Current, Review: t.Review})
	}
	return out, nil
}

// Resume is hermes.resumeThread: the folder's next prompt continues thread a.ThreadID.
func (t *Threads) Resume(ctx context.Context, folder workspace.Folder, sess *agenthost.Session, a hermesproto.ResumeThreadArgs) (hermesproto.ResumeThreadResult, error) {
	if a.ThreadID == "" {
		return hermesproto.ResumeThreadResult{}, errorf(jsonrpc2.InvalidParams, "hermes.resumeThread needs a threadId: pick one from hermes.threads")
	}
	if err := sess.ResumeThread(ctx, a.ThreadID); err != nil {
		return hermesproto.ResumeThreadResult{}, errorf(jsonrpc2.InvalidParams, "resume thread: %v", err)
	}
	t.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Hermes: the next prompt in %s continues %s.", folder.Name, Name(ctx, sess, a.ThreadID)))
	return hermesproto.ResumeThreadResult{Folder: folder.Path, ThreadID: a.ThreadID}, nil
}

// History is hermes.threadHistory: the turns of one of the folder's threads (default: its thread),
// as codex keeps them, oldest first, with the thread's transcript when there is one.
func (t *Threads) History(ctx context.Context, folder workspace.Folder, sess *agenthost.Session, a hermesproto.ThreadHistoryArgs) (hermesproto.ThreadHistory, error) {
	h, err := sess.ThreadHistory(ctx, a.ThreadID)
	if err != nil {
		return hermesproto.ThreadHistory{}, errorf(jsonrpc2.InvalidParams, "the history of %s: %v", folder.Name, err)
	}
	if h.ThreadID != "" {
		if _, md, err := agenthost.TranscriptPaths(t.cfg.StateDir(), h.ThreadID); err == nil {
			//hermes:ownfile the thread's transcript, in the state folder
			if _, err := os.Stat(md); err == nil {
				h.TranscriptPath = md
			}
		}
	}
	return h, nil
}

// Name names a thread of the folder for people: by its title, with when it was last used,
// else "the thread of <when>"; its id only when codex no longer lists it.
func Name(ctx context.Context, sess *agenthost.Session, id string) string {
	list, err := sess.Threads(ctx)
	if err == nil {
		for _, th := range list {
			if th.ID == id {
				return ThreadLabel(th, time.Now())
			}
		}
	}
	return "thread " + id
}

// Info is a thread of hermes.threads' answer as agenthost lists it.
func Info(t hermesproto.ThreadInfo) agenthost.ThreadInfo {
	return agenthost.ThreadInfo{ID: t.ThreadID, Title: t.Title, UpdatedAt: t.UpdatedAt, Turns: t.Turns, Current: t.Current, Review: t.Review}
}

// ThreadLabel is a thread as a one-line message names it: "Add a Sum function" (today 14:02), a
// review's marked as one.
func ThreadLabel(th agenthost.ThreadInfo, now time.Time) string {
	when := annotate.When(th.UpdatedAt, now)
	kind := ""
	if th.Review {
		kind = "review "
	}
	if th.Title == "" {
		return "the " + kind + "thread of " + when
	}
	return fmt.Sprintf("%s%q (%s)", kind, safetext.LineCut(th.Title, 60), when)
}

// threadCacheAge is how long the past threads offered as code actions are reused: code actions
// are asked for at every cursor move.
const threadCacheAge = 30 * time.Second

// resumeActionsMax is how many past threads the code actions offer.
const resumeActionsMax = 5

// cachedThreads are a folder's past threads as last listed.
type cachedThreads struct {
	at   time.Time
	list []agenthost.ThreadInfo
}

// ResumeActions are the code actions that resume one of the folder's five newest other threads
// (conversations: a review's thread is not one to continue),
// for editors with no thread picker; each runs hermes.resumeThread on uri. They need codex running
// (a code action never starts it) and reuse the list for threadCacheAge.
func (t *Threads) ResumeActions(ctx context.Context, folder string, uri string, sess *agenthost.Session, h *agenthost.Host) []protocol.CodeAction {
	if t.cfg.Editor.Caps().ThreadPicker {
		return nil
	}
	t.mu.Lock()
	cached, ok := t.cache[folder]
	t.mu.Unlock()
	if !ok || time.Since(cached.at) > threadCacheAge {
		if !h.Running() {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		list, err := sess.Threads(ctx)
		cancel()
		if err != nil {
			t.cfg.Log.Debug("threads for the code actions", "err", err)
			return nil
		}
		cached = cachedThreads{at: time.Now(), list: list}
		t.mu.Lock()
		t.cache[folder] = cached
		t.mu.Unlock()
	}
	prefix := t.cfg.Settings().CommandPrefix
	var out []protocol.CodeAction
	for _, th := range cached.list {
		if th.Current || th.Review || len(out) == resumeActionsMax {
			continue
		}
		title := fmt.Sprintf(hermesproto.CodeActionTitleResumeThread, th.Title, annotate.When(th.UpdatedAt, time.Now()))
		out = append(out, protocol.CodeAction{
			Title:   title,
			Command: &protocol.Command{Title: title, Command: prefix + hermesproto.CmdResumeThread, Arguments: []any{hermesproto.ResumeThreadArgs{URI: uri, ThreadID: th.ID}}},
		})
	}
	return out
}
