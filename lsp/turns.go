package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/buffers"
	"github.com/hermes-lsp/hermes-lsp/lsp/progress"
	"github.com/hermes-lsp/hermes-lsp/lsp/review"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// turnView is a running turn as the editor sees it: its folder, its progress token, and its record
// for the lines it was asked from.
type turnView struct {
	folder workspace.Folder
	turn   *agenthost.Turn
	token  *protocol.ProgressToken // nil when the client shows no progress; set under runningTurns.mu once early is
	early  *progress.Early         // the token being asked for: follow waits for it
	rec    *annotate.Record
	review *review.Run // set when the turn is a review
}

// watch gives a turn its progress and follows it to its end. Its progress token is the client's
// (clientToken), or the one asked for while the turn started (early), or one asked for now. run is
// set when the turn is a review.
func (s *Server) watch(ctx context.Context, folder workspace.Folder, turn *agenthost.Turn, prompt string, run *review.Run, clientToken *protocol.ProgressToken, early *progress.Early) *turnView {
	tv := &turnView{folder: folder, turn: turn, rec: annotate.NewRecord(folder.Path, prompt, turn.ThreadID(), turn.TurnID()), review: run}
	switch {
	case clientToken != nil:
		tv.token = clientToken
	case early != nil:
		tv.early = early // follow waits for it: the ask is answered, and the events read, meanwhile
	default:
		tv.token = s.editor.CreateProgress(ctx, "hermes/"+turn.TurnID())
	}
	s.turns.add(tv)
	// The events are asked for now, while the turn surely runs: a session that has ended (its
	// folder removed, the turn over) delivers nothing to a late caller.
	events := turn.Events()
	s.goAsync("turn", func(ctx context.Context) { s.follow(ctx, tv, prompt, events) })
	return tv
}

// follow hands a turn's events to its observers until the turn ends, then tells them how it ended.
// The observers, in order: the buffers (which mark an approval that conflicts with unsaved edits,
// for the observers after them), the changes under review its patches make, the turn's record behind hover and inlay hints, the
// hermes/turnEvent stream, the progress, and what follows a turn (a review's findings, or the
// answer and an automatic review).
func (s *Server) follow(ctx context.Context, tv *turnView, prompt string, events <-chan hermesproto.Event) {
	title := progress.FirstWords(prompt, 8)
	if tv.early != nil {
		s.turns.setToken(tv, tv.early.Wait(ctx))
	}
	cfg := progress.Config{Editor: s.editor, Token: tv.token, Title: "Hermes", Note: s.threads.RateLimitNote,
		Auto: func() bool { return s.approvals.Auto(tv.folder.Path).Effective }}
	if tv.review != nil {
		cfg.Title = "Hermes review"
	}
	if tv.token == nil {
		msg := "Hermes is working in " + tv.folder.Name + ": " + title
		if cfg.Auto() {
			msg += " (" + progress.AutoApproving + ": commands and patches run without asking)"
		}
		s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, msg)
	}
	observers := []turnObserver{
		buffers.New(s.docs, s.editor, s.log).Follow(tv.folder.Path),
		s.changes.Follow(tv.folder.Path), // after the buffers: a buffer that shows the patch has it marked at once
		recordObserver{s.lines, tv.rec},
		wireObserver{s.editor, s.settings, tv.folder.Path},
		progress.Start(ctx, cfg, title),
		afterTurnObserver{s, tv},
	}
	var (
		result *hermesproto.Result
		ev     hermesproto.Event // one for the whole turn: the observers take its address
	)
	for ev = range events {
		for _, o := range observers {
			o.Event(ctx, &ev)
		}
		if ev.Kind == hermesproto.EventKindTurnCompleted {
			result = ev.Result
		}
	}
	s.turns.remove(tv)
	for _, o := range observers {
		o.End(ctx, result)
	}
}

// cancelProgress interrupts the turn whose progress the user cancelled.
func (s *Server) cancelProgress(token protocol.ProgressToken) {
	target := s.turns.byToken(token)
	if target == nil {
		return
	}
	s.goAsync("cancel progress", func(ctx context.Context) {
		if err := target.turn.Interrupt(ctx); err != nil {
			s.log.Info("could not interrupt the turn", "err", err)
		}
	})
}
