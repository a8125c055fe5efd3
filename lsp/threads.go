package lsp

// This file is the conversation's settings: a folder's past threads (hermes.threads,
// hermes.resumeThread), the models and reasoning efforts (hermes.models, hermes.setModel), and the
// account's rate limits in hermes.status and progress.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
)

// rateLimitWarnPercent is the use of a rate-limit window from which progress reports mention it.
const rateLimitWarnPercent = 80

// threads is hermes.threads.
func (s *Server) threads(ctx context.Context, a hermesproto.FolderArgs) ([]hermesproto.ThreadInfo, error) {
	_, sess, err := s.sessionFor(a.URI)
	if err != nil {
		return nil, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	list, err := sess.Threads(ctx)
	if err != nil {
		return nil, errorf(jsonrpc2.InternalError, "list the threads: %v", err)
	}
	out := make([]hermesproto.ThreadInfo, 0, len(list))
	for _, t := range list {
		out = append(out, hermesproto.ThreadInfo{ThreadID: t.ID, Title: t.Title, UpdatedAt: t.UpdatedAt, Turns: t.Turns, Current: t.Current})
	}
	return out, nil
}

// resumeThread is hermes.resumeThread.
func (s *Server) resumeThread(ctx context.Context, a hermesproto.ResumeThreadArgs) (hermesproto.ResumeThreadResult, error) {
	folder, sess, err := s.sessionFor(a.URI)
	if err != nil {
		return hermesproto.ResumeThreadResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	if a.ThreadID == "" {
		return hermesproto.ResumeThreadResult{}, errorf(jsonrpc2.InvalidParams, "hermes.resumeThread needs a threadId: pick one from hermes.threads")
	}
	if err := sess.ResumeThread(ctx, a.ThreadID); err != nil {
		return hermesproto.ResumeThreadResult{}, errorf(jsonrpc2.InvalidParams, "resume thread: %v", err)
	}
	s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Hermes: the next prompt in %s continues thread %s.", folder.Name, a.ThreadID))
	return hermesproto.ResumeThreadResult{Folder: folder.Path, ThreadID: a.ThreadID}, nil
}

// models is hermes.models.
func (s *Server) models(ctx context.Context, a hermesproto.FolderArgs) ([]hermesproto.ModelInfo, error) {
	_, sess, err := s.sessionFor(a.URI)
	if err != nil {
		return nil, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	h, err := s.hostOrErr()
	if err != nil {
		return nil, errorf(jsonrpc2.InternalError, "%v", err)
	}
	list, err := h.Models(ctx)
	if err != nil {
		return nil, errorf(jsonrpc2.InternalError, "list the models: %v", err)
	}
	current := sess.Status().Model
	if current == "" {
		current = s.settings.Load().Codex.Model
	}
	out := make([]hermesproto.ModelInfo, 0, len(list))
	for _, m := range list {
		out = append(out, hermesproto.ModelInfo{
			ID: m.ID, DisplayName: m.DisplayName, Efforts: m.Efforts, DefaultEffort: m.DefaultEffort,
			Current: m.ID == current || (current == "" && m.IsDefault),
		})
	}
	return out, nil
}

// setModel is hermes.setModel.
func (s *Server) setModel(ctx context.Context, a hermesproto.SetModelArgs) (hermesproto.SetModelResult, error) {
	folder, sess, err := s.sessionFor(a.URI)
	if err != nil {
		return hermesproto.SetModelResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	if err := settings.CheckModelName(a.Model); err != nil {
		return hermesproto.SetModelResult{}, errorf(jsonrpc2.InvalidParams, "hermes.setModel: %v", err)
	}
	if err := checkEffort(a.Effort); err != nil {
		return hermesproto.SetModelResult{}, err
	}
	if err := s.checkModelEffort(ctx, sess, a.Model, a.Effort); err != nil {
		return hermesproto.SetModelResult{}, err
	}
	if err := sess.SetModel(a.Model, a.Effort); err != nil {
		return hermesproto.SetModelResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	what := a.Model
	if what == "" {
		what = "the default model"
	}
	if a.Effort != "" {
		what += ", " + a.Effort + " effort"
	}
	s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Hermes: %s's next turns use %s.", folder.Name, what))
	return hermesproto.SetModelResult{Folder: folder.Path, Model: a.Model, Effort: a.Effort}, nil
}

// checkEffort refuses what cannot be a reasoning effort.
func checkEffort(effort string) error {
	if err := agenthost.CheckEffort(effort); err != nil {
		return errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	return nil
}

// checkModelEffort refuses an effort the model does not list (model "" is the folder's current
// one, else codex's default). When codex cannot list its models, or does not list the model, the
// choice is kept: codex has the last word.
func (s *Server) checkModelEffort(ctx context.Context, sess *agenthost.Session, model, effort string) error {
	if effort == "" {
		return nil
	}
	h, err := s.hostOrErr()
	if err != nil {
		return nil
	}
	list, err := h.Models(ctx)
	if err != nil {
		return nil
	}
	if model == "" {
		model = sess.Status().Model
	}
	if model == "" {
		model = s.settings.Load().Codex.Model
	}
	for _, m := range list {
		if m.ID == model || (model == "" && m.IsDefault) {
			if !slices.Contains(m.Efforts, effort) {
				return errorf(jsonrpc2.InvalidParams, "%s has no reasoning effort %q: use one of %v", m.ID, effort, m.Efforts)
			}
			return nil
		}
	}
	return nil
}

// wireRateLimits is the host's rate limits as hermes.status sends them.
func wireRateLimits(rl *agenthost.RateLimits) *hermesproto.RateLimits {
	if rl == nil {
		return nil
	}
	window := func(w *agenthost.RateLimitWindow) *hermesproto.RateLimitWindow {
		if w == nil {
			return nil
		}
		return &hermesproto.RateLimitWindow{UsedPercent: w.UsedPercent, WindowMinutes: w.WindowMinutes, ResetsAt: w.ResetsAt}
	}
	return &hermesproto.RateLimits{Primary: window(rl.Primary), Secondary: window(rl.Secondary), Reached: rl.Reached}
}

// rateLimitNote is what a progress report adds when a rate-limit window is over
// rateLimitWarnPercent used: " · rate limit 85% of 5h".
func (s *Server) rateLimitNote() string {
	h := s.host.Load()
	if h == nil {
		return ""
	}
	rl := h.KnownRateLimits()
	if rl == nil {
		return ""
	}
	pct, mins, ok := rl.Highest()
	if !ok || pct < rateLimitWarnPercent {
		return ""
	}
	return fmt.Sprintf(" · rate limit %d%% of %s", pct, windowName(mins))
}

// windowName says a window's length the way people do: 5h, 7d, 90m.
func windowName(mins int64) string {
	switch {
	case mins <= 0:
		return "the window"
	case mins%(24*60) == 0:
		return fmt.Sprintf("%dd", mins/(24*60))
	case mins%60 == 0:
		return fmt.Sprintf("%dh", mins/60)
	}
	return fmt.Sprintf("%dm", mins)
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

// resumeActions are the code actions that resume one of the folder's five newest other threads,
// for editors with no thread picker. They need codex running (a code action never starts it) and
// reuse the list for threadCacheAge.
func (s *Server) resumeActions(ctx context.Context, folder string, uri string, sess *agenthost.Session, h *agenthost.Host) []protocol.CodeAction {
	if s.editor.Caps().ThreadPicker {
		return nil
	}
	s.mu.Lock()
	cached, ok := s.threadCache[folder]
	s.mu.Unlock()
	if !ok || time.Since(cached.at) > threadCacheAge {
		if !h.Running() {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		list, err := sess.Threads(ctx)
		cancel()
		if err != nil {
			s.log.Debug("threads for the code actions", "err", err)
			return nil
		}
		cached = cachedThreads{at: time.Now(), list: list}
		s.mu.Lock()
		s.threadCache[folder] = cached
		s.mu.Unlock()
	}
	prefix := s.settings.Load().CommandPrefix
	var out []protocol.CodeAction
	for _, t := range cached.list {
		if t.Current || len(out) == resumeActionsMax {
			continue
		}
		title := fmt.Sprintf(hermesproto.CodeActionTitleResumeThread, t.Title, t.UpdatedAt.Local().Format("Jan 2 15:04"))
		out = append(out, protocol.CodeAction{
			Title:   title,
			Command: &protocol.Command{Title: title, Command: prefix + hermesproto.CmdResumeThread, Arguments: []any{hermesproto.ResumeThreadArgs{URI: uri, ThreadID: t.ID}}},
		})
	}
	return out
}
