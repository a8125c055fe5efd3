package agenthost

import (
	"fmt"
	"maps"
	"slices"
)

// AgentConfig says which agent runs the turns. Its settings can run a program: they come only from
// trusted sources (the command line, the environment, the editor's launch options).
type AgentConfig struct {
	// Kind is AgentCodex ("" too) or AgentACP; anything else is refused.
	Kind AgentKind
	// Command is the agent's program (for AgentACP; codex's is Config.CodexPath).
	Command string
	// Args are the program's arguments.
	Args []string
	// Env is extra environment for the program.
	Env map[string]string
}

// IsCodex reports whether the agent is codex.
func (a AgentConfig) IsCodex() bool { return a.Kind == "" || a.Kind == AgentCodex }

// check refuses an agent the host cannot run: a kind it does not know, an ACP agent without a
// program, or a program for codex (whose program is codex.path).
func (a AgentConfig) check() error {
	switch a.Kind {
	case "", AgentCodex:
		if a.Command != "" || len(a.Args) > 0 || len(a.Env) > 0 {
			return fmt.Errorf("agent.command, agent.args and agent.env are for agent.kind %q; codex is run from codex.path with codex.args and codex.env", AgentACP)
		}
	case AgentACP:
		if a.Command == "" {
			return fmt.Errorf("agent.kind %q needs agent.command: the program of the ACP agent (for example gemini, with agent.args [\"--acp\"])", AgentACP)
		}
	default:
		return fmt.Errorf("agent.kind %q: want %q or %q", a.Kind, AgentCodex, AgentACP)
	}
	return nil
}

// clone returns a copy that shares nothing with a.
func (a AgentConfig) clone() AgentConfig {
	a.Args = slices.Clone(a.Args)
	a.Env = maps.Clone(a.Env)
	return a
}
