package lsp_test

// Review findings are the model's text: their lines, titles, bodies and the number of them on a
// file are bounded, and what is shown is free of control characters.

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestReviewFindingsBounded: a finding on line 99999999999 lands on the file's last line; a title
// is cut to 200 characters and a body to 8 KiB with "…", both without escape sequences or control
// characters (newlines kept in the body); a path shown in the message is cleaned too; findings past
// 50 on one file are left out and the message says how many, the other file's still published.
func TestReviewFindingsBounded(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	calc := f.file("calc.go", calcSrc)
	other := f.file("other.go", "package calc\n\nvar x = 1\n")
	findings := []string{
		"[P1] Far away|" + calc + "|99999999999|99999999999|past the end",
		"[P2] Red\x1b[31m " + strings.Repeat("é", 300) + "|" + calc + "|2|2|a \x1b]8;;https://evil.example\x07link\x1b]8;;\x07, NUL\x00 CR\r DEL\x7f" + strings.Repeat("x", 20000),
		"Elsewhere|/outside/\x1b]0;pwned\x07x.go|3|3|not ours",
	}
	for i := range 58 {
		findings = append(findings, fmt.Sprintf("Nit %d|%s|%d|%d|nit", i, calc, i%9+1, i%9+1))
	}
	findings = append(findings, "[P3] Unused|"+other+"|3|3|x is unused")
	onReview(f, rendered("Many things\x1b[2J.", findings...))
	command(t, f, hermesproto.CmdReview, map[string]any{}, nil)
	if err := f.ed.Await(ctx, lsptest.AllOf(diagnosticsFor(calc, 50), diagnosticsFor(other, 1), lsptest.MessageContaining("Hermes review of"))); err != nil {
		t.Fatal(err)
	}
	diags, _ := publishedFor(f.ed.State(), calc)
	far := diags[0]
	if far.Range.Start.Line != 8 || far.Range.End.Line != 8 || far.Range.End.Character != 1 {
		t.Errorf("the finding on line 99999999999: %+v, want the last line (8, \"}\")", far.Range)
	}
	title, body, _ := strings.Cut(diags[1].Message, "\n\n")
	if n := utf8.RuneCountInString(title); n != 200 || !strings.HasPrefix(title, "Red éé") || !strings.HasSuffix(title, "…") {
		t.Errorf("title of %d characters: %q", n, title)
	}
	if len(body) > 8<<10 || !strings.HasPrefix(body, "a link, NUL CR DELxxx") || !strings.HasSuffix(body, "…") {
		t.Errorf("body of %d bytes: %.60q…", len(body), body)
	}
	msgs := f.ed.Messages()
	msg := msgs[len(msgs)-1].Message
	for _, want := range []string{
		"51 findings (P1 1, P2 1, P3 1, unranked 48)",
		"1 finding(s) outside the folder: Elsewhere (/outside/x.go:3)",
		"10 more findings on calc.go left out (at most 50 on a file)",
		"Many things.",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q: %q", want, msg)
		}
	}
	for _, text := range append([]string{msg}, diagMessages(diags)...) {
		if i := strings.IndexFunc(text, isControl); i >= 0 {
			t.Errorf("a control character %U shown: %q", text[i], text)
		}
	}
}

// isControl reports the control characters nothing shown may hold: C0 but newline and tab, DEL,
// C1.
func isControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f
}

func diagMessages(diags []protocol.Diagnostic) []string {
	out := make([]string, len(diags))
	for i, d := range diags {
		out[i] = d.Message
	}
	return out
}
