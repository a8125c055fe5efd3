package agenthost_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestRefusedSteerThenApprovalDoesNotDeadlock is the deadlock the core review reproduced: codex
// refuses a steer with -32603 while the turn runs on, then asks for an exec approval. The steer must
// not be taken for "the turn is over" and wait for the turn's end while approvals wait for it: Run
// answers, the approval is asked and answered, the turn ends, and the host closes.
func TestRefusedSteerThenApprovalDoesNotDeadlock(t *testing.T) {
	asked := make(chan hermesproto.Approval, 1)
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Approver = agenthost.ApproverFunc(func(ctx context.Context, a hermesproto.Approval) (agenthost.Reply, error) {
			asked <- a
			return agenthost.Reply{Decision: hermesproto.DecisionOnce}, nil
		})
	})
	fh.fake.RefuseSteers(codex.CodeInternalError, "internal error")
	decided := make(chan string, 1)
	steerSeen := make(chan struct{})
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		select {
		case <-steerSeen:
		case <-ft.Done():
			return
		}
		d, err := ft.RequestExecApproval("make")
		if err != nil {
			d = "error: " + err.Error()
		}
		decided <- d
		ft.AgentMessage("built")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s := fh.session(t)
	first, err := s.Run(ctx, agenthost.Input{Prompt: "build"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if _, err := fh.fake.WaitRequest(ctx, codex.MethodTurnSteer, 1); err == nil {
			close(steerSeen)
		}
	}()

	steered := make(chan error, 1)
	go func() {
		_, err := s.Run(ctx, agenthost.Input{Prompt: "and test it"})
		steered <- err
	}()
	select {
	case err := <-steered:
		t.Logf("the refused steer answered: %v", err)
	case <-ctx.Done():
		t.Fatal("Run hangs after codex refused the steer")
	}
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the approval after the refused steer was never asked")
	}
	if got := <-decided; got != codex.DecisionAccept {
		t.Errorf("codex got %q, want accept", got)
	}
	res, err := first.Wait(ctx)
	if err != nil || !res.Completed {
		t.Fatalf("the turn did not end: %+v, %v", res, err)
	}
	closed := make(chan error, 1)
	go func() { closed <- fh.Close() }()
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Host.Close hangs")
	}
}

// TestCloseDuringSpawn closes the host while a turn's codex is starting (its initialize unanswered):
// Close waits for that turn to give up, Run returns an error, nothing is left running (goleak), and
// no turn starts after the host closed.
func TestCloseDuringSpawn(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) { c.StartTimeout = 300 * time.Millisecond })
	fh.fake.Stall() // the next codex never answers initialize
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s := fh.session(t)
	ran := make(chan error, 1)
	go func() {
		_, err := s.Run(ctx, agenthost.Input{Prompt: "hello"})
		ran <- err
	}()
	if _, err := fh.fake.WaitRequest(ctx, "initialize", 1); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- fh.Close() }()
	select {
	case err := <-ran:
		if err == nil {
			t.Error("Run started a turn on a host that was closing")
		}
	case <-ctx.Done():
		t.Fatal("Run hangs while the host closes")
	}
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close hangs while codex starts")
	}
	if _, err := s.Run(ctx, agenthost.Input{Prompt: "again"}); err == nil {
		t.Error("a closed host ran a turn")
	}
}

// TestSessionAnswersWhileCodexStarts: while a turn waits for codex to start, the session's other
// commands are answered at once — none of them waits behind the start (NewThread and Compact used
// to wait on a lock the start held).
func TestSessionAnswersWhileCodexStarts(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) { c.StartTimeout = time.Minute })
	fh.fake.Stall() // the next codex never answers initialize
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s := fh.session(t)
	ran := make(chan error, 1)
	go func() {
		_, err := s.Run(ctx, agenthost.Input{Prompt: "hello"})
		ran <- err
	}()
	if _, err := fh.fake.WaitRequest(ctx, "initialize", 1); err != nil {
		t.Fatal(err)
	}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		if st := s.Status(); st.Turn == nil || st.Turn.State != agenthost.StatusRunning {
			t.Errorf("status while starting: turn %+v, want a running turn", st.Turn)
		}
		s.SetYolo(true)
		if !s.Yolo() {
			t.Error("SetYolo(true) did not take while a turn starts")
		}
		if err := s.NewThread(); !errors.Is(err, agenthost.ErrBusy) {
			t.Errorf("NewThread while starting: %v, want ErrBusy", err)
		}
		if _, err := s.Compact(ctx); !errors.Is(err, agenthost.ErrBusy) {
			t.Errorf("Compact while starting: %v, want ErrBusy", err)
		}
		if err := s.Interrupt(ctx); err != nil {
			t.Errorf("Interrupt while starting: %v", err)
		}
	}()
	select {
	case <-answered:
	case <-time.After(5 * time.Second):
		t.Fatal("the session's commands wait for codex to start")
	}
	_ = fh.Close()
	if err := <-ran; err == nil {
		t.Error("a turn started on a codex that never answered initialize")
	}
}
