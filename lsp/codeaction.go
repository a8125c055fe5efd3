package lsp

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/lsp/hermesproto"
)

// Code action titles.
const (
	TitleAskSelection  = hermesproto.CodeActionTitleAskSelection
	TitleFixDiagnostic = hermesproto.CodeActionTitleFixDiagnostic
	TitleRunInstruct   = hermesproto.CodeActionTitleRunInstruct
	TitleStopTurn      = hermesproto.CodeActionTitleStopTurn
	TitleAllowOnce     = hermesproto.CodeActionTitleAllowOnce
	TitleAllowSession  = hermesproto.CodeActionTitleAllowSession
	TitleDeny          = hermesproto.CodeActionTitleDeny
	TitleUndoTurn      = hermesproto.CodeActionTitleUndoTurn
	TitleFixFinding    = hermesproto.CodeActionTitleFixFinding
	TitleDismiss       = hermesproto.CodeActionTitleDismiss
	TitleDismissAll    = hermesproto.CodeActionTitleDismissAll
	TitleReview        = hermesproto.CodeActionTitleReview
)

// selectionPrompt is what "ask about selection" asks when the editor gives no words of its own.
const selectionPrompt = "Look at the selected code: explain what it does and fix anything wrong with it."

// instruction finds a `hermes:` instruction on a line, in a comment or in plain text.
var instruction = regexp.MustCompile(`(?i)\bhermes:\s*(.+)$`)

// codeActions offers Hermes in any document of a workspace folder.
func (s *Server) codeActions(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	uri := string(p.TextDocument.URI)
	folder, err := s.resolveFolder(uri)
	if err != nil {
		f, _, ok := s.transcriptThread(uri)
		if !ok {
			return []protocol.CodeAction{}, nil // not ours to act on; say nothing
		}
		folder = f // a transcript: its `hermes:` lines continue its thread
	}
	if len(p.Context.Diagnostics) > 0 {
		s.mu.Lock()
		s.diagnostics[uri] = p.Context.Diagnostics
		s.mu.Unlock()
	}
	prefix := s.currentSettings().CommandPrefix
	command := func(title, name string, arg any) *protocol.Command {
		return &protocol.Command{Title: title, Command: prefix + name, Arguments: []any{arg}}
	}
	rng := p.Range
	var actions []protocol.CodeAction

	if prompt, ok := s.instructionAt(uri, rng); ok {
		actions = append(actions, protocol.CodeAction{
			Title: TitleRunInstruct, Kind: protocol.QuickFix,
			Command: command(TitleRunInstruct, CmdAsk, askArgs{Prompt: prompt, URI: uri, Range: &rng}),
		})
	}
	if !tiny(rng) {
		actions = append(actions, protocol.CodeAction{
			Title: TitleAskSelection, Kind: protocol.Refactor,
			Command: command(TitleAskSelection, CmdAsk, askArgs{Prompt: selectionPrompt, URI: uri, Range: &rng}),
		})
	}
	for _, d := range p.Context.Diagnostics {
		if d.Source == diagnosticSource {
			continue // the server's own: they come with their own actions
		}
		drng := d.Range
		actions = append(actions, protocol.CodeAction{
			Title: TitleFixDiagnostic, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{d},
			Command: command(TitleFixDiagnostic, CmdAsk, askArgs{
				Prompt: "Fix this diagnostic: " + d.Message, URI: uri, Range: &drng, Diagnostics: []protocol.Diagnostic{d},
			}),
		})
	}

	actions = append(actions, s.findingActions(uri, rng, command)...)

	s.mu.Lock()
	_, running := s.turns[folder.Path]
	h := s.host
	s.mu.Unlock()
	if !running && s.reviewEnabled() {
		actions = append(actions, protocol.CodeAction{
			Title: TitleReview, Kind: protocol.Source,
			Command: command(TitleReview, CmdReview, hermesproto.ReviewArgs{URI: uri}),
		})
	}
	if running {
		actions = append(actions, protocol.CodeAction{
			Title: TitleStopTurn, Kind: protocol.QuickFix,
			Command: command(TitleStopTurn, CmdCancel, folderArgs{URI: uri}),
		})
	} else if h != nil {
		if sess, err := h.Session(folder.Path); err == nil {
			if cps, err := sess.Checkpoints(); err == nil && len(cps) > 0 {
				title := fmt.Sprintf(TitleUndoTurn, len(cps[0].Files))
				actions = append(actions, protocol.CodeAction{
					Title: title, Kind: protocol.QuickFix,
					Command: command(title, CmdUndoTurn, hermesproto.UndoTurnArgs{URI: uri, TurnID: cps[0].TurnID}),
				})
			}
			actions = append(actions, s.resumeActions(ctx, folder.Path, uri, sess, h)...)
		}
	}
	// Pending approvals come before everything else, each with Deny first: eglot pre-selects the
	// first action and Helix's picker highlights it, and an accidental Enter must never grant.
	var approvals []protocol.CodeAction
	if h != nil {
		if sess, err := h.Session(folder.Path); err == nil {
			for _, a := range sess.Pending() {
				for _, choice := range []struct {
					title    string
					decision agenthost.Decision
				}{{TitleDeny, agenthost.DecisionDeny}, {TitleAllowOnce, agenthost.DecisionOnce}, {TitleAllowSession, agenthost.DecisionSession}} {
					title := choice.title + a.Summary
					approvals = append(approvals, protocol.CodeAction{
						Title: title, Kind: protocol.QuickFix,
						Command: command(title, CmdApprove, approveArgs{ApprovalID: a.ID, Decision: string(choice.decision)}),
					})
				}
			}
		}
	}
	actions = append(approvals, actions...)
	if actions == nil {
		actions = []protocol.CodeAction{}
	}
	return actions, nil
}

// instructionAt finds what "run instruction" runs: the current line's `hermes:` instruction, else
// the selected text. Helix always sends its cursor as a one-character selection, which never
// outranks a `hermes:` line and is never taken as a prompt by itself.
func (s *Server) instructionAt(uri string, rng protocol.Range) (string, bool) {
	if line, ok := s.lineAt(uri, rng.Start.Line); ok {
		if m := instruction.FindStringSubmatch(line); m != nil {
			text := strings.TrimSpace(strings.TrimRight(m[1], "*/->#; \t"))
			if text != "" {
				return text, true
			}
		}
	}
	if tiny(rng) {
		return "", false
	}
	text, ok := s.docs.Range(uri, rng)
	text = strings.TrimSpace(text)
	if !ok || text == "" {
		return "", false
	}
	return text, true
}

func (s *Server) lineAt(uri string, line uint32) (string, bool) {
	if text, ok := s.docs.Line(uri, line); ok {
		return text, true
	}
	return "", false
}

// tiny reports a selection of at most one character on one line: a cursor.
func tiny(r protocol.Range) bool {
	return r.Start.Line == r.End.Line && r.End.Character <= r.Start.Character+1
}
