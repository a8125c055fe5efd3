package agenthost

// This file is codex's code review as a turn of the session: it runs on a thread of its own
// (started for the folder with the same cwd, policy and sandbox), so the conversation's thread
// stays clean; its events, approvals and result are a turn's.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// ErrReviewRunning is what a prompt gets while a review runs in the folder: a review takes no input.
var ErrReviewRunning = errors.New("a review is running in this folder: wait for it, or stop it first")

// Review starts a review of target (codex's ReviewTarget: {"type": "uncommittedChanges"}, ...) on
// a new thread of the folder, and returns once codex has started it. label says what is reviewed,
// for the turn's prompt. A turn running in the folder makes it ErrBusy. A review that yields (an
// automatic one) is stopped by the next prompt; another one makes prompts ErrReviewRunning.
func (s *Session) Review(ctx context.Context, target json.RawMessage, label string, yields bool) (*Turn, error) {
	ts, err := s.registerIfIdle(turnSpec{input: Input{Prompt: "Review " + label}, review: true, yields: yields})
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	a, err := s.startReview(ctx, target)
	if err != nil {
		s.abandon(ts.turn)
		return nil, err
	}
	ts.cur = a
	s.begin(ts)
	return &Turn{t: ts.turn}, nil
}

// startReview starts the review thread and the review on it, and returns where it runs.
func (s *Session) startReview(ctx context.Context, target json.RawMessage) (attempt, error) {
	client, _, err := s.h.codexClient(ctx)
	if err != nil {
		return attempt{}, err
	}
	view, _ := s.threadView()
	model := view.model
	cfg := s.h.config()
	if model == "" {
		model = cfg.Model
	}
	res, err := client.StartThread(ctx, codex.ThreadStartParams{
		Cwd: s.folder, ApprovalPolicy: codex.AskForApproval(cfg.ApprovalPolicy), Sandbox: cfg.Sandbox, Model: model,
	})
	if err != nil {
		s.retireIfSilent(ctx, client)
		return attempt{}, fmt.Errorf("start the review thread in %s: %w", s.folder, err)
	}
	threadID := res.Thread.ID
	s.h.bindThread(threadID, s) // its approvals are the session's
	started, sub, err := client.StartReview(ctx, threadID, target)
	if err != nil {
		s.retireIfSilent(ctx, client)
		return attempt{}, fmt.Errorf("start the review: %w", err)
	}
	return attempt{client: client, threadID: threadID, turnID: started.ID, sub: sub}, nil
}
