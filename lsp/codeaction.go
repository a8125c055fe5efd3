package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/instruct"
)

// diagnosticSource is the source of every diagnostic the server publishes.
const diagnosticSource = "hermes"

// selectionPrompt is what "ask about selection" asks when the editor gives no words of its own.
const selectionPrompt = "Look at the selected code: explain what it does and fix anything wrong with it."

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
func (s *Server) codeActions(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	uri := string(p.TextDocument.URI)
	only := p.Context.Only
	if !slices.ContainsFunc(ourKinds, func(k protocol.CodeActionKind) bool { return kindWanted(k, only) }) {
		return []protocol.CodeAction{}, nil
	}
	folder, err := s.resolveFolder(uri)
	docFolder := folder.Path // "" for a transcript, which is no file of a folder
	if f, _, ok := s.threads.Transcript(uri); ok {
		// A transcript (even in a connection of its own, whose folder is the state folder): its
		// `hermes:` lines continue its thread, in the thread's folder.
		folder, docFolder = f, ""
	} else if err != nil {
		return []protocol.CodeAction{}, nil // not ours to act on; say nothing
	}
	_, adopted := s.folders.Lookup(folder.Path) // a transcript's folder not open here has no session yet
	if len(p.Context.Diagnostics) > 0 {
		s.editor.Diagnostics().Seen(uri, p.Context.Diagnostics)
	}
	prefix := s.settings.Load().CommandPrefix
	command := func(title, name string, arg any) *protocol.Command {
		return &protocol.Command{Title: title, Command: prefix + name, Arguments: []any{arg}}
	}
	rng := p.Range
	var actions []protocol.CodeAction

	if prompt, ok := s.instructions.At(uri, rng); ok {
		actions = append(actions, protocol.CodeAction{
			Title: hermesproto.CodeActionTitleRunInstruct, Kind: protocol.QuickFix,
			Command: command(hermesproto.CodeActionTitleRunInstruct, hermesproto.CmdAsk, hermesproto.AskArgs{Prompt: prompt, URI: uri, Range: &rng}),
		})
	}
	if !instruct.Tiny(rng) {
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

	actions = append(actions, s.reviews.Actions(uri, docFolder, rng, command)...)
	actions = append(actions, s.changes.Actions(uri, rng, command)...)

	running := s.turns.in(folder.Path) != nil
	h := s.host.Load()
	if !running && s.reviews.Enabled() {
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
	} else if h != nil && adopted {
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

// instructionDocument reports whether the server looks for instructions in the document at uri
// (one of a workspace folder, or a thread's transcript of one), and whether it is a transcript.
func (s *Server) instructionDocument(uri string) (transcript, ok bool) {
	if s.threads.IsTranscript(uri) {
		_, _, ok := s.threads.Transcript(uri)
		return true, ok
	}
	_, err := s.resolveFolder(uri)
	return false, err == nil
}
