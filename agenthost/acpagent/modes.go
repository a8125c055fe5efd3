package acpagent

// This file keeps an agent asking before it acts: Hermes's approvals are the user's only while the
// agent asks for permission, and some agents start in a mode that edits files or runs commands
// without asking.

import (
	"context"
	"slices"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/codex"
)

// askingModes are session modes, by id, under which the known agents ask before they edit a file or
// run a command, most wanted first: Claude's adapter's and Gemini CLI's "default", codex-acp's
// "read-only" (its "agent" mode writes inside the folder without asking).
var askingModes = []string{"default", "read-only"}

// askBeforeActing puts the session in a mode under which the agent asks before it acts, unless the
// approval policy is never (the user chose no questions): the first of askingModes the agent offers,
// when its current mode is not one of them. An agent without modes asks as it will; one whose
// modes include none of askingModes is left as it is, with a warning in the log, since a mode of an
// unknown name cannot be judged.
func (a *Agent) askBeforeActing(ctx context.Context, sessionID string, modes *acp.SessionModeState, policy codex.AskForApproval) {
	if modes == nil || policy == codex.ApprovalNever || slices.Contains(askingModes, modes.CurrentModeID) {
		return
	}
	for _, want := range askingModes {
		if !slices.ContainsFunc(modes.AvailableModes, func(m acp.SessionMode) bool { return m.ID == want }) {
			continue
		}
		if err := a.client.SetMode(ctx, sessionID, want); err != nil {
			a.log.Warn("the ACP agent's session could not be put in a mode that asks before acting", "session", sessionID, "mode", want, "err", err)
			return
		}
		a.log.Info("the ACP agent's session asks before acting", "session", sessionID, "mode", want, "was", modes.CurrentModeID)
		return
	}
	a.log.Warn("the ACP agent's session is in a mode Hermes does not know; it may act without asking",
		"session", sessionID, "mode", modes.CurrentModeID)
}
