package acpagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/codex"
)

// The options an agent offers, of each kind.
var (
	allowOnce    = acp.PermissionOption{OptionID: "once", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}
	allowAlways  = acp.PermissionOption{OptionID: "always", Name: "Always", Kind: acp.PermissionOptionKindAllowAlways}
	rejectOnce   = acp.PermissionOption{OptionID: "no", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce}
	rejectAlways = acp.PermissionOption{OptionID: "never", Name: "Never", Kind: acp.PermissionOptionKindRejectAlways}
	everyOption  = []acp.PermissionOption{allowOnce, allowAlways, rejectOnce, rejectAlways}
)

// outcome is a permission request's outcome in words: "cancelled", or the option picked.
func outcome(o acp.RequestPermissionOutcome, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case o.SelectedPermissionOutcome != nil:
		return o.SelectedPermissionOutcome.OptionID
	}
	return o.Kind
}

// TestPermissionDecisions: the host's decision picks the option of its kind (accept allow_once,
// acceptForSession allow_always else allow_once, decline reject_once else reject_always); cancel
// answers cancelled and cancels the prompt; what fits no option, an error or an answer of another
// shape refuses (the reject option, else cancelled).
func TestPermissionDecisions(t *testing.T) {
	for _, tt := range []struct {
		name     string
		decision string
		err      error
		options  []acp.PermissionOption
		want     string
	}{
		{"accept", codex.DecisionAccept, nil, everyOption, "once"},
		{"accept for the session", codex.DecisionAcceptForSession, nil, everyOption, "always"},
		{"accept for the session, once only", codex.DecisionAcceptForSession, nil, []acp.PermissionOption{allowOnce, rejectOnce}, "once"},
		{"decline", codex.DecisionDecline, nil, everyOption, "no"},
		{"decline, always only", codex.DecisionDecline, nil, []acp.PermissionOption{allowOnce, rejectAlways}, "never"},
		{"accept without allow_once", codex.DecisionAccept, nil, []acp.PermissionOption{allowAlways, rejectOnce}, "no"},
		{"options of unknown kinds", codex.DecisionAccept, nil, []acp.PermissionOption{{OptionID: "maybe", Kind: "allow_sometimes"}}, "cancelled"},
		{"a decision of no kind", "approve", nil, everyOption, "no"},
		{"the host failing", "", errors.New("the approver broke"), everyOption, "no"},
		{"cancel", codex.DecisionCancel, nil, everyOption, "cancelled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, acptest.Config{})
			thread := h.thread()
			h.setRequest(func(context.Context, *codex.Request) (any, error) {
				if tt.err != nil {
					return nil, tt.err
				}
				return codex.ApprovalResponse{Decision: tt.decision}, nil
			})
			got := make(chan string, 1)
			h.fake.OnPrompt(func(t *acptest.Turn) string {
				got <- outcome(t.RequestPermission(acp.ToolCallUpdate{ToolCallID: "c1", Kind: acp.ToolKindExecute, Title: "ls", RawInput: raw(`{"command":"ls -la"}`)}, tt.options...))
				if tt.decision == codex.DecisionCancel && t.WaitCancel() {
					return acp.StopReasonCancelled
				}
				return acp.StopReasonEndTurn
			})
			evs := h.turn(thread, "go")
			if g := <-got; g != tt.want {
				t.Errorf("outcome %s, want %s", g, tt.want)
			}
			if tt.decision == codex.DecisionCancel {
				if _, err := h.fake.WaitReceived(ctx(t), acp.MethodSessionCancel, 1); err != nil {
					t.Error(err)
				}
				if last := describe(evs[len(evs)-1]); last != "turn/completed interrupted" {
					t.Errorf("Stop turn ended the turn %s", last)
				}
			}
		})
	}
}

// TestPermissionRequests: each permission request reaches the host as the codex request that fits
// its tool call: a command's with its command and folder, an edit's patch approval after its
// fileChange item started (the host has its diff and the files as they are), anything else a
// command approval of its title.
func TestPermissionRequests(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	var asked []*codex.Request
	var seenWhenAsked []int
	h.setRequest(func(_ context.Context, req *codex.Request) (any, error) {
		h.mu.Lock()
		asked = append(asked, req)
		seenWhenAsked = append(seenWhenAsked, len(h.seen))
		h.mu.Unlock()
		return codex.ApprovalResponse{Decision: codex.DecisionAccept}, nil
	})
	file := h.folder + "/main.go"
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		t.ToolCall(acp.ToolCall{ToolCallID: "run", Kind: acp.ToolKindExecute, Title: "Run make", RawInput: raw(`{"command":"make test"}`)})
		_, _ = t.RequestPermission(acp.ToolCallUpdate{ToolCallID: "run"}, everyOption...)
		// An edit announced only in the request itself.
		_, _ = t.RequestPermission(acp.ToolCallUpdate{ToolCallID: "edit", Kind: acp.ToolKindEdit, Title: "Edit main.go",
			Content: []acp.ToolCallContent{{Kind: acp.ToolCallContentKindDiff, Diff: &acp.Diff{Path: file, OldText: "a\n", NewText: "b\n"}}}}, everyOption...)
		_, _ = t.RequestPermission(acp.ToolCallUpdate{ToolCallID: "web", Kind: acp.ToolKindFetch, Title: "Fetch https://example.com/\x1b[2J"}, everyOption...)
		return acp.StopReasonEndTurn
	})
	evs := h.turn(thread, "go")
	if len(asked) != 3 {
		t.Fatalf("asked %d times", len(asked))
	}
	var run codex.CommandApprovalParams
	if asked[0].Method != codex.RequestCommandApproval || json.Unmarshal(asked[0].Params, &run) != nil ||
		run.Command != "make test" || run.Cwd != h.folder || run.ThreadID != thread || run.TurnID != evs[0].TurnID || !strings.HasPrefix(run.ItemID, "tool-") {
		t.Errorf("the command's request: %s %s", asked[0].Method, asked[0].Params)
	}
	var edit codex.FileChangeApprovalParams
	if asked[1].Method != codex.RequestFileChangeApproval || json.Unmarshal(asked[1].Params, &edit) != nil || edit.TurnID != evs[0].TurnID {
		t.Errorf("the edit's request: %s %s", asked[1].Method, asked[1].Params)
	}
	h.mu.Lock()
	before := slices.Clone(h.seen[:seenWhenAsked[1]])
	h.mu.Unlock()
	started := slices.ContainsFunc(before, func(ev codex.Event) bool {
		v, ok := ev.Value.(*codex.ItemParams)
		return ok && ev.Method == codex.NotifyItemStarted && v.Item.ID == edit.ItemID && len(v.Item.Changes) == 1 && v.Item.Changes[0].Path == file
	})
	if !started {
		t.Errorf("the edit's item %s had not started when the host was asked; it had seen:\n%s", edit.ItemID, strings.Join(describeAll(before), "\n"))
	}
	var web codex.CommandApprovalParams
	if asked[2].Method != codex.RequestCommandApproval || json.Unmarshal(asked[2].Params, &web) != nil || web.Command != "Fetch https://example.com/" {
		t.Errorf("the fetch's request: %s %s", asked[2].Method, asked[2].Params)
	}
}

// TestWithdrawnPermission: a request the agent withdraws ends the context the host asks under
// (which closes the question in the editor), and is answered cancelled.
func TestWithdrawnPermission(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	asking := make(chan struct{})
	h.setRequest(func(ctx context.Context, _ *codex.Request) (any, error) {
		close(asking)
		<-ctx.Done() // the person has not answered
		return codex.ApprovalResponse{Decision: codex.DecisionDecline}, nil
	})
	got := make(chan string, 1)
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		p, err := t.AskPermission(acp.ToolCallUpdate{ToolCallID: "c1", Kind: acp.ToolKindExecute, Title: "rm -rf build"}, everyOption...)
		if err != nil {
			got <- err.Error()
			return acp.StopReasonEndTurn
		}
		<-asking
		p.Withdraw()
		got <- outcome(p.Wait())
		return acp.StopReasonEndTurn
	})
	h.turn(thread, "go")
	if g := <-got; g != acp.RequestPermissionOutcomeKindCancelled {
		t.Errorf("a withdrawn request: %s", g)
	}
}

// TestPermissionEndsWithItsTurn: a request still asked about when the turn ends is closed: the
// host's context ends.
func TestPermissionEndsWithItsTurn(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	asking := make(chan struct{})
	closed := make(chan struct{})
	h.setRequest(func(ctx context.Context, _ *codex.Request) (any, error) {
		close(asking)
		<-ctx.Done()
		close(closed)
		return codex.ApprovalResponse{Decision: codex.DecisionAccept}, nil
	})
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		if _, err := t.AskPermission(acp.ToolCallUpdate{ToolCallID: "c1", Kind: acp.ToolKindExecute, Title: "sleep"}, everyOption...); err == nil {
			<-asking
		}
		return acp.StopReasonEndTurn // without waiting for the answer
	})
	h.turn(thread, "go")
	select {
	case <-closed:
	case <-ctx(t).Done():
		t.Fatal("the host is still asking about a request of a turn that ended")
	}
}

// TestPermissionAfterAnInterrupt: the prompt after an interrupted one asks the host again: the
// cancel ended with its prompt.
func TestPermissionAfterAnInterrupt(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	h.setRequest(func(context.Context, *codex.Request) (any, error) {
		return codex.ApprovalResponse{Decision: codex.DecisionAccept}, nil
	})
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		t.WaitCancel()
		return t.StopReason(acp.StopReasonEndTurn)
	})
	turn, st := h.start(thread, "first")
	if _, err := h.fake.WaitReceived(ctx(t), acp.MethodSessionPrompt, 1); err != nil {
		t.Fatal(err)
	}
	if err := h.agent.InterruptTurn(ctx(t), thread, turn.ID); err != nil {
		t.Fatal(err)
	}
	drain(t, st)
	got := make(chan string, 1)
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		got <- outcome(t.RequestPermission(acp.ToolCallUpdate{ToolCallID: "c1", Kind: acp.ToolKindExecute, Title: "ls"}, everyOption...))
		return acp.StopReasonEndTurn
	})
	h.turn(thread, "second")
	if g := <-got; g != "once" {
		t.Errorf("the next prompt's permission: %s, want once", g)
	}
}
