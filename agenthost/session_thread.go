package agenthost

// This file loads the session's thread in codex: resumed when the folder had one, else started.
// It runs on the caller's goroutine; the session's goroutine hands out and takes back the state.

import (
	"context"
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// prepare makes sure codex runs and the session's thread is loaded in it; fresh says codex started
// a new thread for it (see ensureThread).
func (s *Session) prepare(ctx context.Context, view *threadView) (client Agent, threadID string, fresh bool, err error) {
	client, gen, err := s.h.codexClient(ctx)
	if err != nil {
		return nil, "", false, err
	}
	threadID, fresh, err = s.ensureThread(ctx, client, gen, view)
	if err != nil {
		s.retireIfSilent(ctx, client)
		return nil, "", false, err
	}
	return client, threadID, fresh, nil
}

// startCodexTurn starts in as a codex turn on the session's thread and returns where it runs; fresh
// says codex started a new thread for it (also when the turn then failed to start).
func (s *Session) startCodexTurn(ctx context.Context, in Input, view threadView) (a attempt, fresh bool, err error) {
	client, threadID, fresh, err := s.prepare(ctx, &view)
	if err != nil {
		return attempt{}, false, err
	}
	model, effort := view.model, view.effort
	if in.Model != "" {
		model = in.Model
	}
	if in.Effort != "" {
		effort = in.Effort
	}
	input := []codex.UserInput{codex.TextInput(in.Prompt)}
	if note := notesText(s.folder, in.notes); note != "" {
		input = append([]codex.UserInput{codex.TextInput(note)}, input...) // the note, then the request
	}
	started, sub, err := client.StartTurn(ctx, codex.TurnStartParams{
		ThreadID: threadID,
		Input:    input,
		Model:    model,
		Effort:   effort,
	})
	if err != nil {
		s.retireIfSilent(ctx, client)
		return attempt{}, fresh, fmt.Errorf("start turn: %w", err)
	}
	return attempt{client: client, threadID: threadID, turnID: started.ID, sub: sub}, fresh, nil
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
func (s *Session) ensureThread(ctx context.Context, client Agent, gen int, view *threadView) (threadID string, fresh bool, err error) {
	if view == nil {
		v, err := s.threadView()
		if err != nil {
			return "", false, err
		}
		view = &v
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
			s.loaded(res.Thread.ID, gen, false)
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
	s.loaded(res.Thread.ID, gen, true) // its first turn names it
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

// loaded records that threadID is loaded in codex generation gen (started: codex started it for the
// session), and saves a new thread.
func (s *Session) loaded(threadID string, gen int, started bool) {
	changed := s.recordThread(threadID, gen, started)
	s.h.bindThread(threadID, s)
	if changed {
		s.flush()
	}
}
