package acp_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
)

// TestInitialize: the client says it speaks v1 and offers the file system (with a Handler) and no
// terminal; it reads what the agent advertises.
func TestInitialize(t *testing.T) {
	cfg := acptest.Config{
		Name: "scripted", Version: "9.9.9", LoadSession: true, List: true, Resume: true,
		AuthMethods: []acp.AuthMethod{{AuthMethodAgent: &acp.AuthMethodAgent{ID: "login", Name: "Log in"}}},
	}
	agent, client := connect(t, cfg, &recorder{})

	info := client.Info()
	caps := info.AgentCapabilities
	if info.AgentInfo == nil || info.AgentInfo.Name != "scripted" || info.AgentInfo.Version != "9.9.9" {
		t.Errorf("agentInfo %+v", info.AgentInfo)
	}
	if !caps.LoadSession || caps.SessionCapabilities.List == nil || caps.SessionCapabilities.Resume == nil || caps.SessionCapabilities.Close != nil {
		t.Errorf("capabilities %+v", caps)
	}
	if !caps.PromptCapabilities.EmbeddedContext || caps.PromptCapabilities.Image {
		t.Errorf("prompt capabilities %+v", caps.PromptCapabilities)
	}
	if len(info.AuthMethods) != 1 || info.AuthMethods[0].AuthMethodAgent == nil || info.AuthMethods[0].AuthMethodAgent.ID != "login" {
		t.Errorf("auth methods %+v", info.AuthMethods)
	}

	init := agent.Received()[0]
	var sent map[string]any
	if err := json.Unmarshal(init.Params, &sent); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"protocolVersion":    float64(1),
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}},
		"clientInfo":         map[string]any{"name": "hermes-lsp", "title": "hermes-lsp", "version": "dev"},
	}
	if init.Method != acp.MethodInitialize || !jsonEqual(sent, want) {
		t.Errorf("sent %s %s, want %v", init.Method, init.Params, want)
	}
}

// TestInitializeWithoutHandler: with no Handler the client offers no file system.
func TestInitializeWithoutHandler(t *testing.T) {
	agent, _ := connect(t, acptest.Config{}, nil)
	if params := string(agent.Received()[0].Params); strings.Contains(params, "TextFile") {
		t.Errorf("initialize offers the file system with no Handler: %s", params)
	}
}

// TestInitializeRefusesAnotherVersion: an agent that answers with another protocol version is
// refused, as the protocol says.
func TestInitializeRefusesAnotherVersion(t *testing.T) {
	agent := acptest.NewAgent(t, acptest.Config{ProtocolVersion: 2})
	_, err := agent.Connect(testContext(t), acp.Options{Name: "future-agent"})
	if err == nil || !strings.Contains(err.Error(), "future-agent speaks ACP version 2; this client speaks version 1 only") {
		t.Fatalf("got %v", err)
	}
}

// TestAuthenticate: an agent that wants a sign-in refuses sessions with "authentication required"
// until the client authenticates with a method it offered.
func TestAuthenticate(t *testing.T) {
	cfg := acptest.Config{RequireAuth: true, AuthMethods: []acp.AuthMethod{{AuthMethodAgent: &acp.AuthMethodAgent{ID: "api-key", Name: "API key"}}}}
	_, client := connect(t, cfg, &recorder{})
	ctx := testContext(t)
	_, err := client.NewSession(ctx, t.TempDir(), nil)
	var rpcErr *acp.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != acp.ErrorCodeAuthenticationRequired || !strings.Contains(err.Error(), "fake-agent error -32000") {
		t.Fatalf("session/new before authenticate: %v", err)
	}
	if err := client.Authenticate(ctx, "nope"); err == nil {
		t.Error("authenticate with an unknown method succeeded")
	}
	if err := client.Authenticate(ctx, "api-key"); err != nil {
		t.Fatal(err)
	}
	newSession(t, client)
}

// TestSessions: sessions are made, listed a page at a time (most recent first), loaded (the agent
// replays them: every update has reached the Handler when LoadSession returns) and resumed.
func TestSessions(t *testing.T) {
	rec := &recorder{}
	cfg := acptest.Config{LoadSession: true, List: true, Resume: true, PageSize: 2}
	agent, client := connect(t, cfg, rec)
	ctx := testContext(t)
	cwd := t.TempDir()
	old := agent.AddSession(cwd, "from yesterday",
		acp.SessionUpdate{Kind: acp.SessionUpdateKindUserMessageChunk, ContentChunk: &acp.ContentChunk{Content: acp.TextBlock("hi")}},
		acp.SessionUpdate{Kind: acp.SessionUpdateKindAgentMessageChunk, ContentChunk: &acp.ContentChunk{Content: acp.TextBlock("hello")}},
		acp.SessionUpdate{Kind: acp.SessionUpdateKindPlan, Plan: &acp.Plan{Entries: []acp.PlanEntry{{Content: "step", Status: acp.PlanEntryStatusPending, Priority: acp.PlanEntryPriorityLow}}}},
	)
	agent.AddSession(t.TempDir(), "elsewhere")
	var made []string
	for range 2 {
		res, err := client.NewSession(ctx, cwd, []acp.MCPServer{{MCPServerStdio: &acp.MCPServerStdio{Name: "tools", Command: "/bin/tools", Args: []string{}, Env: []acp.EnvVariable{}}}})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, res.SessionID)
	}
	if got := agent.Sessions()[made[0]].MCPServers; len(got) != 1 || got[0].MCPServerStdio == nil || got[0].MCPServerStdio.Command != "/bin/tools" {
		t.Errorf("the agent got MCP servers %+v", got)
	}

	var listed []string
	cursor := ""
	for pages := 0; ; pages++ {
		page, err := client.ListSessions(ctx, cwd, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page.Sessions {
			listed = append(listed, s.SessionID+" "+s.Title)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
		if pages > 3 {
			t.Fatal("session/list never ends")
		}
	}
	if want := []string{made[1] + " ", made[0] + " ", old + " from yesterday"}; !slices.Equal(listed, want) {
		t.Errorf("listed %q, want %q", listed, want)
	}

	if _, err := client.LoadSession(ctx, old, cwd, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.kinds(), []string{"user_message_chunk", "agent_message_chunk", "plan"}; !slices.Equal(got, want) {
		t.Errorf("load replayed %q, want %q", got, want)
	}
	if p := rec.received()[2].Update.Plan; p == nil || len(p.Entries) != 1 || p.Entries[0].Content != "step" {
		t.Errorf("the plan replayed: %+v", p)
	}
	if _, err := client.ResumeSession(ctx, made[0], cwd, nil); err != nil {
		t.Fatal(err)
	}
	if s := agent.Sessions()[made[0]]; s.Resumes != 1 || len(rec.kinds()) != 3 {
		t.Errorf("resume: %d resumes, %d updates (it replays nothing)", s.Resumes, len(rec.kinds()))
	}
	if _, err := client.LoadSession(ctx, "sess-unknown", cwd, nil); err == nil || !strings.Contains(err.Error(), "Resource not found") {
		t.Errorf("load of an unknown session: %v", err)
	}
}

// TestUnadvertisedMethods: what the agent does not advertise fails at once, as unsupported.
func TestUnadvertisedMethods(t *testing.T) {
	agent, client := connect(t, acptest.Config{}, &recorder{})
	ctx := testContext(t)
	for name, call := range map[string]func() error{
		"session/load":   func() error { _, err := client.LoadSession(ctx, "s", "/", nil); return err },
		"session/resume": func() error { _, err := client.ResumeSession(ctx, "s", "/", nil); return err },
		"session/list":   func() error { _, err := client.ListSessions(ctx, "", ""); return err },
		"session/close":  func() error { return client.CloseSession(ctx, "s") },
	} {
		if err := call(); !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), name+": fake-agent does not advertise it") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := len(agent.Received()); n != 1 {
		t.Errorf("the agent got %d messages, want only initialize", n)
	}
}

// TestModeAndConfigOption: set_mode and set_config_option reach the agent as the protocol has them.
func TestModeAndConfigOption(t *testing.T) {
	agent, client := connect(t, acptest.Config{}, &recorder{})
	ctx := testContext(t)
	session := newSession(t, client)
	if err := client.SetMode(ctx, session, "plan"); err != nil {
		t.Fatal(err)
	}
	if _, err := client.SetConfigOption(ctx, session, "model", "gpt-5.5"); err != nil {
		t.Fatal(err)
	}
	got := agent.Received()
	mode, option := got[len(got)-2], got[len(got)-1]
	if mode.Method != acp.MethodSessionSetMode || !jsonEqual(decodeMap(t, mode.Params), map[string]any{"sessionId": session, "modeId": "plan"}) {
		t.Errorf("sent %s %s", mode.Method, mode.Params)
	}
	want := map[string]any{"sessionId": session, "configId": "model", "value": "gpt-5.5"}
	if option.Method != acp.MethodSessionSetConfigOption || !jsonEqual(decodeMap(t, option.Params), want) {
		t.Errorf("sent %s %s", option.Method, option.Params)
	}
}

func decodeMap(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// jsonEqual compares two values as JSON.
func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
