package main

import (
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
)

// TestAgentFromFlags: the flags, else HERMES_AGENT_KIND and HERMES_AGENT_COMMAND, name the agent; a
// kind hermes-lsp does not know, an ACP agent without a program, or a program without a kind are
// refused.
func TestAgentFromFlags(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if a, err := agentFromFlags("", "", nil, getenv); err != nil || a.Kind != "" {
		t.Errorf("nothing named: %+v, %v", a, err)
	}
	a, err := agentFromFlags("acp", "gemini", []string{"--acp"}, getenv)
	if err != nil || a.Kind != agenthost.AgentACP || a.Command != "gemini" || len(a.Args) != 1 {
		t.Errorf("the flags: %+v, %v", a, err)
	}
	env["HERMES_AGENT_KIND"], env["HERMES_AGENT_COMMAND"] = "acp", "claude-agent-acp"
	if a, err := agentFromFlags("", "", nil, getenv); err != nil || a.Command != "claude-agent-acp" {
		t.Errorf("the environment: %+v, %v", a, err)
	}
	if a, _ := agentFromFlags("", "gemini", nil, getenv); a.Command != "gemini" {
		t.Errorf("the flag before the environment: %+v", a)
	}
	for _, tt := range []struct {
		kind, command string
		want          string
	}{
		{"claude", "x", `agent.kind "claude"`},
		{"acp", "", "needs agent.command"},
	} {
		if _, err := agentFromFlags(tt.kind, tt.command, nil, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q %q: %v, want %q", tt.kind, tt.command, err, tt.want)
		}
	}
	if _, err := agentFromFlags("", "gemini", nil, func(string) string { return "" }); err == nil {
		t.Error("a program without a kind was taken")
	}
}
