package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// publishedFor returns the newest textDocument/publishDiagnostics of path, and how many there were.
func publishedFor(s *lsptest.State, path string) ([]protocol.Diagnostic, int) {
	var last []protocol.Diagnostic
	n := 0
	for _, raw := range s.Notifications["textDocument/publishDiagnostics"] {
		var p protocol.PublishDiagnosticsParams
		if json.Unmarshal(raw, &p) == nil && p.URI == uri.File(path) {
			last, n = p.Diagnostics, n+1
		}
	}
	return last, n
}

// diagnosticsFor holds once path's newest published diagnostics number n (after at least one
// publication).
func diagnosticsFor(path string, n int) lsptest.Condition {
	return func(s *lsptest.State) bool {
		d, count := publishedFor(s, path)
		return count > 0 && len(d) == n
	}
}

// TestInstructionHints: a `hermes:` line nobody has run carries a Hint diagnostic that says how to
// run it; running it removes the hint; the diagnostic is not offered as something to fix; the
// setting instructionHints false clears them.
func TestInstructionHints(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true})
	ctx := testCtx(t)
	text := "package a\n// hermes: add tests\n# HERMES: document it\n// hermes:\n"
	path := f.file("a.go", text)
	if err := f.ed.OpenFile(ctx, path, text); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, diagnosticsFor(path, 2)); err != nil {
		t.Fatal(err)
	}
	diags, _ := publishedFor(f.ed.State(), path)
	d := diags[0]
	if d.Range.Start.Line != 1 || d.Range.Start.Character != 3 || d.Range.End.Character != 20 ||
		d.Severity != protocol.DiagnosticSeverityHint || d.Source != "hermes" || d.Message != "Hermes instruction: run it from the code actions" {
		t.Errorf("hint: %+v", d)
	}
	if diags[1].Range.Start.Line != 2 {
		t.Errorf("second hint on line %d, want 2", diags[1].Range.Start.Line)
	}

	// The code actions of the line run it; they do not offer to "fix" the hint.
	var actions []protocol.CodeAction
	if err := f.ed.Call(ctx, "textDocument/codeAction", &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
		Range:        d.Range,
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		if a.Title == hermesproto.CodeActionTitleFixDiagnostic {
			t.Errorf("the hint is offered as a diagnostic to fix: %+v", a)
		}
	}
	if len(actions) == 0 || actions[0].Title != hermesproto.CodeActionTitleRunInstruct {
		t.Fatalf("code actions on the hint: %+v", actions)
	}

	// Run it: its hint goes, the other stays. The prompt does not carry the hint (the code action
	// request showed it among the line's diagnostics): it is a note to the person, not the code's.
	prompts := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		prompts <- ft.Prompt
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	raw, _ := json.Marshal(actions[0].Command.Arguments[0])
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	f.ask(ctx, args)
	if err := f.ed.Await(ctx, diagnosticsFor(path, 1)); err != nil {
		t.Fatal(err)
	}
	if p := <-prompts; !strings.Contains(p, "add tests") || strings.Contains(p, "Hermes instruction") || strings.Contains(p, "Diagnostics in this range") {
		t.Errorf("the instruction's prompt:\n%s", p)
	}
	if diags, _ := publishedFor(f.ed.State(), path); diags[0].Range.Start.Line != 2 {
		t.Errorf("hint left on line %d, want 2", diags[0].Range.Start.Line)
	}
	f.awaitEnd(ctx)

	// The setting off clears them.
	if err := f.ed.Notify(ctx, "workspace/didChangeConfiguration", map[string]any{
		"settings": map[string]any{"hermes": map[string]any{"stateDir": f.state, "yolo": true, "instructionHints": false}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, diagnosticsFor(path, 0)); err != nil {
		t.Fatal(err)
	}
}

// TestRunInstructionOnlyOnHermesLines: "Hermes: run instruction" is offered on a `hermes:` line
// (and its continuation lines) only, never on a selection, whoever asked for the code actions (the
// user, VS Code's light bulb, an editor that sends no triggerKind) and however small the selection;
// "Hermes: ask about selection" stays the selection's action. A selection that starts on a
// `hermes:` line runs that line's instruction, not the selected text.
func TestRunInstructionOnlyOnHermesLines(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	text := "package a\n\n// hermes: add tests\n\nfunc A() {}\nfunc B() {}\n"
	path := f.file("a.go", text)
	if err := f.ed.OpenFile(testCtx(t), path, text); err != nil {
		t.Fatal(err)
	}
	code := protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 4, Character: 11}}
	twoLines := protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 5, Character: 11}}
	fromInstruction := protocol.Range{Start: protocol.Position{Line: 2, Character: 3}, End: protocol.Position{Line: 4, Character: 11}}
	for _, trigger := range []int{0, 1, 2} {
		ctx := func() map[string]any {
			if trigger == 0 {
				return map[string]any{}
			}
			return map[string]any{"triggerKind": trigger}
		}
		for _, rng := range []protocol.Range{code, twoLines} {
			actions := rawCodeActions(t, f, path, rng, ctx())
			if prompt, ok := runPrompt(t, actions); ok {
				t.Errorf("trigger %d: a selection of %v is offered as an instruction, prompt %q", trigger, rng, prompt)
			}
			if findAction(actions, hermesproto.CodeActionTitleAskSelection) == nil {
				t.Errorf("trigger %d: no %q for the selection %v: %+v", trigger, hermesproto.CodeActionTitleAskSelection, rng, actions)
			}
		}
		if prompt, ok := runPrompt(t, rawCodeActions(t, f, path, lineRange(2), ctx())); prompt != "add tests" {
			t.Errorf("trigger %d: the hermes: line runs %q (%v), want %q", trigger, prompt, ok, "add tests")
		}
		if prompt, ok := runPrompt(t, rawCodeActions(t, f, path, fromInstruction, ctx())); prompt != "add tests" {
			t.Errorf("trigger %d: a selection from the hermes: line runs %q (%v), want the instruction %q", trigger, prompt, ok, "add tests")
		}
	}
}
