package acp_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
)

// scripts are the agents this test binary plays as processes of their own (acptest.Command).
var scripts = map[string]acptest.Script{
	// echo answers each prompt with its text.
	"echo": {OnPrompt: func(t *acptest.Turn) string {
		t.Message(t.Text())
		return acp.StopReasonEndTurn
	}},
	// crash says a little, then dies mid-prompt with last words on stderr.
	"crash": {OnPrompt: func(t *acptest.Turn) string {
		t.Message("thinking about it")
		t.Crash("error: the model went away", "fatal: giving up")
		return ""
	}},
}

func TestMain(m *testing.M) {
	acptest.Main(scripts)
	goleak.VerifyTestMain(m)
}

// timeout bounds each test's waits: the fake answers at once, so only a bug takes this long.
const timeout = 20 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// recv receives from ch, or fails the test when nothing comes within the timeout: a bug must fail
// a test, not hang it.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(timeout):
		t.Fatalf("nothing came within %v", timeout)
		panic("unreachable")
	}
}

// recorder is a Handler that keeps the updates it receives and answers requests with the functions
// a test sets (nil: the zero answer).
type recorder struct {
	mu       sync.Mutex
	updates  []*acp.SessionNotification
	asked    chan struct{} // closed when a permission is first asked for
	wasAsked bool

	onUpdate   func(ctx context.Context, n *acp.SessionNotification) // called before the update is kept
	permission func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error)
	read       func(ctx context.Context, req *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error)
	write      func(ctx context.Context, req *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error)
}

func (r *recorder) SessionUpdate(ctx context.Context, n *acp.SessionNotification) {
	if r.onUpdate != nil {
		r.onUpdate(ctx, n)
	}
	r.mu.Lock()
	r.updates = append(r.updates, n)
	r.mu.Unlock()
}

func (r *recorder) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	asked := r.askedCh()
	r.mu.Lock()
	if !r.wasAsked {
		r.wasAsked = true
		close(asked)
	}
	r.mu.Unlock()
	if r.permission == nil {
		return acp.Cancelled(), nil
	}
	return r.permission(ctx, req)
}

func (r *recorder) ReadTextFile(ctx context.Context, req *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	if r.read == nil {
		return &acp.ReadTextFileResponse{}, nil
	}
	return r.read(ctx, req)
}

func (r *recorder) WriteTextFile(ctx context.Context, req *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	if r.write == nil {
		return &acp.WriteTextFileResponse{}, nil
	}
	return r.write(ctx, req)
}

// askedCh is closed when a permission is first asked for.
func (r *recorder) askedCh() chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asked == nil {
		r.asked = make(chan struct{})
	}
	return r.asked
}

// kinds returns the kinds of the updates received, in order.
func (r *recorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.updates))
	for i, n := range r.updates {
		out[i] = n.Update.Kind
	}
	return out
}

func (r *recorder) received() []*acp.SessionNotification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*acp.SessionNotification(nil), r.updates...)
}

// connect starts an in-process agent with cfg and a client with h as its Handler.
func connect(t *testing.T, cfg acptest.Config, h acp.Handler) (*acptest.Agent, *acp.Client) {
	t.Helper()
	agent := acptest.NewAgent(t, cfg)
	client, err := agent.Connect(testContext(t), acp.Options{Name: "fake-agent", Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	return agent, client
}

// newSession starts a session in a folder of the test's.
func newSession(t *testing.T, client *acp.Client) string {
	t.Helper()
	res, err := client.NewSession(testContext(t), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.SessionID
}

// text is the text of a content block, or "" when it is not text.
func text(b acp.ContentBlock) string {
	if b.TextContent == nil {
		return ""
	}
	return b.TextContent.Text
}
