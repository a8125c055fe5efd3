package lsp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// markdownAnswer is an answer whose markdown, flattened by an editor that shows plain text, read
// "…6.```gofor i := 1…".
const markdownAnswer = "## Fixed\n\n1. The loop stops one short:\n\n```go\nfor i := 1; i <= n; i++ {\n}\n```\n\n- **Sum** now counts `n` too."

// TestPlainMessages: to an editor that shows messages as plain text on one line (Helix), the answer
// is a one-line summary without markdown that says where the whole answer is; a review counts its
// findings as diagnostics; the commands a person runs by hand to read (hermes.status,
// hermes.threads, hermes.models) say their answer, by the thread's title; a command's error
// reaches the person, not only the log. VS Code, which shows them itself, gets no such messages.
func TestPlainMessages(t *testing.T) {
	for _, p := range []lsptest.Profile{lsptest.Helix2501, lsptest.VSCode} {
		t.Run(p.Name, func(t *testing.T) {
			plain := p.Name != "VSCode"
			f := start(t, p, map[string]any{"yolo": true})
			ctx := testCtx(t)
			calc := f.file("calc.go", calcSrc)
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				if ft.ReviewTarget != nil {
					ft.ExitReview(rendered("The loop is off by one.", "[P1] Off by one|"+calc+"|5|5|skips n"))
				} else {
					ft.AgentMessage(markdownAnswer)
				}
				ft.Complete(codex.TurnCompleted, nil)
			})
			f.ask(ctx, map[string]any{"prompt": "Fix the loop\nplease", "uri": string(uri.File(calc)),
				"range": protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 4}}})
			f.awaitEnd(ctx)
			answer := lastMessage(f, "Hermes (")
			if plain != (!strings.Contains(answer, "\n") && !strings.Contains(answer, "```") && !strings.Contains(answer, "**")) {
				t.Errorf("the answer's message (plain %v):\n%s", plain, answer)
			}
			if plain && !strings.HasPrefix(answer, "Hermes ("+filepath.Base(f.folder)+"): Fixed 1. The loop stops one short: (code) Sum now counts n too. · the whole answer: hover line 5 of calc.go") {
				t.Errorf("the answer's one line: %q", answer)
			}

			command(t, f, hermesproto.CmdReview, map[string]any{}, nil)
			if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes review of")); err != nil {
				t.Fatal(err)
			}
			review := lastMessage(f, "Hermes review of")
			if strings.Contains(review, "problems list") || !strings.Contains(review, "1 finding (P1 1), as diagnostics.") || plain == strings.Contains(review, "\n") {
				t.Errorf("the review's message: %q", review)
			}

			before := len(f.ed.State().ShowMessages)
			command(t, f, hermesproto.CmdStatus, nil, nil)
			command(t, f, hermesproto.CmdThreads, nil, nil)
			command(t, f, hermesproto.CmdModels, nil, nil)
			_, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdResumeThread, nil)
			if err == nil {
				t.Fatal("hermes.resumeThread without a thread did not fail")
			}
			var said []string
			if plain {
				if err := f.ed.Await(ctx, func(s *lsptest.State) bool { return len(s.ShowMessages) >= before+4 }); err != nil {
					t.Fatal(err)
				}
			}
			for _, m := range f.ed.State().ShowMessages[before:] {
				said = append(said, m.Message)
			}
			if !plain {
				if len(said) != 0 {
					t.Errorf("VS Code was told what it shows itself: %q", said)
				}
				return
			}
			want := []string{
				"Hermes · " + filepath.Base(f.folder) + `: "Fix the loop" (just now)`,
				`Hermes: 2 thread(s): review "Code review" (just now); "Fix the loop" (just now) current`,
				"Hermes: models: " + codextest.FakeModel + " (current), gpt-5.5-mini",
				"Hermes: hermes.resumeThread: hermes.resumeThread needs a threadId",
			}
			for i, w := range want {
				if !strings.HasPrefix(said[i], w) {
					t.Errorf("message %d: %q, want it to start with %q", i, said[i], w)
				}
			}
		})
	}
}

// lastMessage is the last window/showMessage starting with prefix.
func lastMessage(f *fixture, prefix string) string {
	msgs := f.ed.State().ShowMessages
	for i := len(msgs) - 1; i >= 0; i-- {
		if strings.HasPrefix(msgs[i].Message, prefix) {
			return msgs[i].Message
		}
	}
	return ""
}
