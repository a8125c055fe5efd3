package acpagent_test

import (
	"encoding/json"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/codex"
)

// modesSet are the modes the client set, in order.
func modesSet(h *harness) []string {
	var out []string
	for _, m := range h.fake.Received() {
		if m.Method != acp.MethodSessionSetMode {
			continue
		}
		var p acp.SetSessionModeRequest
		if json.Unmarshal(m.Params, &p) == nil {
			out = append(out, p.ModeID)
		}
	}
	return out
}

// TestAsksBeforeActing: a session that starts in a mode that acts without asking (codex-acp's
// "agent") is put in the first mode of the known ones that ask ("default", else "read-only"), so
// that the user's approvals apply; one already asking, one whose modes Hermes does not know, and the
// approval policy never are left as they are.
func TestAsksBeforeActing(t *testing.T) {
	modes := func(current string, ids ...string) *acp.SessionModeState {
		s := &acp.SessionModeState{CurrentModeID: current}
		for _, id := range ids {
			s.AvailableModes = append(s.AvailableModes, acp.SessionMode{ID: id, Name: id})
		}
		return s
	}
	for _, tt := range []struct {
		name   string
		modes  *acp.SessionModeState
		policy codex.AskForApproval
		want   []string
	}{
		{"codex-acp's agent mode", modes("agent", "read-only", "agent", "agent-full-access"), codex.ApprovalUntrusted, []string{"read-only"}},
		{"Claude's auto mode", modes("auto", "default", "acceptEdits", "plan", "auto"), codex.ApprovalOnRequest, []string{"default"}},
		{"already asking", modes("default", "default", "yolo"), codex.ApprovalUntrusted, nil},
		{"modes Hermes does not know", modes("fast", "fast", "slow"), codex.ApprovalUntrusted, nil},
		{"the policy never", modes("agent", "read-only", "agent"), codex.ApprovalNever, nil},
		{"no modes", nil, codex.ApprovalUntrusted, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, acptest.Config{Modes: tt.modes})
			if _, err := h.agent.StartThread(ctx(t), codex.ThreadStartParams{Cwd: h.folder, ApprovalPolicy: tt.policy}); err != nil {
				t.Fatal(err)
			}
			got := modesSet(h)
			if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Errorf("modes set %q, want %q", got, tt.want)
			}
		})
	}
}
