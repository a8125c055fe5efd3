package main

import (
	"fmt"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
)

// stringList is a flag given once per value.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " ") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// agentFromFlags is the agent the command line and the environment name (the flags first): none
// when neither names a kind. A kind hermes-lsp does not know, or an ACP agent without a program,
// is an error.
func agentFromFlags(kind, command string, args []string, getenv func(string) string) (agenthost.AgentConfig, error) {
	if kind == "" {
		kind = getenv("HERMES_AGENT_KIND")
	}
	if command == "" {
		command = getenv("HERMES_AGENT_COMMAND")
	}
	if kind == "" {
		if command != "" || len(args) > 0 {
			return agenthost.AgentConfig{}, fmt.Errorf("--agent-command and --agent-arg need --agent acp (or HERMES_AGENT_KIND=acp)")
		}
		return agenthost.AgentConfig{}, nil
	}
	a := agenthost.AgentConfig{Kind: agenthost.AgentKind(kind), Command: command, Args: args}
	if err := agenthost.Validate(agenthost.Config{Agent: a}); err != nil {
		return agenthost.AgentConfig{}, err
	}
	return a, nil
}
