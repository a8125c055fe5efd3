package agenthost_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemcp"
)

func TestMain(m *testing.M) {
	// The real-codex tests of codex's questions run this binary as codex's MCP server.
	fakemcp.Main()
	goleak.VerifyTestMain(m)
}

// fakeHost is a host on the scripted fake codex.
type fakeHost struct {
	*agenthost.Host
	fake   *codextest.Fake
	folder string
	state  string
}

func newFakeHost(t *testing.T, mutate func(*agenthost.Config)) *fakeHost {
	t.Helper()
	fake := codextest.NewFake(t)
	return newFakeHostOn(t, fake, t.TempDir(), mutate)
}

// newFakeHostOn makes a host on fake with its state in stateDir (a restart shares both).
func newFakeHostOn(t *testing.T, fake *codextest.Fake, stateDir string, mutate func(*agenthost.Config)) *fakeHost {
	t.Helper()
	cfg := agenthost.Config{
		CodexPath:  "/opt/codex/bin/codex",
		StateDir:   stateDir,
		StartCodex: fake.Start,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	h, err := agenthost.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return &fakeHost{Host: h, fake: fake, folder: t.TempDir(), state: stateDir}
}

func (fh *fakeHost) session(t *testing.T) *agenthost.Session {
	t.Helper()
	s, err := fh.Session(fh.folder)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run runs one turn to its end and returns its result and events.
func run(t *testing.T, s *agenthost.Session, prompt string) (*hermesproto.Result, []hermesproto.Event) {
	t.Helper()
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	return finish(t, turn)
}

func finish(t *testing.T, turn *agenthost.Turn) (*hermesproto.Result, []hermesproto.Event) {
	t.Helper()
	var events []hermesproto.Event
	timeout := time.After(20 * time.Second)
	evs := turn.Events()
	for ended := false; !ended; {
		select {
		case ev, ok := <-evs:
			if ok {
				events = append(events, ev)
			}
			ended = !ok
		case <-timeout:
			t.Fatalf("turn did not end in 20s (%d events so far)", len(events))
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := turn.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res, events
}

// recv waits for a value from ch for at most 20 seconds, failing t with what it waited for.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("waited 20s for %s", what)
		panic("unreachable")
	}
}

// recvOrClosed is recv for a channel that may be closed: ok is false when it is.
func recvOrClosed[T any](t *testing.T, ch <-chan T) (v T, ok bool) {
	t.Helper()
	select {
	case v, ok = <-ch:
		return v, ok
	case <-time.After(20 * time.Second):
		t.Fatal("waited 20s for a value or the channel's close")
		panic("unreachable")
	}
}

func ofKind(events []hermesproto.Event, kind hermesproto.EventKind) []hermesproto.Event {
	var out []hermesproto.Event
	for _, ev := range events {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// approverOf answers every approval with d (recording what it was asked).
type recordingApprover struct {
	d       hermesproto.Decision
	answers map[string][]string // with d, for questions
	err     error
	block   bool // wait for ctx instead (timeouts, withdrawal, shutdown)
	asked   chan hermesproto.Approval
	ctxErr  chan error
}

func newApprover(d hermesproto.Decision) *recordingApprover {
	return &recordingApprover{d: d, asked: make(chan hermesproto.Approval, 16), ctxErr: make(chan error, 16)}
}

func (a *recordingApprover) Approve(ctx context.Context, ap hermesproto.Approval) (agenthost.Reply, error) {
	a.asked <- ap
	if a.block {
		<-ctx.Done()
		a.ctxErr <- ctx.Err()
		return agenthost.Reply{}, ctx.Err()
	}
	return agenthost.Reply{Decision: a.d, Answers: a.answers}, a.err
}
