package lsp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// lesserAgent is an agent of another kind (the fake codex under another name) that supports its
// threads and nothing else of what codex does.
type lesserAgent struct {
	agenthost.Agent
}

func (lesserAgent) Info() agenthost.AgentInfo {
	return agenthost.AgentInfo{Kind: agenthost.AgentACP, Name: "lesser", Version: "0.1.0", Supports: agenthost.Capabilities{ListThreads: true}}
}

// TestCommandsOfFeaturesTheAgentLacks: with an ACP agent that cannot compact, list models or sign
// in, those commands are refused at once with what to do instead; hermes.status names the agent and
// what it lacks; a turn runs.
func TestCommandsOfFeaturesTheAgentLacks(t *testing.T) {
	var f *fixture
	opts := lsp.Options{StartAgent: func(ctx context.Context, a agenthost.AgentConfig, o codex.Options) (agenthost.Agent, error) {
		client, err := f.fake.Start(ctx, o)
		if err != nil {
			return nil, err
		}
		return lesserAgent{agenthost.CodexAgent(client)}, nil
	}}
	f = startWith(t, opts, lsptest.VSCode, map[string]any{"yolo": true, "agent": map[string]any{"kind": "acp", "command": "/opt/lesser"}})
	ctx := testCtx(t)
	for _, tt := range []struct{ command, want string }{
		{hermesproto.CmdCompact, "the ACP agent lesser cannot compact its conversation: Hermes: New Thread starts afresh"},
		{hermesproto.CmdModels, "does not list its models"},
		{hermesproto.CmdLogin, "signs in its own way"},
	} {
		_, err := f.ed.ExecuteCommand(ctx, tt.command, map[string]any{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error saying %q", tt.command, err, tt.want)
		}
	}
	var st hermesproto.Status
	command(t, f, hermesproto.CmdStatus, nil, &st)
	if st.Agent == nil || st.Agent.Kind != "acp" || st.Agent.Name != "lesser" || st.Agent.Version != "0.1.0" ||
		!strings.Contains(strings.Join(st.Agent.Lacks, ","), "compact") || strings.Join(st.Agent.Supports, ",") != "threads" {
		t.Errorf("hermes.status's agent: %+v", st.Agent)
	}
	f.ask(ctx, map[string]any{"prompt": "hello"})
	f.awaitEnd(ctx)
}
