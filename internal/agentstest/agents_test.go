//go:build agents

package agentstest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/internal/agentstest"
)

// The two turns every agent plays: a plain answer, then an edit of README.md and its answer.
var (
	hello = agentstest.Turn{Prompt: "Say hello.", Answer: "Hello from the fake model."}
	edit  = agentstest.Turn{
		Prompt: "Add a line saying hello to README.md.",
		Edit:   &agentstest.Edit{Path: "README.md", Old: "# project", New: "# project\nhello"},
		Answer: "I added hello to README.md.",
	}
)

// TestAgents runs each real agent offline, end to end, over raw ACP: initialize, session/new in
// the workspace folder, one prompt answered by the fake model, one in which the agent edits a file
// (asking permission, answered allow_once), each ending with stopReason end_turn; then the end of
// its input ends it. It logs what the agent advertises. `make test-agents` runs it
// (`-run TestAgents/gemini` for one agent).
func TestAgents(t *testing.T) {
	for _, name := range agentstest.Names {
		t.Run(name, func(t *testing.T) { smoke(t, name) })
	}
}

func smoke(t *testing.T, name string) {
	a := agentstest.New(t, name, hello, edit)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	c := start(t, a)

	var init struct {
		ProtocolVersion int `json:"protocolVersion"`
		AgentInfo       struct {
			Name, Version string
		} `json:"agentInfo"`
		AgentCapabilities struct {
			LoadSession         bool                       `json:"loadSession"`
			PromptCapabilities  map[string]bool            `json:"promptCapabilities"`
			SessionCapabilities map[string]json.RawMessage `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
		AuthMethods []struct {
			ID string `json:"id"`
		} `json:"authMethods"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := c.call(ctx, "initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": false},
		"clientInfo":         map[string]any{"name": "hermes-agentstest", "version": "0"},
	}, &init); err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != 1 {
		t.Errorf("initialize: protocolVersion %d, want 1", init.ProtocolVersion)
	}
	var auth []string
	for _, m := range init.AuthMethods {
		auth = append(auth, m.ID)
	}
	t.Logf("%s %s (started and initialized in %v): loadSession %v, promptCapabilities %v, sessionCapabilities %v, authMethods %v, _meta %v",
		init.AgentInfo.Name, init.AgentInfo.Version, time.Since(began).Round(time.Millisecond),
		init.AgentCapabilities.LoadSession, trueKeys(init.AgentCapabilities.PromptCapabilities),
		keys(init.AgentCapabilities.SessionCapabilities), auth, keys(init.Meta))

	var session struct {
		SessionID string `json:"sessionId"`
		Modes     *struct {
			Current   string `json:"currentModeId"`
			Available []struct {
				ID string `json:"id"`
			} `json:"availableModes"`
		} `json:"modes"`
		Models *struct {
			Current   string `json:"currentModelId"`
			Available []struct {
				ID string `json:"modelId"`
			} `json:"availableModels"`
		} `json:"models"`
		ConfigOptions []struct {
			ID string `json:"id"`
		} `json:"configOptions"`
	}
	if err := c.call(ctx, "session/new", map[string]any{"cwd": a.Work, "mcpServers": []any{}}, &session); err != nil {
		t.Fatal(err)
	}
	if session.SessionID == "" {
		t.Fatal("session/new: no sessionId")
	}
	var modes, models, options []string
	if session.Modes != nil {
		for _, m := range session.Modes.Available {
			modes = append(modes, m.ID)
		}
		t.Logf("modes: current %q of %v", session.Modes.Current, modes)
	}
	if session.Models != nil {
		for _, m := range session.Models.Available {
			models = append(models, m.ID)
		}
		t.Logf("models: current %q of %d: %v", session.Models.Current, len(models), models)
	}
	for _, o := range session.ConfigOptions {
		options = append(options, o.ID)
	}
	if len(options) > 0 {
		t.Logf("configOptions: %v", options)
	}
	if a.AskMode != "" {
		if !slices.Contains(modes, a.AskMode) {
			t.Fatalf("session/new: no mode %q among %v", a.AskMode, modes)
		}
		if err := c.call(ctx, "session/set_mode", map[string]any{"sessionId": session.SessionID, "modeId": a.AskMode}, nil); err != nil {
			t.Fatal(err)
		}
	}

	from := c.mark()
	stop, answer, err := c.prompt(ctx, session.SessionID, hello.Prompt)
	if err != nil {
		t.Fatal(err)
	}
	if stop != "end_turn" || !strings.Contains(answer, hello.Answer) {
		t.Errorf("first prompt: stopReason %q, answer %q; want end_turn and %q", stop, answer, hello.Answer)
	}
	t.Logf("first prompt: %q, updates %v", answer, c.kinds(from))

	from = c.mark()
	stop, answer, err = c.prompt(ctx, session.SessionID, edit.Prompt)
	if err != nil {
		t.Fatal(err)
	}
	if stop != "end_turn" || !strings.Contains(answer, edit.Answer) {
		t.Errorf("second prompt: stopReason %q, answer %q; want end_turn and %q", stop, answer, edit.Answer)
	}
	t.Logf("second prompt: %q, updates %v", answer, c.kinds(from))
	readme, err := os.ReadFile(filepath.Join(a.Work, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(readme), "# project\nhello\n"; got != want {
		t.Errorf("README.md after the edit: %q, want %q", got, want)
	}
	c.mu.Lock()
	permissions, reads, writes := len(c.permissions), c.reads, c.writes
	c.mu.Unlock()
	if permissions != 1 {
		t.Errorf("the edit asked permission %d times, want once", permissions)
	}
	t.Logf("the edit: %d permission request(s), fs/read_text_file %v, fs/write_text_file %v", permissions, reads, writes)
	t.Logf("%s ran both turns in %v", name, time.Since(began).Round(time.Millisecond))
}

// keys returns the keys of m, sorted.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// trueKeys returns the keys of m whose value is true, sorted.
func trueKeys(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
