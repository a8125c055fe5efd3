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

// TestFallbackChainInTheEditor: fallbackProviders from initializationOptions are a chain: the
// primary and the first fallback out of quota, the second answers. The progress's end and
// hermes.status name the provider that answered, and the turn events say where the turn went.
func TestFallbackChainInTheEditor(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"fallbackProviders": []map[string]any{
		{"name": "one", "kind": "responses", "baseUrl": "http://127.0.0.1:9/v1", "model": "one-model"},
		{"name": "two", "kind": "responses", "baseUrl": "http://127.0.0.1:9/v1", "model": "two-model"},
	}})
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		th := f.fake.Threads()[ft.ThreadID]
		provider := th.Start.ModelProvider
		if n := len(th.Resumes); n > 0 {
			provider = th.Resumes[n-1].ModelProvider
		}
		if provider != "hermes-fallback-two" {
			ft.Complete(codex.TurnFailed, &codex.TurnError{Message: "You've hit your usage limit."})
			return
		}
		ft.AgentMessage("two answered")
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "hello"})
	f.awaitEnd(ctx)

	events := progressOf(f.ed)
	if len(events) == 0 || !strings.Contains(events[len(events)-1].Message, "completed") || !strings.HasSuffix(events[len(events)-1].Message, "· fallback two") {
		t.Errorf("progress end: %+v", events)
	}
	var fallbacks []string
	for _, raw := range f.ed.Notifications(hermesproto.MethodTurnEvent) {
		var p hermesproto.TurnEventParams
		_ = json.Unmarshal(raw, &p)
		if p.Event.Kind == hermesproto.EventKindFallback {
			fallbacks = append(fallbacks, p.Event.Text)
		}
	}
	if len(fallbacks) != 2 || !strings.Contains(fallbacks[0], "fallback provider one") || !strings.Contains(fallbacks[1], "fallback provider two") {
		t.Errorf("fallback events: %q", fallbacks)
	}

	raw, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st hermesproto.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Folders) != 1 || st.Folders[0].Fallback != "two" {
		t.Errorf("status: %s", raw)
	}
	if !strings.Contains(string(raw), `"ineffectiveCompactions":0`) {
		t.Errorf("status lacks ineffectiveCompactions: %s", raw)
	}
}
