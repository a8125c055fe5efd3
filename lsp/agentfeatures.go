package lsp

// This file refuses, at once and in words, a command of a feature the agent lacks (an ACP agent
// cannot compact, for one), instead of letting it fail late in the agent.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// commandNeeds is the agent feature each command needs.
var commandNeeds = map[string]string{
	hermesproto.CmdCompact:       hermesproto.AgentFeatureCompact,
	hermesproto.CmdThreads:       hermesproto.AgentFeatureThreads,
	hermesproto.CmdResumeThread:  hermesproto.AgentFeatureResume,
	hermesproto.CmdThreadHistory: hermesproto.AgentFeatureHistory,
	hermesproto.CmdModels:        hermesproto.AgentFeatureModels,
	hermesproto.CmdLogin:         hermesproto.AgentFeatureLogin,
}

// lackedFeature says what to do instead of each feature an agent may lack.
var lackedFeature = map[string]string{
	hermesproto.AgentFeatureCompact: "cannot compact its conversation: Hermes: New Thread starts afresh",
	hermesproto.AgentFeatureThreads: "does not list its threads: the folder's thread goes on, and Hermes: New Thread starts another",
	hermesproto.AgentFeatureResume:  "cannot resume one of its threads: Hermes: New Thread starts another",
	hermesproto.AgentFeatureHistory: "does not give a thread's past turns: the transcript (Hermes: Show Transcript) has them",
	hermesproto.AgentFeatureModels:  "does not list its models: choose the model in the agent's own settings",
	hermesproto.AgentFeatureLogin:   "signs in its own way: run it once in a terminal, or give it its key in hermes.agent.env",
}

// agentLacks returns an error that says what to do when the agent lacks the feature command needs;
// nil when it has it (or the command needs none).
func (s *Server) agentLacks(ctx context.Context, command string) error {
	feature, ok := commandNeeds[command]
	if !ok {
		return nil
	}
	h, err := s.hostOrErr()
	if err != nil {
		return err
	}
	info, err := h.Capabilities(ctx)
	if err != nil {
		return err
	}
	supports, _ := info.Supports.Features()
	if slices.Contains(supports, feature) {
		return nil
	}
	return fmt.Errorf("%s %s", agentName(info), lackedFeature[feature])
}

// agentName names the agent for a message: "the ACP agent gemini-cli".
func agentName(info agenthost.AgentInfo) string {
	if info.Kind == agenthost.AgentCodex {
		return "codex"
	}
	return fmt.Sprintf("the %s agent %s", strings.ToUpper(string(info.Kind)), info.Name)
}
