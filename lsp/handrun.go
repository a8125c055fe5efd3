package lsp

// This file says what a command answered to an editor that does not show it: Helix runs a command
// by hand (:lsp-workspace-command hermes.status) or from a code action, logs its error and drops
// its answer.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/threads"
)

// handRunMax bounds a message that says a command's answer: one line of a statusline or an echo
// area, and a little more (the editor cuts the rest, the person reruns with a uri for one folder).
const handRunMax = 400

// handRun tells the person what command answered: its error, or the answer of hermes.status,
// hermes.threads and hermes.models, on one line. The other commands say what they did themselves.
func (s *Server) handRun(ctx context.Context, command string, res any, err error) {
	name, _ := trimPrefix(command, s.settings.Load().CommandPrefix)
	if err != nil {
		msg := err.Error()
		if je := (*jsonrpc2.Error)(nil); errors.As(err, &je) {
			msg = je.Message
		}
		s.editor.ShowMessage(ctx, protocol.MessageTypeError, "Hermes: "+name+": "+safetext.LineCut(msg, handRunMax))
		return
	}
	var msg string
	switch r := res.(type) {
	case hermesproto.Status:
		msg = s.statusLine(ctx, r)
	case []hermesproto.ThreadInfo:
		msg = threadsLine(r, time.Now())
	case []hermesproto.ModelInfo:
		msg = modelsLine(r)
	}
	if msg != "" {
		s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, safetext.Cut(msg, handRunMax))
	}
}

// statusLine is hermes.status on one line: each folder's thread by its title, its turn, tokens,
// approvals waiting and turns to undo; who codex is signed in as.
func (s *Server) statusLine(ctx context.Context, st hermesproto.Status) string {
	var parts []string
	for _, f := range st.Folders {
		p := filepath.Base(f.Folder) + ": "
		if f.ThreadID == "" {
			p += "no thread yet"
		} else if sess, err := s.session(f.Folder); err == nil {
			p += threads.Name(ctx, sess, f.ThreadID)
		}
		if f.Turn != nil && f.Turn.State == "running" {
			p += ", a turn running"
		}
		if f.Usage.Total > 0 {
			p += ", " + annotate.CompactCount(f.Usage.Total) + " tokens"
		}
		if n := len(f.PendingApprovals); n > 0 {
			p += fmt.Sprintf(", %d approval(s) waiting (%s)", n, safetext.LineCut(f.PendingApprovals[0].Summary, 80))
		}
		if f.Yolo {
			p += ", auto-approving"
		}
		if n := len(f.UndoableTurns); n > 0 {
			p += fmt.Sprintf(", %d turn(s) to undo", n)
		}
		parts = append(parts, p)
	}
	msg := "Hermes · " + strings.Join(parts, " · ")
	if len(parts) == 0 {
		msg = "Hermes: no workspace folder"
	}
	switch {
	case st.Account != nil && st.Account.Email != "":
		msg += " · signed in as " + safetext.LineCut(st.Account.Email, 80)
	case st.SignedIn != nil && !*st.SignedIn:
		msg += " · codex is not signed in (hermes.login)"
	}
	return msg
}

// threadsLine is hermes.threads on one line, newest first: each thread by its title and when it was
// last used, the current one and reviews marked.
func threadsLine(list []hermesproto.ThreadInfo, now time.Time) string {
	if len(list) == 0 {
		return "Hermes: no thread in this folder yet"
	}
	parts := make([]string, 0, len(list))
	for _, th := range list {
		label := threads.ThreadLabel(threads.Info(th), now)
		if th.Current {
			label += " current"
		}
		parts = append(parts, label)
	}
	return fmt.Sprintf("Hermes: %d thread(s): %s (resume one from the code actions)", len(list), strings.Join(parts, "; "))
}

// modelsLine is hermes.models on one line, the current model marked.
func modelsLine(list []hermesproto.ModelInfo) string {
	if len(list) == 0 {
		return "Hermes: codex lists no model"
	}
	parts := make([]string, 0, len(list))
	for _, m := range list {
		p := safetext.LineCut(m.ID, 60)
		if m.Current {
			p += " (current)"
		}
		parts = append(parts, p)
	}
	return "Hermes: models: " + strings.Join(parts, ", ")
}
