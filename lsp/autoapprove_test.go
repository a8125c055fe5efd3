package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// toggle runs hermes.toggleYolo and returns its result.
func toggle(t *testing.T, f *fixture) map[string]any {
	t.Helper()
	raw, err := f.ed.ExecuteCommand(testCtx(t), hermesproto.CmdToggleYolo, map[string]any{"uri": "file://" + f.folder})
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func source(st hermesproto.FolderStatus) string {
	if st.AutoApprove.Source == nil {
		return "null"
	}
	return *st.AutoApprove.Source
}

// TestAutoApproveIsHonest: status reports the effective auto-approval and its source; toggleYolo
// cannot turn off what the command line, the environment or the settings turned on, and says why;
// each time auto-approval becomes effective the user gets a Warning.
func TestAutoApproveIsHonest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     lsp.Options
		settings map[string]any
		source   string
		why      string
	}{
		{name: "settings", settings: map[string]any{"yolo": true}, source: "config", why: "yolo is set in your settings"},
		{name: "flag", opts: lsp.Options{Yolo: true}, source: "flag", why: "--yolo"},
		{name: "env", opts: lsp.Options{Yolo: true, YoloSource: "env"}, source: "env", why: "HERMES_YOLO_MODE"},
		{name: "approvals off", settings: map[string]any{"approvals": map[string]any{"mode": "off"}}, source: "policy", why: "hermes.approvals.mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startWith(t, tc.opts, lsptest.VSCode, tc.settings)
			ctx := testCtx(t)
			if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes is auto-approving")); err != nil {
				t.Fatalf("no warning at start: %v", err)
			}
			st := status(t, f)
			if !st.AutoApprove.Effective || !st.Yolo || source(st) != tc.source {
				t.Fatalf("status: yolo %v, autoApprove %v/%s; want true/%s", st.Yolo, st.AutoApprove.Effective, source(st), tc.source)
			}
			res := toggle(t, f)
			if res["yolo"] != true || !strings.Contains(res["reason"].(string), tc.why) {
				t.Errorf("toggleYolo: %v", res)
			}
			if err := f.ed.Await(ctx, lsptest.MessageContaining("stays on: ")); err != nil {
				t.Errorf("toggleYolo did not say why it cannot: %v", err)
			}
			if st := status(t, f); !st.AutoApprove.Effective || source(st) != tc.source {
				t.Errorf("after toggle: %+v", st.AutoApprove)
			}
		})
	}
}

// TestToggleYoloSession: toggled on, the session auto-approves (warned, marked in every progress
// report, shown in status); toggled off, approvals are asked again.
func TestToggleYoloSession(t *testing.T) {
	f := start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(lsptest.ChooseAction(hermesproto.ApprovalActionDeny)))
	decided := make(chan string, 2)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		d, _ := ft.ExecWithApproval("go test ./...", 0, "ok\n")
		decided <- d
		ft.AgentMessage("done")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	if st := status(t, f); st.AutoApprove.Effective || source(st) != "null" {
		t.Fatalf("status before: %+v", st.AutoApprove)
	}
	if res := toggle(t, f); res["yolo"] != true {
		t.Fatalf("toggle on: %v", res)
	}
	if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes is auto-approving")); err != nil {
		t.Fatalf("no warning: %v", err)
	}
	if st := status(t, f); source(st) != "session" {
		t.Fatalf("status: %+v", st.AutoApprove)
	}
	f.ask(ctx, map[string]any{"prompt": "test"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("session yolo: %q", got)
	}
	f.awaitEnd(ctx)
	events := progressOf(f.ed)
	if len(events) < 2 {
		t.Fatalf("progress: %+v", events)
	}
	for _, ev := range events {
		if ev.Kind != "end" && !strings.Contains(ev.Message, "auto-approving") {
			t.Errorf("progress %s %q does not say auto-approving", ev.Kind, ev.Message)
		}
	}

	if res := toggle(t, f); res["yolo"] != false {
		t.Fatalf("toggle off: %v", res)
	}
	f.ask(ctx, map[string]any{"prompt": "again"})
	if got := <-decided; got != codex.DecisionDecline {
		t.Fatalf("after toggle off: %q (want the prompt, denied)", got)
	}
	if n := len(approvalPrompts(f.ed)); n != 1 {
		t.Errorf("%d approval prompts after toggle off, want 1", n)
	}
}
