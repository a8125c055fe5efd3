package lsp

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// selectionPrompt is what "ask about selection" asks when the editor gives no words of its own.
const selectionPrompt = "Look at the selected code: explain what it does and fix anything wrong with it."

// instruction finds a `hermes:` instruction on a line of a document other than a transcript, in a
// comment or in plain text.
var instruction = regexp.MustCompile(`(?i)\bhermes:\s*(.+)$`)

// codeActionParams are textDocument/codeAction's params with LSP 3.17's context.triggerKind,
// which go.lsp.dev/protocol v0.12.0 lacks. Context is decoded here; CodeActionParams.Context,
// shadowed, stays empty.
type codeActionParams struct {
	protocol.CodeActionParams
	Context codeActionContext `json:"context"`
}

// codeActionContext is CodeActionContext with triggerKind.
type codeActionContext struct {
	protocol.CodeActionContext
	TriggerKind codeActionTriggerKind `json:"triggerKind,omitempty"`
}

// codeActionTriggerKind says why the editor asks for code actions: the user asked (1), or the
// editor asks on its own (2: VS Code's light bulb, as the cursor or the selection moves). A client
// older than LSP 3.17 sends none (0): taken as the user's asking, as it could not tell the two apart.
type codeActionTriggerKind int

const codeActionAutomatic codeActionTriggerKind = 2

// ourKinds are the kinds of the server's code actions (the resume actions have none).
var ourKinds = []protocol.CodeActionKind{protocol.QuickFix, protocol.Refactor, protocol.Source}

// kindWanted reports whether an action of kind is wanted by a request for only those kinds (none:
// every action): its kind is one of them or a sub-kind ("source" asks for "source.fixAll" too,
// "source.fixAll" not for "source"). An action without a kind is wanted only when only is empty.
func kindWanted(kind protocol.CodeActionKind, only []protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind != "" && (kind == o || strings.HasPrefix(string(kind), string(o)+".")) {
			return true
		}
	}
	return false
}

// codeActions offers Hermes in any document of a workspace folder, and in a thread's transcript.
// Only the kinds of context.only are offered; a request for none of ours (an editor's
// source.fixAll or source.organizeImports on save) gets an empty list at once.
func (s *Server) codeActions(ctx context.Context, p *codeActionParams) ([]protocol.CodeAction, error) {
	uri := string(p.TextDocument.URI)
	only := p.Context.Only
	if !slices.ContainsFunc(ourKinds, func(k protocol.CodeActionKind) bool { return kindWanted(k, only) }) {
		return []protocol.CodeAction{}, nil
	}
	folder, err := s.resolveFolder(uri)
	if err != nil {
		f, _, ok := s.threads.Transcript(uri)
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
	prefix := s.settings.Load().CommandPrefix
	command := func(title, name string, arg any) *protocol.Command {
		return &protocol.Command{Title: title, Command: prefix + name, Arguments: []any{arg}}
	}
	rng := p.Range
	var actions []protocol.CodeAction

	if prompt, ok := s.instructionAt(uri, rng, p.Context.TriggerKind != codeActionAutomatic); ok {
		actions = append(actions, protocol.CodeAction{
			Title: hermesproto.CodeActionTitleRunInstruct, Kind: protocol.QuickFix,
			Command: command(hermesproto.CodeActionTitleRunInstruct, hermesproto.CmdAsk, hermesproto.AskArgs{Prompt: prompt, URI: uri, Range: &rng}),
		})
	}
	if !tiny(rng) {
		actions = append(actions, protocol.CodeAction{
			Title: hermesproto.CodeActionTitleAskSelection, Kind: protocol.Refactor,
			Command: command(hermesproto.CodeActionTitleAskSelection, hermesproto.CmdAsk, hermesproto.AskArgs{Prompt: selectionPrompt, URI: uri, Range: &rng}),
		})
	}
	for _, d := range p.Context.Diagnostics {
		if d.Source == diagnosticSource {
			continue // the server's own: they come with their own actions
		}
		drng := d.Range
		actions = append(actions, protocol.CodeAction{
			Title: hermesproto.CodeActionTitleFixDiagnostic, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{d},
			Command: command(hermesproto.CodeActionTitleFixDiagnostic, hermesproto.CmdAsk, hermesproto.AskArgs{
				Prompt: "Fix this diagnostic: " + d.Message, URI: uri, Range: &drng, Diagnostics: []protocol.Diagnostic{d},
			}),
		})
	}

	actions = append(actions, s.findingActions(uri, rng, command)...)

	s.mu.Lock()
	_, running := s.turns[folder.Path]
	s.mu.Unlock()
	h := s.host.Load()
	if !running && s.reviewEnabled() {
		actions = append(actions, protocol.CodeAction{
			Title: hermesproto.CodeActionTitleReview, Kind: protocol.Source,
			Command: command(hermesproto.CodeActionTitleReview, hermesproto.CmdReview, hermesproto.ReviewArgs{URI: uri}),
		})
	}
	if running {
		actions = append(actions, protocol.CodeAction{
			Title: hermesproto.CodeActionTitleStopTurn, Kind: protocol.QuickFix,
			Command: command(hermesproto.CodeActionTitleStopTurn, hermesproto.CmdCancel, hermesproto.FolderArgs{URI: uri}),
		})
	} else if h != nil {
		if sess, err := h.Session(folder.Path); err == nil {
			if cps, err := sess.Checkpoints(); err == nil && len(cps) > 0 {
				title := fmt.Sprintf(hermesproto.CodeActionTitleUndoTurn, len(cps[0].Files))
				actions = append(actions, protocol.CodeAction{
					Title: title, Kind: protocol.QuickFix,
					Command: command(title, hermesproto.CmdUndoTurn, hermesproto.UndoTurnArgs{URI: uri, TurnID: cps[0].TurnID}),
				})
			}
			actions = append(actions, s.threads.ResumeActions(ctx, folder.Path, uri, sess, h)...)
		}
	}
	// Pending approvals come before everything else (lsp/approve), each with Deny first.
	actions = append(s.approvals.CodeActions(folder.Path, command), actions...)
	wanted := []protocol.CodeAction{}
	for _, a := range actions {
		if kindWanted(a.Kind, only) {
			wanted = append(wanted, a)
		}
	}
	return wanted, nil
}

// instructionAt finds what "run instruction" runs: the instruction on the current line (with its
// continuation lines: see instructionsIn), else, when the user asked for the code actions
// (invoked), the selected text. Both are bounded: agenthost.InstructionMaxBytes and
// InstructionMaxLines. Helix always sends its cursor as a one-character selection, which never
// outranks a `hermes:` line and is never taken as a prompt by itself. In a transcript only the
// user's instructions run: no selection (mostly what the agent wrote) is a prompt.
func (s *Server) instructionAt(uri string, rng protocol.Range, invoked bool) (string, bool) {
	if s.threads.IsTranscript(uri) {
		return s.transcriptInstructionAt(uri, rng.Start.Line)
	}
	if line, ok := s.docs.Line(uri, rng.Start.Line); ok {
		next := rng.Start.Line
		in, ok := sourceInstruction(int(next), line, func() (string, bool) {
			next++
			return s.docs.Line(uri, next)
		})
		if ok {
			return in.Prompt, true
		}
	}
	if !invoked || tiny(rng) || selectionLines(rng) > agenthost.InstructionMaxLines {
		return "", false
	}
	text, ok := s.docs.Range(uri, rng)
	text = strings.TrimSpace(text)
	if !ok || text == "" || len(text) > agenthost.InstructionMaxBytes {
		return "", false
	}
	return text, true
}

// transcriptInstructionAt returns the instruction the user wrote on line n of a transcript, found
// by the transcript's format: a line of the agent's is none.
func (s *Server) transcriptInstructionAt(uri string, n uint32) (string, bool) {
	line, ok := s.docs.Line(uri, n)
	if !ok || !instruction.MatchString(line) {
		return "", false // the common case, without reading the whole transcript
	}
	if size, ok := s.docs.Size(uri); !ok || size > instructionScanMax {
		return "", false
	}
	text, ok := s.docs.Text(uri)
	if !ok {
		return "", false
	}
	for in := range agenthost.TranscriptInstructions(text) {
		if in.Line >= int(n) {
			return in.Prompt, in.Line == int(n)
		}
	}
	return "", false
}

// selectionLines is how many lines r spans.
func selectionLines(r protocol.Range) int {
	if r.End.Line < r.Start.Line {
		r.Start, r.End = r.End, r.Start
	}
	return int(r.End.Line-r.Start.Line) + 1
}

// tiny reports a selection of at most one character on one line: a cursor.
func tiny(r protocol.Range) bool {
	return r.Start.Line == r.End.Line && r.End.Character <= r.Start.Character+1
}
