package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

const calcSrc = "package calc\n\nfunc Sum(n int) int {\n\ttotal := 0\n\tfor i := 1; i < n; i++ {\n\t\ttotal += i\n\t}\n\treturn total\n}\n"

// rendered is a review as codex 0.171.0 renders it, with findings "TITLE|path|start|end|body".
func rendered(explanation string, findings ...string) string {
	var b strings.Builder
	b.WriteString(explanation)
	if len(findings) > 0 {
		if len(findings) == 1 {
			b.WriteString("\n\nReview comment:")
		} else {
			b.WriteString("\n\nFull review comments:")
		}
		for _, f := range findings {
			p := strings.Split(f, "|")
			fmt.Fprintf(&b, "\n\n- %s — %s:%s-%s\n  %s", p[0], p[1], p[2], p[3], p[4])
		}
	}
	return b.String()
}

// onReview plays reviews with the next texts, and ordinary turns with "ok".
func onReview(f *fixture, texts ...string) *[]*codextest.FakeTurn {
	var reviews []*codextest.FakeTurn
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		if ft.ReviewTarget == nil {
			ft.AgentMessage("ok")
			ft.Complete(codex.TurnCompleted, nil)
			return
		}
		reviews = append(reviews, ft)
		ft.ExitReview(texts[min(len(reviews), len(texts))-1])
		ft.Complete(codex.TurnCompleted, nil)
	})
	return &reviews
}

// TestReviewFindingsAsDiagnostics: a review's findings become diagnostics with the fields the
// issue names; a finding outside the folder goes into the message; the next review replaces them
// (an empty list for a file no longer mentioned); the conversation's thread is untouched.
func TestReviewFindingsAsDiagnostics(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	calc := f.file("calc.go", calcSrc)
	other := f.file("other.go", "package calc\n\nvar x = 1\n")
	reviews := onReview(f,
		rendered("Sum has an off-by-one error.",
			"[P1] Loop stops one short of n|"+calc+"|5|5|The loop condition `i < n` skips n.",
			"Name the result|"+calc+"|4|8|nit",
			"[P2] Elsewhere|/outside/x.go|3|3|not ours"),
		rendered("One more.", "[P3] Unused|"+other+"|3|3|x is unused"),
	)
	asked := f.ask(ctx, map[string]any{"prompt": "hello"})
	f.awaitEndN(ctx, 1)

	var res hermesproto.ReviewResult
	command(t, f, hermesproto.CmdReview, map[string]any{}, &res)
	if res.ReviewID == "" || res.ThreadID == asked.ThreadID || res.Folder != f.folder {
		t.Fatalf("hermes.review: %+v (conversation thread %s)", res, asked.ThreadID)
	}
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 2)); err != nil {
		t.Fatal(err)
	}
	if target := string((*reviews)[0].ReviewTarget); target != `{"type":"uncommittedChanges"}` {
		t.Errorf("review target %s", target)
	}
	diags, _ := publishedFor(f.ed.State(), calc)
	d := diags[0]
	if d.Source != "hermes" || d.Code != "P1" || d.Severity != protocol.DiagnosticSeverityError ||
		d.Range != (protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 4, Character: 25}}) ||
		d.Message != "Loop stops one short of n\n\nThe loop condition `i < n` skips n." {
		t.Errorf("first finding: %+v", d)
	}
	data, _ := json.Marshal(d.Data)
	var ref hermesproto.FindingRef
	if json.Unmarshal(data, &ref) != nil || ref != (hermesproto.FindingRef{ReviewID: res.ReviewID, FindingID: "1"}) {
		t.Errorf("first finding's data %s", data)
	}
	if d := diags[1]; d.Code != nil || d.Severity != protocol.DiagnosticSeverityInformation || d.Range.Start.Line != 3 || d.Range.End.Line != 7 {
		t.Errorf("second finding: %+v", d)
	}
	if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes review of the uncommitted changes")); err != nil {
		t.Fatal(err)
	}
	msgs := f.ed.State().ShowMessages
	last := msgs[len(msgs)-1].Message
	for _, want := range []string{"2 findings (P1 1, unranked 1)", "Sum has an off-by-one error.", "1 finding(s) outside the folder: Elsewhere (/outside/x.go:3)"} {
		if !strings.Contains(last, want) {
			t.Errorf("review message lacks %q: %q", want, last)
		}
	}
	var st hermesproto.Status
	command(t, f, hermesproto.CmdStatus, nil, &st)
	if st.Folders[0].ThreadID != asked.ThreadID {
		t.Errorf("the review moved the folder's thread to %s", st.Folders[0].ThreadID)
	}

	// The next review replaces the findings.
	command(t, f, hermesproto.CmdReview, map[string]any{"target": map[string]any{"type": "baseBranch", "branch": "main"}}, &res)
	if err := f.ed.Await(ctx, lsptest.AllOf(diagnosticsFor(calc, 0), diagnosticsFor(other, 1))); err != nil {
		t.Fatal(err)
	}
	if target := string((*reviews)[1].ReviewTarget); target != `{"branch":"main","type":"baseBranch"}` {
		t.Errorf("review target %s", target)
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdReview, map[string]any{"target": map[string]any{"type": "commit"}}); err == nil || !strings.Contains(err.Error(), "needs a sha") {
		t.Errorf("a commit review without a sha: %v", err)
	}
}

// TestFindingActions: on a finding's lines, fix starts a turn whose prompt quotes it; dismiss
// removes its diagnostic; a restarted server publishes the saved findings again.
func TestFindingActions(t *testing.T) {
	f := start(t, lsptest.Helix2501, map[string]any{"yolo": true})
	ctx := testCtx(t)
	calc := f.file("calc.go", calcSrc)
	var prompts []string
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		if ft.ReviewTarget != nil {
			ft.ExitReview(rendered("x", "[P1] Off by one|"+calc+"|5|5|skips n", "[P2] Style|"+calc+"|8|8|return early"))
		} else {
			prompts = append(prompts, ft.Prompt)
			ft.AgentMessage("fixed")
		}
		ft.Complete(codex.TurnCompleted, nil)
	})
	command(t, f, hermesproto.CmdReview, map[string]any{"uri": string(uri.File(calc))}, nil)
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 2)); err != nil {
		t.Fatal(err)
	}
	actions := codeActionsOn(t, f, calc, 4)
	titles := map[string]protocol.CodeAction{}
	for _, a := range actions {
		titles[a.Title] = a
	}
	fix, ok := titles[hermesproto.CodeActionTitleFixFinding]
	if !ok || !fix.IsPreferred || fix.Kind != protocol.QuickFix {
		t.Fatalf("code actions on the finding: %+v", actions)
	}
	if _, ok := titles[hermesproto.CodeActionTitleDismissAll]; !ok {
		t.Errorf("no dismiss-all action: %+v", actions)
	}
	f.ask(ctx, argsOf(t, fix))
	f.awaitEndN(ctx, 1) // the fix's answer (the review's message is one line, with no transcript)
	if len(prompts) != 1 || !strings.Contains(prompts[0], "Fix this review finding in calc.go (lines 5-5): Off by one") || !strings.Contains(prompts[0], "skips n") {
		t.Errorf("the fix turn's prompt: %q", prompts)
	}
	command(t, f, titles[hermesproto.CodeActionTitleDismiss].Command.Command, argsOf(t, titles[hermesproto.CodeActionTitleDismiss]), nil)
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 1)); err != nil {
		t.Fatal(err)
	}

	// Another server on the same folder and state publishes the finding that is left.
	g := startIn(t, f.folder, f.state, lsp.Options{}, lsptest.Helix2501, nil)
	if err := g.ed.Await(ctx, diagnosticsFor(calc, 1)); err != nil {
		t.Fatal(err)
	}
	diags, _ := publishedFor(g.ed.State(), calc)
	if diags[0].Message != "Style\n\nreturn early" || diags[0].Range.Start.Line != 7 {
		t.Errorf("republished after a restart: %+v", diags[0])
	}
}

// TestFindingsFollowEdits: a finding moves with lines inserted above it and goes with its lines.
func TestFindingsFollowEdits(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	calc := f.file("calc.go", calcSrc)
	onReview(f, rendered("x", "[P1] Off by one|"+calc+"|5|5|skips n"))
	if err := f.ed.OpenFile(ctx, calc, calcSrc); err != nil {
		t.Fatal(err)
	}
	command(t, f, hermesproto.CmdReview, map[string]any{}, nil)
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 1)); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.ChangeFile(ctx, calc, protocol.TextDocumentContentChangeEvent{
		Range: protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1}}, Text: "// a\n// b\n",
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, func(s *lsptest.State) bool {
		d, _ := publishedFor(s, calc)
		return len(d) == 1 && d[0].Range.Start.Line == 6
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.ChangeFile(ctx, calc, protocol.TextDocumentContentChangeEvent{
		Range: protocol.Range{Start: protocol.Position{Line: 6}, End: protocol.Position{Line: 7}}, Text: "",
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 0)); err != nil {
		t.Fatal(err)
	}
}

// TestReviewSeverities: each priority has its severity: P0 and P1 errors, P2 a warning, P3 and an
// unranked finding information; the code names the priority.
func TestReviewSeverities(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	calc := f.file("calc.go", calcSrc)
	onReview(f, rendered("Five findings.",
		"[P0] Zero|"+calc+"|1|1|b", "[P1] One|"+calc+"|2|2|b", "[P2] Two|"+calc+"|3|3|b",
		"[P3] Three|"+calc+"|4|4|b", "Unranked|"+calc+"|5|5|b"))
	command(t, f, hermesproto.CmdReview, map[string]any{}, nil)
	if err := f.ed.Await(ctx, diagnosticsFor(calc, 5)); err != nil {
		t.Fatal(err)
	}
	want := map[uint32]struct {
		code     any
		severity protocol.DiagnosticSeverity
	}{
		0: {"P0", protocol.DiagnosticSeverityError},
		1: {"P1", protocol.DiagnosticSeverityError},
		2: {"P2", protocol.DiagnosticSeverityWarning},
		3: {"P3", protocol.DiagnosticSeverityInformation},
		4: {nil, protocol.DiagnosticSeverityInformation},
	}
	diags, _ := publishedFor(f.ed.State(), calc)
	for _, d := range diags {
		w, ok := want[d.Range.Start.Line]
		if !ok {
			t.Errorf("a finding on line %d", d.Range.Start.Line)
			continue
		}
		delete(want, d.Range.Start.Line)
		if d.Code != w.code || d.Severity != w.severity {
			t.Errorf("%q: code %v severity %v, want %v %v", d.Message, d.Code, d.Severity, w.code, w.severity)
		}
	}
	if len(want) != 0 {
		t.Errorf("findings missing: %v", want)
	}
}

// TestAutoReview: review.afterTurn starts a review after a turn that changed files with enough tool
// calls, not after a lighter one; the next prompt cancels a running automatic review.
func TestAutoReview(t *testing.T) {
	noReview := make(chan slog.Record, 10)
	f := startWith(t, lsp.Options{Logger: slog.New(logWatch{"no automatic review", noReview})}, lsptest.VSCode,
		map[string]any{"yolo": true, "review": map[string]any{"afterTurn": map[string]any{"minToolCalls": 2}}})
	ctx := testCtx(t)
	f.file("calc.go", calcSrc)
	type started struct{ review bool }
	turns := make(chan started, 10)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		turns <- started{review: ft.ReviewTarget != nil}
		switch {
		case ft.ReviewTarget != nil:
			<-ft.Interrupted() // a review that runs until the next prompt stops it
			ft.Complete(codex.TurnInterrupted, nil)
		case strings.Contains(ft.Prompt, "heavy"):
			ft.Exec("go build ./...", 0, "")
			ft.Exec("go test ./...", 0, "")
			ft.Notify(codex.NotifyTurnDiffUpdated, map[string]any{"diff": "--- a/calc.go\n+++ b/calc.go\n"})
			ft.AgentMessage("done")
			ft.Complete(codex.TurnCompleted, nil)
		default:
			ft.Exec("go vet ./...", 0, "")
			ft.Notify(codex.NotifyTurnDiffUpdated, map[string]any{"diff": "--- a/calc.go\n+++ b/calc.go\n"})
			ft.AgentMessage("done")
			ft.Complete(codex.TurnCompleted, nil)
		}
	})
	f.ask(ctx, map[string]any{"prompt": "light"})
	f.awaitEndN(ctx, 1)
	if s := <-turns; s.review {
		t.Fatal("the first turn was a review")
	}
	// The server decides after the turn's end: wait for the decision, not for the next prompt to
	// race a review that should not start.
	select {
	case <-noReview:
	case <-turns:
		t.Fatal("a review after a turn with fewer tool calls than review.afterTurn.minToolCalls")
	case <-ctx.Done():
		t.Fatal("no decision about an automatic review after the light turn")
	}
	f.ask(ctx, map[string]any{"prompt": "heavy"})
	<-turns
	if s := <-turns; !s.review {
		t.Fatal("no review after the heavy turn")
	}
	if len(turns) != 0 {
		t.Fatalf("extra turns: %d", len(turns))
	}
	// A prompt now: the review gives way.
	res := f.ask(ctx, map[string]any{"prompt": "light again"})
	if s := <-turns; s.review || res.Steered {
		t.Errorf("the prompt during the automatic review: review %v, steered %v", s.review, res.Steered)
	}
}

// TestAutoReviewOnlyAfterCompletedTurn: a turn with enough tool calls that changed files but did
// not complete (it failed) starts no automatic review.
func TestAutoReviewOnlyAfterCompletedTurn(t *testing.T) {
	noReview := make(chan slog.Record, 10)
	f := startWith(t, lsp.Options{Logger: slog.New(logWatch{"no automatic review", noReview})}, lsptest.VSCode,
		map[string]any{"yolo": true, "review": map[string]any{"afterTurn": map[string]any{"minToolCalls": 2}}})
	ctx := testCtx(t)
	f.file("calc.go", calcSrc)
	reviews := make(chan struct{}, 10)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		if ft.ReviewTarget != nil {
			reviews <- struct{}{}
			ft.Complete(codex.TurnCompleted, nil)
			return
		}
		ft.Exec("go build ./...", 0, "")
		ft.Exec("go test ./...", 0, "")
		ft.Notify(codex.NotifyTurnDiffUpdated, map[string]any{"diff": "--- a/calc.go\n+++ b/calc.go\n"})
		ft.Complete(codex.TurnFailed, &codex.TurnError{Message: "the stream broke"})
	})
	f.ask(ctx, map[string]any{"prompt": "heavy"})
	select {
	case r := <-noReview:
		var completed bool
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "completed" {
				completed = a.Value.Bool()
			}
			return true
		})
		if completed {
			t.Errorf("the failed turn was taken as completed")
		}
	case <-reviews:
		t.Fatal("a review after a turn that did not complete")
	case <-ctx.Done():
		t.Fatal("no decision about an automatic review after the failed turn")
	}
}

// logWatch is a slog.Handler that passes on the records whose message is msg to c, dropping them
// when c is full (a log call must never wait for the test).
type logWatch struct {
	msg string
	c   chan slog.Record
}

func (w logWatch) Enabled(context.Context, slog.Level) bool { return true }

func (w logWatch) Handle(_ context.Context, r slog.Record) error {
	if r.Message == w.msg {
		select {
		case w.c <- r.Clone():
		default:
		}
	}
	return nil
}

func (w logWatch) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w logWatch) WithGroup(string) slog.Handler      { return w }

// codeActionsOn asks for the code actions on line of path.
func codeActionsOn(t *testing.T, f *fixture, path string, line uint32) []protocol.CodeAction {
	t.Helper()
	var actions []protocol.CodeAction
	if err := f.ed.Call(testCtx(t), "textDocument/codeAction", &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
		Range:        protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line, Character: 1}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	return actions
}

// argsOf is a code action's command argument as a map.
func argsOf(t *testing.T, a protocol.CodeAction) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(a.Command.Arguments[0])
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
