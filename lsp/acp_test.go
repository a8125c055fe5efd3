package lsp_test

// Tests of an ACP agent's whole loop through the host and the editor face: the scripted acptest
// agent, connected in process through agenthost/acpagent.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/agenthost/acpagent"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// acpScripts are the ACP agents the tests run as processes of their own (acptest.Command).
var acpScripts = map[string]acptest.Script{
	// readFile answers with the text of the first file its prompt names by its absolute path, as
	// the client gives it.
	"readFile": {OnPrompt: func(t *acptest.Turn) string {
		path := ""
		for _, f := range strings.Fields(t.Text()) {
			if strings.HasPrefix(f, "/") && path == "" {
				path = f
			}
		}
		text, err := t.ReadTextFile(path, 0, 0)
		if err != nil {
			text = "error: " + err.Error()
		}
		t.Message("The file says: " + text)
		return acp.StopReasonEndTurn
	}},
}

// acpOptions are server options that run agent as the ACP agent, in process.
func acpOptions(agent *acptest.Agent) lsp.Options {
	return lsp.Options{StartAgent: func(ctx context.Context, a agenthost.AgentConfig, o codex.Options) (agenthost.Agent, error) {
		return acpagent.Connect(ctx, a, o, acpagent.Editor{}, agent.Connect)
	}}
}

// startACP is start with an ACP agent configured by cfg (settings merged over agent.kind "acp").
func startACP(t *testing.T, cfg acptest.Config, profile lsptest.Profile, settings map[string]any, eopts ...lsptest.Option) (*fixture, *acptest.Agent) {
	t.Helper()
	agent := acptest.NewAgent(t, cfg)
	return startWith(t, acpOptions(agent), profile, acpSettings(settings), eopts...), agent
}

// acpSettings are settings with agent.kind "acp".
func acpSettings(settings map[string]any) map[string]any {
	out := map[string]any{"agent": map[string]any{"kind": "acp", "command": "/opt/bin/fake-acp"}}
	for k, v := range settings {
		out[k] = v
	}
	return out
}

// TestACPAskStreamsTheTurn: an ask runs as the agent's prompt: its answer streams to the editor,
// its tool call is progress and turn events, its plan a plan event, and hermes.status shows the
// context it reported, and the agent with what it lacks.
func TestACPAskStreamsTheTurn(t *testing.T) {
	f, agent := startACP(t, acptest.Config{Name: "gemini", Version: "0.9.1"}, lsptest.VSCode, nil)
	agent.OnPrompt(func(t *acptest.Turn) string {
		t.Thought("Which tests?")
		t.Plan(acp.PlanEntry{Content: "run the tests", Status: acp.PlanEntryStatusInProgress})
		t.ToolCall(acp.ToolCall{ToolCallID: "c1", Kind: acp.ToolKindExecute, Title: "go test", RawInput: json.RawMessage(`{"command":"go test ./..."}`)})
		t.ToolCallUpdate(acp.ToolCallUpdate{ToolCallID: "c1", Status: acp.ToolCallStatusCompleted, Content: []acp.ToolCallContent{{Kind: acp.ToolCallContentKindContent, Content: &acp.Content{Content: acp.TextBlock("ok\n")}}}})
		t.Usage(1200, 200000)
		t.Message("All tests ")
		t.Message("pass.")
		return acp.StopReasonEndTurn
	})
	ctx := testCtx(t)
	res := f.ask(ctx, map[string]any{"prompt": "run the tests please"})
	f.awaitEnd(ctx)
	if res.ThreadID == "" || agent.Sessions()[res.ThreadID].Cwd != f.folder {
		t.Errorf("the turn's thread %q is not the agent's session in %s: %+v", res.ThreadID, f.folder, agent.Sessions())
	}
	msgs := f.ed.Messages()
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Message, "All tests pass.") {
		t.Errorf("final message: %+v", last)
	}
	kinds := map[string]int{}
	var plan []hermesproto.PlanStep
	for _, raw := range f.ed.Notifications(hermesproto.MethodTurnEvent) {
		var p hermesproto.TurnEventParams
		_ = json.Unmarshal(raw, &p)
		kinds[string(p.Event.Kind)]++
		if p.Event.Kind == hermesproto.EventKindPlan {
			plan = p.Event.Plan
		}
		if p.Event.Kind == hermesproto.EventKindToolCompleted && (p.Event.Tool.Name != "exec_command" || p.Event.Tool.Result != "ok\n") {
			t.Errorf("the tool's event: %+v", p.Event.Tool)
		}
	}
	if kinds["toolStarted"] != 1 || kinds["toolCompleted"] != 1 || kinds["answerDelta"] != 2 || kinds["reasoningDelta"] != 1 || kinds["turnCompleted"] != 1 {
		t.Errorf("turn event kinds: %v", kinds)
	}
	if len(plan) != 1 || plan[0].Step != "run the tests" || plan[0].Status != "inProgress" {
		t.Errorf("plan: %+v", plan)
	}
	events := progressOf(f.ed)
	if end := events[len(events)-1]; !strings.HasPrefix(end.Message, "completed · 1 tool call(s)") {
		t.Errorf("the progress ended with %+v", end)
	}
	var st hermesproto.Status
	command(t, f, hermesproto.CmdStatus, nil, &st)
	if len(st.Folders) != 1 || st.Folders[0].Usage.ContextWindow != 200000 || st.Folders[0].Usage.LastPrompt != 1200 || st.Folders[0].ThreadID != res.ThreadID {
		t.Errorf("status: %+v", st.Folders)
	}
	if a := st.Agent; a == nil || a.Kind != "acp" || a.Name != "gemini" || a.Version != "0.9.1" || !strings.Contains(strings.Join(a.Lacks, ","), "compact") {
		t.Errorf("status's agent: %+v", st.Agent)
	}
}

// TestACPPermissionInTheEditor: the agent's permission request is the editor's approval prompt
// (Deny first); each answer picks the agent's option of its kind, and Stop turn cancels the prompt.
func TestACPPermissionInTheEditor(t *testing.T) {
	for _, tt := range []struct{ action, want string }{
		{hermesproto.ApprovalActionAllowOnce, "once"},
		{hermesproto.ApprovalActionAllowSession, "always"},
		{hermesproto.ApprovalActionDeny, "no"},
		{hermesproto.ApprovalActionStop, acp.RequestPermissionOutcomeKindCancelled},
	} {
		t.Run(tt.action, func(t *testing.T) {
			f, agent := startACP(t, acptest.Config{}, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(lsptest.ChooseAction(tt.action)))
			got := make(chan string, 1)
			agent.OnPrompt(func(t *acptest.Turn) string {
				o, err := t.RequestPermission(acp.ToolCallUpdate{ToolCallID: "c1", Kind: acp.ToolKindExecute, Title: "Remove build", RawInput: json.RawMessage(`{"command":"rm -rf build"}`)},
					acp.PermissionOption{OptionID: "once", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
					acp.PermissionOption{OptionID: "always", Name: "Always allow", Kind: acp.PermissionOptionKindAllowAlways},
					acp.PermissionOption{OptionID: "no", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce})
				switch {
				case err != nil:
					got <- "error: " + err.Error()
				case o.SelectedPermissionOutcome != nil:
					got <- o.SelectedPermissionOutcome.OptionID
				default:
					got <- o.Kind
				}
				if t.Cancelled() || (tt.action == hermesproto.ApprovalActionStop && t.WaitCancel()) {
					return acp.StopReasonCancelled
				}
				t.Message("done")
				return acp.StopReasonEndTurn
			})
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "clean"})
			if g := <-got; g != tt.want {
				t.Errorf("the agent got %s, want %s", g, tt.want)
			}
			f.awaitEnd(ctx)
			reqs := f.ed.ShowMessageRequests()
			if len(reqs) != 1 || !strings.Contains(reqs[0].Message, "rm -rf build") {
				t.Fatalf("prompts: %+v", reqs)
			}
			var titles []string
			for _, a := range reqs[0].Actions {
				titles = append(titles, a.Title)
			}
			if strings.Join(titles, ",") != "Deny,Allow once,Allow for session,Stop turn" {
				t.Errorf("actions %v", titles)
			}
			if tt.action == hermesproto.ApprovalActionStop {
				events := progressOf(f.ed)
				if end := events[len(events)-1]; !strings.HasPrefix(end.Message, "interrupted") {
					t.Errorf("Stop turn ended the progress with %+v", end)
				}
			}
		})
	}
}

// TestACPCancel: hermes.cancel cancels the agent's prompt (session/cancel): the turn ends
// interrupted.
func TestACPCancel(t *testing.T) {
	f, agent := startACP(t, acptest.Config{}, lsptest.VSCode, nil)
	agent.OnPrompt(func(t *acptest.Turn) string {
		t.Message("working…")
		t.WaitCancel()
		return t.StopReason(acp.StopReasonEndTurn)
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "loop forever"})
	if _, err := agent.WaitReceived(ctx, acp.MethodSessionPrompt, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdCancel, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	f.awaitEnd(ctx)
	if _, err := agent.WaitReceived(ctx, acp.MethodSessionCancel, 1); err != nil {
		t.Error(err)
	}
	events := progressOf(f.ed)
	if end := events[len(events)-1]; !strings.HasPrefix(end.Message, "interrupted") {
		t.Errorf("end: %+v", end)
	}
}

// TestACPLackedFeaturesRefused: what the agent lacks is refused in words: compaction, steering a
// running turn.
func TestACPLackedFeaturesRefused(t *testing.T) {
	f, agent := startACP(t, acptest.Config{}, lsptest.VSCode, nil)
	ctx := testCtx(t)
	_, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdCompact, map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "the ACP agent acptest cannot compact its conversation: Hermes: New Thread starts afresh") {
		t.Errorf("hermes.compact: %v", err)
	}
	agent.OnPrompt(func(t *acptest.Turn) string {
		t.WaitCancel()
		return t.StopReason(acp.StopReasonEndTurn)
	})
	f.ask(ctx, map[string]any{"prompt": "first"})
	if _, err := agent.WaitReceived(ctx, acp.MethodSessionPrompt, 1); err != nil {
		t.Fatal(err)
	}
	_, err = f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "and also"})
	if err == nil || !strings.Contains(err.Error(), "cannot take input into a running turn") {
		t.Errorf("a second ask while the turn runs: %v", err)
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdCancel, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	f.awaitEnd(ctx)
}

// TestACPReadsTheEditorsBuffer: the server's own wiring (no StartAgent): an ACP agent spawned from
// agent.command reads a file the editor has open as the editor has it, unsaved edits included.
func TestACPReadsTheEditorsBuffer(t *testing.T) {
	command, args, env, err := acptest.Command("readFile")
	if err != nil {
		t.Fatal(err)
	}
	envMap := map[string]any{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	f := start(t, lsptest.VSCode, map[string]any{"agent": map[string]any{"kind": "acp", "command": command, "args": args, "env": envMap}})
	ctx := testCtx(t)
	path := f.file("notes.txt", "on disk\n")
	if err := f.ed.OpenFile(ctx, path, "unsaved in the editor\n"); err != nil {
		t.Fatal(err)
	}
	f.ask(ctx, map[string]any{"prompt": "read " + path})
	f.awaitEnd(ctx)
	msgs := f.ed.Messages()
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Message, "The file says: unsaved in the editor") {
		t.Errorf("final message: %+v", last)
	}
}
