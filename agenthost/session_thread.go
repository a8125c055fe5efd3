package agenthost

// This file loads the session's thread in codex: resumed when the folder had one, else started.
// It runs on the caller's goroutine; the session's goroutine hands out and takes back the state.

import (
	"context"
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// prepare makes sure codex runs and the session's thread is loaded in it.
func (s *Session) prepare(ctx context.Context, ts *turnState, view *threadView) (*codex.Client, string, error) {
	client, gen, err := s.h.codexClient(ctx)
	if err != nil {
		return nil, "", err
	}
	threadID, fresh, err := s.ensureThread(ctx, client, gen, view)
	if err != nil {
		s.retireIfSilent(ctx, client)
		return nil, "", err
	}
	if fresh {
		_ = s.call(func(*sessionState) { ts.shared.newThread = true })
	}
	return client, threadID, nil
}

// startCodexTurn starts ts's input as a codex turn on the session's thread; ts.cur then says where
// it runs.
func (s *Session) startCodexTurn(ctx context.Context, ts *turnState, view threadView) error {
	client, threadID, err := s.prepare(ctx, ts, &view)
	if err != nil {
		return err
	}
	model, effort := view.model, view.effort
	if ts.input.Model != "" {
		model = ts.input.Model
	}
	if ts.input.Effort != "" {
		effort = ts.input.Effort
	}
	turn, sub, err := client.StartTurn(ctx, codex.TurnStartParams{
		ThreadID: threadID,
		Input:    []codex.UserInput{codex.TextInput(ts.input.Prompt)},
		Model:    model,
		Effort:   effort,
	})
	if err != nil {
		s.retireIfSilent(ctx, client)
		return fmt.Errorf("start turn: %w", err)
	}
	ts.mayName = true // begin names the thread if this is its first turn
	ts.cur = attempt{client: client, threadID: threadID, turnID: turn.ID, sub: sub}
	return nil
}

// threadView is what starting a turn reads of the session, in the hop that registers the turn.
type threadView struct {
	threadID      string
	loadedGen     int
	fallback      *FallbackProvider
	model, effort string
}

// threadView reads it; on the session's goroutine.
func (st *sessionState) threadView() threadView {
	return threadView{threadID: st.threadID, loadedGen: st.loadedGen, fallback: st.fallback, model: st.model, effort: st.effort}
}

// ensureThread returns the session's thread loaded in this codex generation: resumed when the
// session had one (fresh false), else started (fresh true, also when resuming failed). view is the
// session as the caller read it, or nil to read it now.
func (s *Session) ensureThread(ctx context.Context, client *codex.Client, gen int, view *threadView) (threadID string, fresh bool, err error) {
	if view == nil {
		view = new(threadView)
		if err := s.call(func(st *sessionState) { *view = st.threadView() }); err != nil {
			return "", false, err
		}
	}
	threadID, loaded, fb := view.threadID, view.loadedGen, view.fallback
	if threadID != "" && loaded == gen {
		return threadID, false, nil
	}
	cfg := s.h.config()
	model, provider := cfg.Model, ""
	if fb != nil && fb.Kind == FallbackResponses {
		model, provider = fb.Model, providerID(*fb)
	}
	if threadID != "" {
		res, rerr := client.ResumeThread(ctx, codex.ThreadResumeParams{
			ThreadID: threadID, Cwd: s.folder, ApprovalPolicy: codex.AskForApproval(cfg.ApprovalPolicy), Sandbox: cfg.Sandbox,
			Model: model, ModelProvider: provider, ExcludeTurns: true,
		})
		if rerr == nil {
			s.loaded(res.Thread.ID, gen)
			return res.Thread.ID, false, nil
		}
		if ctx.Err() != nil || client.Err() != nil {
			return "", false, fmt.Errorf("resume thread %s: %w", threadID, rerr)
		}
		s.h.log.Warn("could not resume the thread; starting a new one", "folder", s.folder, "thread", threadID, "err", rerr)
	}
	res, err := client.StartThread(ctx, codex.ThreadStartParams{
		Cwd: s.folder, ApprovalPolicy: codex.AskForApproval(cfg.ApprovalPolicy), Sandbox: cfg.Sandbox,
		Model: model, ModelProvider: provider,
	})
	if err != nil {
		return "", false, fmt.Errorf("start thread in %s: %w", s.folder, err)
	}
	_ = s.call(func(st *sessionState) { st.unnamed = res.Thread.ID }) // its first turn names it
	s.loaded(res.Thread.ID, gen)
	return res.Thread.ID, threadID != "", nil
}

// Warm loads the folder's thread in codex now (resumed, or started when the folder has none), so
// that its first turn is one turn/start (prewarm). It starts codex when needed.
func (s *Session) Warm(ctx context.Context) error {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	client, gen, err := s.h.codexClient(ctx)
	if err != nil {
		return err
	}
	if _, _, err := s.ensureThread(ctx, client, gen, nil); err != nil {
		s.retireIfSilent(ctx, client)
		return err
	}
	return nil
}

// loaded records that threadID is loaded in codex generation gen, and saves a new thread.
func (s *Session) loaded(threadID string, gen int) {
	var changed bool
	_ = s.call(func(st *sessionState) {
		changed = st.threadID != threadID
		st.threadID, st.loadedGen = threadID, gen
		if changed {
			st.threadTotal = &codex.TokenUsage{} // a new thread counts from zero
			s.save(st)
		}
	})
	s.h.bindThread(threadID, s)
	if changed {
		s.flush()
	}
}
