package lsp

// This file holds the observers that follow hands a turn's events to. A feature that watches turns
// is one more observer here, and one more line in follow's list.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"go.lsp.dev/protocol"
)

// A turnObserver watches one turn: Event for each of its events, in order, then End once, with the
// turn's result (nil when it ended without one). Both are called on the turn's follower goroutine.
// An observer may annotate the event for the observers after it (buffers.Observer does).
type turnObserver interface {
	Event(ctx context.Context, ev *hermesproto.Event)
	End(ctx context.Context, res *hermesproto.Result)
}

// recordObserver keeps the turn's record behind hover and inlay hints, and redraws the hints when
// the record's line changes.
type recordObserver struct {
	lines *annotate.Lines
	rec   *annotate.Record
}

func (o recordObserver) Event(_ context.Context, ev *hermesproto.Event) {
	if o.rec.Apply(*ev) && o.lines.Origins().Has(o.rec) {
		o.lines.Refresh()
	}
}

func (recordObserver) End(context.Context, *hermesproto.Result) {}

// wireObserver streams the turn's events as hermes/turnEvent notifications while the turnEvents
// setting is on.
type wireObserver struct {
	ed       *editor.Client
	settings *settings.Current
	folder   string
}

func (o wireObserver) Event(ctx context.Context, ev *hermesproto.Event) {
	if !o.settings.Load().TurnEvents {
		return
	}
	o.ed.Notify(ctx, hermesproto.MethodTurnEvent, &hermesproto.TurnEventParams{Folder: o.folder, ThreadID: ev.ThreadID, TurnID: ev.TurnID, Event: *ev})
}

func (wireObserver) End(context.Context, *hermesproto.Result) {}

// afterTurnObserver does what follows a turn that ended with a result: a review's findings, or the
// answer shown and an automatic review; then the server may give memory back once idle.
type afterTurnObserver struct {
	s  *Server
	tv *turnView
}

func (afterTurnObserver) Event(context.Context, *hermesproto.Event) {}

func (o afterTurnObserver) End(ctx context.Context, res *hermesproto.Result) {
	if res == nil {
		return
	}
	defer o.s.turns.endedIdle()
	if o.tv.review != nil {
		o.s.reviews.Finish(ctx, o.tv.folder, o.tv.review, res)
		return
	}
	o.announce(ctx, res)
	o.s.reviews.AfterTurn(ctx, o.tv.folder, o.tv.rec.ChangedFiles(), res)
}

// plainAnswerMax bounds the summary of an answer in a one-line message.
const plainAnswerMax = 160

// announce shows the final answer, shortened, with where the whole of it is, and opens the
// transcript when the user wants it. An editor that shows messages as plain text on one line gets a
// summary on one line (see plainAnnouncement). A client that shows turns itself (showsTurns, with
// hermes/turnEvent on) has the answer already, in one place: no message, and the transcript only
// when the user chose openTranscript.
func (o afterTurnObserver) announce(ctx context.Context, res *hermesproto.Result) {
	s := o.s
	toast, open := answerSurfaces(s.editor.Caps(), s.settings.Load())
	if open && res.TranscriptPath != "" {
		defer s.editor.ShowDocument(ctx, res.TranscriptPath, false)
	}
	if !toast {
		return
	}
	typ := protocol.MessageTypeInfo
	text := res.FinalText
	if !res.Completed {
		typ = protocol.MessageTypeWarning
		if res.Error != "" && !strings.Contains(text, res.Error) {
			text = strings.TrimSpace(text + " (" + annotate.FirstLine(res.Error) + ")")
		}
	}
	if s.editor.Caps().PlainMessages {
		s.editor.ShowMessage(ctx, typ, o.plainAnnouncement(text, res))
	} else {
		s.editor.ShowMessage(ctx, typ, o.announcement(text, res))
	}
}

// answerSurfaces says where a turn's answer goes when it ends: a message (toast) and the transcript
// opened. A client that shows turns itself (caps.ShowsTurns, with the turnEvents setting on) gets
// neither, so that each answer shows once: the transcript opens there only when the user chose
// openTranscript (not the default that follows showDocument). Other clients keep the message, and
// the transcript as openTranscript says.
func answerSurfaces(caps editor.Caps, st *settings.Settings) (toast, openTranscript bool) {
	if caps.ShowsTurns && st.TurnEvents {
		return false, st.OpenTranscriptSet() && st.OpenTranscript
	}
	return true, st.OpenTranscript
}

// plainAnnouncement is the answer on one line of plain text, its markdown left out, then where the
// whole answer is: hover on the line it was asked from, else the transcript.
func (o afterTurnObserver) plainAnnouncement(text string, res *hermesproto.Result) string {
	msg := "Hermes (" + o.tv.folder.ShortName() + "): " + safetext.Summary(text, plainAnswerMax)
	if key, line, ok := o.s.lines.Origins().Where(o.tv.rec); ok {
		msg += fmt.Sprintf(" · the whole answer: hover line %d of %s", line+1, filepath.Base(key))
	} else if res.TranscriptPath != "" {
		msg += " · the whole answer: " + res.TranscriptPath
	}
	return msg
}

// announcement is the answer, shortened, on several lines with the transcript's path.
func (o afterTurnObserver) announcement(text string, res *hermesproto.Result) string {
	s, tv := o.s, o.tv
	msg := "Hermes (" + tv.folder.Name + "): " + agenthost.Truncate(strings.TrimSpace(text), 400)
	if key, line, ok := s.lines.Origins().Where(tv.rec); ok {
		msg += fmt.Sprintf("\nThe whole answer: hover line %d of %s", line+1, filepath.Base(key))
		if res.TranscriptPath != "" {
			msg += ", or read the transcript"
		}
	}
	if res.TranscriptPath != "" {
		msg += "\nTranscript: " + res.TranscriptPath
	}
	return msg
}
