package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestCodexReleaseOutsideRangeToldOnce: a codex newer than the tested release runs turns; the user
// is told once per server, in one line, which release it is, the supported range and what to do,
// however often codex starts again; hermes.status names the release, the range and the warning. A
// codex in the range is no news.
func TestCodexReleaseOutsideRangeToldOnce(t *testing.T) {
	for _, profile := range []lsptest.Profile{lsptest.VSCode, lsptest.Helix2501} {
		t.Run(profile.Name, func(t *testing.T) {
			f := start(t, profile, nil)
			f.fake.SetVersion("0.172.0")
			// The first turn fails for authentication: codex is retired at its end, and starts
			// again for the next turn, which is no news.
			unauthorized := &codex.TurnError{Message: "401 Unauthorized", CodexErrorInfo: codex.CodexErrorInfo{Raw: json.RawMessage(`"unauthorized"`)}}
			f.fake.OnTurn(func(ft *codextest.FakeTurn) { ft.Complete(codex.TurnFailed, unauthorized) })
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "hello"})
			f.awaitEnd(ctx)
			f.fake.OnTurn(nil)
			f.ask(ctx, map[string]any{"prompt": "again"})
			if err := f.ed.Await(ctx, lsptest.Announced(2)); err != nil {
				t.Fatalf("the second turn did not end: %v", err)
			}
			if n := len(f.fake.Starts()); n != 2 {
				t.Fatalf("codex started %d times, want 2", n)
			}
			var told []string
			for _, m := range f.ed.Messages() {
				if strings.Contains(m.Message, "0.172.0") {
					told = append(told, m.Message)
				}
			}
			if len(told) != 1 {
				t.Fatalf("told %d times about codex 0.172.0: %q", len(told), told)
			}
			for _, want := range []string{"codex 0.172.0 is newer than " + codex.TestedVersion, codex.SupportedRange(),
				"npm install -g " + codex.NpmPackage + "@" + codex.TestedVersion, "hermes.codex.path"} {
				if !strings.Contains(told[0], want) || strings.Contains(told[0], "\n") {
					t.Errorf("message %q: want %q, on one line", told[0], want)
				}
			}
			st := serverStatus(t, f)
			if c := st.Codex; c == nil || c.Version != "0.172.0" || c.MinVersion != codex.MinVersion || c.TestedVersion != codex.TestedVersion ||
				!strings.Contains(c.Warning, "hermes.codex.path") {
				t.Errorf("hermes.status codex: %+v", c)
			}
		})
	}
	t.Run("in the range", func(t *testing.T) {
		f := start(t, lsptest.VSCode, nil)
		f.fake.SetVersion("0.167.2")
		ctx := testCtx(t)
		f.ask(ctx, map[string]any{"prompt": "hello"})
		f.awaitEnd(ctx)
		for _, m := range f.ed.Messages() {
			if strings.Contains(m.Message, "0.167.2") {
				t.Errorf("told about a codex in the range: %q", m.Message)
			}
		}
		c := serverStatus(t, f).Codex
		if c == nil || c.Version != "0.167.2" || c.Warning != "" || len(c.KnownProblems) != 3 {
			t.Errorf("hermes.status codex: %+v", c)
		}
	})
}

func serverStatus(t *testing.T, f *fixture) hermesproto.Status {
	t.Helper()
	raw, err := f.ed.ExecuteCommand(testCtx(t), hermesproto.CmdStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st hermesproto.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	return st
}
