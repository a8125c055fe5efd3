package agenthost

// This file is the session's side of undoing a turn: the checkpoints of its turns, and making
// codex's thread forget an undone turn.

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// saveCheckpoint keeps what a finished turn's patches changed, if anything. On the turn's runner.
func (s *Session) saveCheckpoint(cp Checkpoint, threadID, turnID string) {
	if len(cp.Files) == 0 || turnID == "" {
		return
	}
	cp.Folder, cp.ThreadID, cp.TurnID = s.folder, threadID, turnID
	if cp.StartedAt.IsZero() {
		cp.StartedAt = time.Now()
	}
	if err := s.h.store.saveCheckpoint(cp); err != nil {
		s.h.log.Warn("this turn cannot be undone", "folder", s.folder, "turn", turnID, "err", err)
	}
}

// Checkpoints returns what the folder's last turns changed with patches, newest first (at most
// MaxCheckpoints; they survive restarts): summaries, whose images have sizes and sums but no
// content ([Session.LoadCheckpoint] has it).
func (s *Session) Checkpoints() ([]Checkpoint, error) {
	return s.h.store.checkpoints(s.folder)
}

// LoadCheckpoint returns the checkpoint of turnID with its files' contents, for undoing it.
func (s *Session) LoadCheckpoint(turnID string) (Checkpoint, error) {
	return s.h.store.loadCheckpoint(s.folder, turnID)
}

// DropCheckpoint forgets the checkpoint of turnID (the turn was undone).
func (s *Session) DropCheckpoint(turnID string) error {
	return s.h.store.dropCheckpoint(s.folder, turnID)
}

// ChangedByHand records that the file at path went from was to now by the user's hand: a revert of
// changes under review. The newest turn that changed the file, if it left it as was, records now
// as what it left, so that hermes.undoTurn of that turn finds the file as its turn left it (and
// restores what was there before the turn). It reports whether a checkpoint changed.
func (s *Session) ChangedByHand(path string, was, now []byte) (bool, error) {
	return s.h.store.changedByHand(s.folder, path, was, now)
}

// RevertThread makes the session's thread forget turnID and every later turn, so that the model no
// longer sees an undone turn. It needs the session idle, and the turn in the session's thread.
func (s *Session) RevertThread(ctx context.Context, threadID, turnID string) error {
	current, busy, err := s.thread()
	if err != nil {
		return err
	}
	switch {
	case busy:
		return ErrBusy
	case threadID != current:
		return errors.New("the turn's thread is no longer this folder's (New Thread since): its history stays as it was")
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	client, gen, err := s.h.codexClient(ctx)
	if err != nil {
		return err
	}
	if _, _, err := s.ensureThread(ctx, client, gen, nil); err != nil {
		return err
	}
	if err := client.RevertThread(ctx, threadID, turnID); err != nil {
		return fmt.Errorf("thread/revert: %w", err)
	}
	s.dropNotes(turnID) // the model forgot the turn: its reverted changes are nothing to it
	return nil
}
