package agenthost_test

// Tests of approvals answered without asking: policy, yolo from each source, session yolo.

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

func TestApprovalsAutoAccepted(t *testing.T) {
	// Not parallel: one case sets HERMES_YOLO_MODE.
	cases := []struct {
		name        string
		env         string
		mutate      func(*agenthost.Config)
		sessionYolo bool
	}{
		{name: "mode off", mutate: func(c *agenthost.Config) { c.ApprovalsMode = agenthost.ApprovalsOff }},
		{name: "mode false", mutate: func(c *agenthost.Config) {
			mode, err := agenthost.ParseApprovalsMode(false)
			if err != nil {
				panic(err)
			}
			c.ApprovalsMode = mode
		}},
		{name: "host yolo", mutate: func(c *agenthost.Config) { c.Yolo = true }},
		{name: "HERMES_YOLO_MODE", env: "1", mutate: func(c *agenthost.Config) { c.Yolo, _ = agenthost.YoloFromEnv() }},
		{name: "session yolo", sessionYolo: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("HERMES_YOLO_MODE", tc.env)
			}
			approver := newApprover(hermesproto.DecisionDeny) // would decline, if it were asked
			fh := newFakeHost(t, func(c *agenthost.Config) {
				c.Approver = approver
				if tc.mutate != nil {
					tc.mutate(c)
				}
			})
			got := make(chan string, 2)
			fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
				for _, ask := range []func() (string, error){
					func() (string, error) { return ft.ExecWithApproval("rm -rf build", 0, "") },
					func() (string, error) { return ft.RequestPatchApproval(fileChanges("add a.go"), "", "") },
				} {
					d, err := ask()
					if err != nil {
						d = "error: " + err.Error()
					}
					got <- d
				}
				ft.AgentMessage("done")
			})
			s := fh.session(t)
			if tc.sessionYolo {
				s.SetYolo(true)
				if !s.Status().Yolo {
					t.Error("Status does not show the session's yolo")
				}
			}
			res, events := run(t, s, "clean and patch")
			for _, what := range []string{"exec", "patch"} {
				if d := recv(t, got, "codex's decision"); d != codex.DecisionAccept {
					t.Errorf("%s request answered %q, want accept", what, d)
				}
			}
			noneAsked(t, approver)
			if !res.Completed || res.ToolIterations != 2 {
				t.Errorf("result: %+v", res)
			}
			if n := len(ofKind(events, hermesproto.EventKindApprovalWaiting)); n != 0 {
				t.Errorf("%d approvalWaiting events for auto-accepted requests", n)
			}
			approvals := transcriptApprovals(readTranscript(t, fh.state, res.ThreadID))
			if len(approvals) != 2 {
				t.Fatalf("transcript approvals: %+v", approvals)
			}
			for i, a := range approvals {
				if a.Decision != hermesproto.DecisionOnce || a.DecidedBy != "policy" || a.Kind != []hermesproto.ApprovalKind{hermesproto.ApprovalKindExec, hermesproto.ApprovalKindPatch}[i] {
					t.Errorf("transcript approval %d: %+v", i, a)
				}
			}
		})
	}
}

// TestYoloFromEnv: HERMES_YOLO_MODE is on only for 1/true/yes/on; a value nobody understands
// ("disabled", "n") fails closed, with a warning that names it.
func TestYoloFromEnv(t *testing.T) {
	for _, tc := range []struct {
		v        string
		want     bool
		warnings bool
	}{
		{"", false, false}, {"0", false, false}, {"false", false, false}, {"FALSE", false, false},
		{"no", false, false}, {"off", false, false}, {" ", false, false},
		{"1", true, false}, {"true", true, false}, {"yes", true, false}, {"on", true, false}, {" On ", true, false},
		{"disabled", false, true}, {"n", false, true}, {"anything", false, true}, {"2", false, true},
	} {
		t.Setenv("HERMES_YOLO_MODE", tc.v)
		got, warning := agenthost.YoloFromEnv()
		if got != tc.want || (warning != "") != tc.warnings {
			t.Errorf("HERMES_YOLO_MODE=%q: YoloFromEnv() = %v, %q; want %v, warning %v", tc.v, got, warning, tc.want, tc.warnings)
		}
		if tc.warnings && !strings.Contains(warning, tc.v) {
			t.Errorf("HERMES_YOLO_MODE=%q: the warning %q does not name the value", tc.v, warning)
		}
	}
}

// TestAutoApproveSource: the session reports whether approvals are auto-approved and the first
// source that makes them so; the transcript records it on each auto-approved request.
func TestAutoApproveSource(t *testing.T) {
	for _, tc := range []struct {
		name        string
		mutate      func(*agenthost.Config)
		sessionYolo bool
		want        agenthost.AutoApprove
	}{
		{name: "manual", want: agenthost.AutoApprove{}},
		{name: "flag", mutate: func(c *agenthost.Config) { c.Yolo, c.YoloSource = true, agenthost.SourceFlag }, sessionYolo: true,
			want: agenthost.AutoApprove{Effective: true, Source: agenthost.SourceFlag}},
		{name: "env", mutate: func(c *agenthost.Config) { c.Yolo, c.YoloSource = true, agenthost.SourceEnv },
			want: agenthost.AutoApprove{Effective: true, Source: agenthost.SourceEnv}},
		{name: "config", mutate: func(c *agenthost.Config) { c.Yolo = true },
			want: agenthost.AutoApprove{Effective: true, Source: agenthost.SourceConfig}},
		{name: "mode off", mutate: func(c *agenthost.Config) { c.ApprovalsMode = agenthost.ApprovalsOff }, sessionYolo: true,
			want: agenthost.AutoApprove{Effective: true, Source: agenthost.SourcePolicy}},
		{name: "policy never", mutate: func(c *agenthost.Config) { c.ApprovalPolicy = codex.ApprovalNever },
			want: agenthost.AutoApprove{Effective: true, Source: agenthost.SourcePolicy}},
		{name: "session", sessionYolo: true, want: agenthost.AutoApprove{Effective: true, Source: agenthost.SourceSession}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fh := newFakeHost(t, tc.mutate)
			s := fh.session(t)
			s.SetYolo(tc.sessionYolo)
			if got := s.AutoApprove(); got != tc.want {
				t.Errorf("AutoApprove() = %+v, want %+v", got, tc.want)
			}
			if got := s.Status().AutoApprove; got != tc.want {
				t.Errorf("Status().AutoApprove = %+v, want %+v", got, tc.want)
			}
			if !tc.want.Effective || tc.name == "policy never" {
				return // codex itself would not ask under "never"
			}
			fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
				_, _ = ft.ExecWithApproval("make", 0, "")
				ft.AgentMessage("done")
			})
			res, events := run(t, s, "build")
			resolved := ofKind(events, hermesproto.EventKindApprovalResolved)
			if len(resolved) != 1 || resolved[0].Approval.AutoSource != tc.want.Source {
				t.Errorf("an auto-approval must show as an approvalResolved event with its source: %+v", resolved)
			}
			approvals := transcriptApprovals(readTranscript(t, fh.state, res.ThreadID))
			if len(approvals) != 1 || approvals[0].AutoSource != tc.want.Source {
				t.Errorf("transcript approvals: %+v", approvals)
			}
		})
	}
}

// TestSessionYoloAppliesFromNextRequest turns the session's yolo on while codex waits for an answer:
// the pending request is still the person's, the next one is auto-accepted; turned off, requests are
// asked again.
func TestSessionYoloAppliesFromNextRequest(t *testing.T) {
	var s *agenthost.Session
	asked := make(chan hermesproto.Approval, 8)
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Approver = agenthost.ApproverFunc(func(ctx context.Context, a hermesproto.Approval) (agenthost.Reply, error) {
			asked <- a
			s.SetYolo(true)
			return agenthost.Reply{Decision: hermesproto.DecisionDeny}, nil
		})
	})
	s = fh.session(t)
	got := make(chan string, 4)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		n := 1
		if ft.Prompt == "first" {
			n = 2
		}
		for range n {
			d, err := ft.ExecWithApproval("touch x", 0, "")
			if err != nil {
				d = "error: " + err.Error()
			}
			got <- d
		}
	})
	run(t, s, "first")
	if d1, d2 := recv(t, got, "decision 1"), recv(t, got, "decision 2"); d1 != codex.DecisionDecline || d2 != codex.DecisionAccept {
		t.Fatalf("decisions %q, %q: want decline (asked), then accept (yolo)", d1, d2)
	}
	if len(asked) != 1 {
		t.Fatalf("approver asked %d times, want 1", len(asked))
	}
	recv(t, asked, "the first approval")

	s.SetYolo(false)
	if s.Yolo() {
		t.Fatal("SetYolo(false) did not apply")
	}
	run(t, s, "second")
	if d := recv(t, got, "codex's decision"); d != codex.DecisionDecline {
		t.Errorf("after yolo off: decision %q, want decline (asked)", d)
	}
	if len(asked) != 1 {
		t.Errorf("after yolo off the approver was asked %d times, want 1", len(asked))
	}
}
