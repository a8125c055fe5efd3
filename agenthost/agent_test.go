package agenthost_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
)

// otherAgent is an agent of another kind than codex: codex's fake under another name, with fewer
// capabilities.
type otherAgent struct {
	agenthost.Agent
}

func (otherAgent) Info() agenthost.AgentInfo {
	return agenthost.AgentInfo{Kind: agenthost.AgentACP, Name: "other", Version: "1.2.3", Supports: agenthost.Capabilities{Steer: false}}
}

// TestAnotherAgent: agent.kind acp starts the agent through StartAgent with its program, arguments
// and environment (codex's own start is not used), turns run on it, and AgentInfo says what it is.
func TestAnotherAgent(t *testing.T) {
	var got agenthost.AgentConfig
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Agent = agenthost.AgentConfig{Kind: agenthost.AgentACP, Command: "/opt/agent", Args: []string{"--acp"}, Env: map[string]string{"A": "1"}}
		startCodex := c.StartCodex
		c.StartCodex = func(context.Context, codex.Options) (*codex.Client, error) {
			t.Error("codex started for an ACP agent")
			return nil, context.Canceled
		}
		c.StartAgent = func(ctx context.Context, a agenthost.AgentConfig, opts codex.Options) (agenthost.Agent, error) {
			got = a
			client, err := startCodex(ctx, opts)
			if err != nil {
				return nil, err
			}
			return otherAgent{agenthost.CodexAgent(client)}, nil
		}
	})
	if info := fh.AgentInfo(); info.Kind != agenthost.AgentACP || info.Name != "/opt/agent" || !info.Unknown {
		t.Errorf("AgentInfo before the agent started: %+v", info)
	}
	res, _ := run(t, fh.session(t), "hello")
	if !res.Completed {
		t.Fatalf("the turn on the other agent: %+v", res)
	}
	if got.Command != "/opt/agent" || len(got.Args) != 1 || got.Args[0] != "--acp" || got.Env["A"] != "1" {
		t.Errorf("StartAgent got %+v", got)
	}
	if info := fh.AgentInfo(); info.Kind != agenthost.AgentACP || info.Name != "other" || info.Version != "1.2.3" || info.Unknown {
		t.Errorf("AgentInfo once started: %+v", info)
	}
}

// TestAgentConfigChecked: an agent kind the host does not know, an ACP agent without a program, and
// a program for codex (whose program is codex.path) are refused.
func TestAgentConfigChecked(t *testing.T) {
	for _, tt := range []struct {
		agent agenthost.AgentConfig
		want  string
	}{
		{agenthost.AgentConfig{Kind: "claude"}, `agent.kind "claude"`},
		{agenthost.AgentConfig{Kind: agenthost.AgentACP}, "needs agent.command"},
		{agenthost.AgentConfig{Kind: agenthost.AgentCodex, Command: "x"}, "codex is run from codex.path"},
	} {
		err := agenthost.Validate(agenthost.Config{Agent: tt.agent})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error saying %q", tt.agent, err, tt.want)
		}
	}
	if err := agenthost.Validate(agenthost.Config{Agent: agenthost.AgentConfig{Kind: agenthost.AgentACP, Command: "gemini"}}); err != nil {
		t.Errorf("an ACP agent with a program: %v", err)
	}
}
