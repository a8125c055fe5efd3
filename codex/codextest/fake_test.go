package codextest_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// timeout bounds each test's waits: the fake answers at once, so only a bug takes this long.
const timeout = 10 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	return ctx
}

func start(t *testing.T, f *codextest.Fake, opts codex.Options) *codex.Client {
	t.Helper()
	c, err := f.Start(testContext(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func startThread(t *testing.T, c *codex.Client) string {
	t.Helper()
	res, err := c.StartThread(testContext(t), codex.ThreadStartParams{Cwd: "/project"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Thread.ID
}

// run is what a client saw of one turn.
type run struct {
	turn   *codex.Turn
	events []codex.Event
	done   *codex.TurnCompletedParams // nil when the turn never completed
	err    error                      // why the subscription ended
}

func startTurn(t *testing.T, c *codex.Client, threadID, prompt string) (*codex.Turn, *codex.Subscription) {
	t.Helper()
	turn, sub, err := c.StartTurn(testContext(t), codex.TurnStartParams{
		ThreadID: threadID, Input: []codex.UserInput{codex.TextInput(prompt)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	return turn, sub
}

// collect reads a turn's subscription to its end.
func collect(t *testing.T, turn *codex.Turn, sub *codex.Subscription) run {
	t.Helper()
	r := run{turn: turn}
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				r.err = sub.Err()
				return r
			}
			r.events = append(r.events, ev)
			if v, ok := ev.Value.(*codex.TurnCompletedParams); ok {
				r.done = v
			}
		case <-deadline:
			t.Fatalf("turn %s did not end; events so far: %v", turn.ID, methods(r.events))
		}
	}
}

func runTurn(t *testing.T, c *codex.Client, threadID, prompt string) run {
	t.Helper()
	turn, sub := startTurn(t, c, threadID, prompt)
	return collect(t, turn, sub)
}

func methods(events []codex.Event) []string {
	var out []string
	for _, ev := range events {
		out = append(out, ev.Method)
	}
	return out
}

// items returns the items of method (item/started or item/completed) of one type.
func (r run) items(method, itemType string) []codex.Item {
	var out []codex.Item
	for _, ev := range r.events {
		if v, ok := ev.Value.(*codex.ItemParams); ok && ev.Method == method && v.Item.Type == itemType {
			out = append(out, v.Item)
		}
	}
	return out
}

func (r run) deltas(method string) string {
	var b strings.Builder
	for _, ev := range r.events {
		if v, ok := ev.Value.(*codex.DeltaParams); ok && ev.Method == method {
			b.WriteString(v.Delta)
		}
	}
	return b.String()
}

func (r run) status(t *testing.T, want string) {
	t.Helper()
	if r.done == nil {
		t.Fatalf("turn ended without turn/completed (%v); events %v", r.err, methods(r.events))
	}
	if r.done.Turn.Status != want {
		t.Fatalf("turn status %s, want %s; events %v", r.done.Turn.Status, want, methods(r.events))
	}
}

func wantRPCError(t *testing.T, err error, contains string) {
	t.Helper()
	var rpcErr *codex.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != codex.CodeInvalidRequest || !strings.Contains(rpcErr.Message, contains) {
		t.Fatalf("got %v, want codex error %d saying %q", err, codex.CodeInvalidRequest, contains)
	}
}

// log records what a client saw, in order, from any goroutine.
type log struct {
	mu      sync.Mutex
	entries []string
}

func (l *log) add(s string) {
	l.mu.Lock()
	l.entries = append(l.entries, s)
	l.mu.Unlock()
}

func (l *log) index(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Index(l.entries, s)
}

func TestFakeDefaultTurn(t *testing.T) {
	f := codextest.NewFake(t)
	opts := codex.Options{Process: codex.ProcessOptions{
		Binary: "/opt/codex", Config: []string{`model="x"`}, Env: []string{"A=1"}, Home: "/tmp/h/.codex",
	}}
	c := start(t, f, opts)
	if got := c.Info().CodexHome; got != "/tmp/h/.codex" {
		t.Errorf("codexHome %q", got)
	}
	starts := f.Starts()
	if len(starts) != 1 || starts[0].Process.Binary != "/opt/codex" || starts[0].Process.Env[0] != "A=1" ||
		starts[0].Process.Config[0] != `model="x"` {
		t.Fatalf("starts %+v", starts)
	}

	res, err := c.StartThread(testContext(t), codex.ThreadStartParams{
		Cwd: "/project", ApprovalPolicy: codex.ApprovalUntrusted, Sandbox: codex.SandboxWorkspaceWrite,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Thread.ID != "thread-1" || res.Cwd != "/project" || res.Thread.Cwd != "/project" ||
		res.Model != codextest.FakeModel || res.ModelProvider != codextest.FakeModelProvider ||
		res.ApprovalPolicy != codex.ApprovalUntrusted || !strings.Contains(string(res.Sandbox), "workspaceWrite") {
		t.Fatalf("thread/start result %+v", res)
	}

	r := runTurn(t, c, res.Thread.ID, "say ok")
	r.status(t, codex.TurnCompleted)
	if r.turn.ID != "turn-1" || r.turn.Status != codex.TurnInProgress {
		t.Errorf("turn/start answered %+v", r.turn)
	}
	if got := r.deltas(codex.NotifyAgentMessageDelta); got != "ok" {
		t.Errorf("deltas %q", got)
	}
	msgs := r.items(codex.NotifyItemCompleted, codex.ItemAgentMessage)
	if len(msgs) != 1 || msgs[0].Text != "ok" || msgs[0].ID != "msg_1" {
		t.Errorf("agent messages %+v", msgs)
	}
	users := r.items(codex.NotifyItemCompleted, codex.ItemUserMessage)
	if len(users) != 1 || !strings.Contains(string(users[0].Content), "say ok") {
		t.Errorf("user messages %+v", users)
	}
	if items := r.done.Turn.Items; len(items) != 1 || items[0].Text != "ok" {
		t.Errorf("turn/completed items %+v", items)
	}
	var usage *codex.TokenUsageParams
	for _, ev := range r.events {
		if v, ok := ev.Value.(*codex.TokenUsageParams); ok {
			usage = v
		}
	}
	if usage == nil || usage.TurnID != r.turn.ID || usage.TokenUsage.Total.TotalTokens != 1234 ||
		usage.TokenUsage.ModelContextWindow == 0 {
		t.Errorf("usage %+v", usage)
	}
	// As from codex, thread/started may reach the first turn's subscription: it follows the answer.
	if ms := methods(r.events); slices.Index(ms, codex.NotifyTurnStarted) > slices.Index(ms, codex.NotifyItemStarted) {
		t.Errorf("items before turn/started: %v", ms)
	}

	var got []string
	for _, m := range f.Requests() {
		got = append(got, m.Method)
	}
	want := []string{codex.MethodInitialize, codex.MethodInitialized, codex.MethodThreadStart, codex.MethodTurnStart}
	if !slices.Equal(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	th := f.Threads()["thread-1"]
	if th.Cwd != "/project" || th.Start.ApprovalPolicy != codex.ApprovalUntrusted || !slices.Equal(th.Turns, []string{"turn-1"}) {
		t.Errorf("thread %+v", th)
	}
}

func TestFakeExecApproval(t *testing.T) {
	for _, decision := range []string{codex.DecisionAccept, codex.DecisionDecline} {
		t.Run(decision, func(t *testing.T) {
			f := codextest.NewFake(t)
			f.OnTurn(func(ft *codextest.FakeTurn) {
				got, err := ft.ExecWithApproval("touch x", 0, "made x\n")
				if err != nil {
					ft.AgentMessage("error: " + err.Error())
				} else {
					ft.AgentMessage("decision " + got)
				}
				ft.Complete(codex.TurnCompleted, nil)
			})
			var asked *codex.CommandApprovalParams
			c := start(t, f, codex.Options{OnRequest: func(ctx context.Context, req *codex.Request) (any, error) {
				v, err := codex.DecodeRequest(req)
				if err != nil {
					return nil, err
				}
				asked, _ = v.(*codex.CommandApprovalParams)
				return codex.ApprovalResponse{Decision: decision}, nil
			}})
			r := runTurn(t, c, startThread(t, c), "touch x")
			r.status(t, codex.TurnCompleted)

			if msgs := r.items(codex.NotifyItemCompleted, codex.ItemAgentMessage); len(msgs) != 1 || msgs[0].Text != "decision "+decision {
				t.Fatalf("agent messages %+v", msgs)
			}
			started := r.items(codex.NotifyItemStarted, codex.ItemCommandExecution)
			done := r.items(codex.NotifyItemCompleted, codex.ItemCommandExecution)
			if asked == nil || len(started) != 1 || started[0].ID != asked.ItemID || asked.Command != "touch x" ||
				asked.TurnID != r.turn.ID || asked.Cwd != "/project" {
				t.Fatalf("approval %+v for items %+v", asked, started)
			}
			wantStatus, wantOutput := codex.ItemCompleted, "made x\n"
			if decision == codex.DecisionDecline {
				wantStatus, wantOutput = codex.ItemDeclined, ""
			}
			if len(done) != 1 || done[0].Status != wantStatus || r.deltas(codex.NotifyCommandOutputDelta) != wantOutput {
				t.Fatalf("completed commands %+v, output %q", done, r.deltas(codex.NotifyCommandOutputDelta))
			}
			resolved, completed := -1, -1
			for i, ev := range r.events {
				if v, ok := ev.Value.(*codex.ItemParams); ok && ev.Method == codex.NotifyItemCompleted && v.Item.Type == codex.ItemCommandExecution {
					completed = i
				}
				if ev.Method == codex.NotifyServerRequestResolved {
					resolved = i
				}
			}
			if resolved < 0 || resolved > completed {
				t.Fatalf("want serverRequest/resolved before the command completes: %v", methods(r.events))
			}
		})
	}
}

func TestFakeApprovalOrder(t *testing.T) {
	f := codextest.NewFake(t)
	f.OnTurn(func(ft *codextest.FakeTurn) {
		var change codex.FileChange
		change.Path, change.Kind.Type, change.Diff = "/project/a.txt", "add", "hello\n"
		if _, err := ft.RequestPatchApproval([]codex.FileChange{change}, "", ""); err != nil {
			ft.AgentMessage(err.Error())
		}
		if _, err := ft.RequestExecApproval("ls"); err != nil {
			ft.AgentMessage(err.Error())
		}
	})
	var seen log
	c := start(t, f, codex.Options{
		OnNotification: func(ev codex.Event) {
			if v, ok := ev.Value.(*codex.ItemParams); ok {
				seen.add(ev.Method + " " + v.Item.Type + " " + v.Item.Status)
			} else {
				seen.add(ev.Method)
			}
		},
		OnRequest: func(ctx context.Context, req *codex.Request) (any, error) {
			seen.add("request " + req.Method)
			return codex.ApprovalResponse{Decision: codex.DecisionAcceptForSession}, nil
		},
	})
	r := runTurn(t, c, startThread(t, c), "edit")
	r.status(t, codex.TurnCompleted)
	want := []string{
		"item/started fileChange inProgress",
		"request " + codex.RequestFileChangeApproval,
		"item/completed fileChange completed",
		"item/started commandExecution inProgress",
		"request " + codex.RequestCommandApproval,
		"item/completed commandExecution completed",
		codex.NotifyTurnCompleted,
	}
	for i := 1; i < len(want); i++ {
		if a, b := seen.index(want[i-1]), seen.index(want[i]); a < 0 || b < 0 || a > b {
			t.Fatalf("want %q before %q in %q", want[i-1], want[i], seen.entries)
		}
	}
	// Each approval is resolved after its answer and before its item completes.
	seen.mu.Lock()
	defer seen.mu.Unlock()
	var resolved []int
	for i, e := range seen.entries {
		if e == codex.NotifyServerRequestResolved {
			resolved = append(resolved, i)
		}
	}
	if len(resolved) != 2 || resolved[0] > slices.Index(seen.entries, "item/completed fileChange completed") {
		t.Fatalf("serverRequest/resolved at %v in %q", resolved, seen.entries)
	}
}

func TestFakeInterrupt(t *testing.T) {
	f := codextest.NewFake(t)
	f.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage("working")
		ft.CompleteOnInterrupt()
	})
	c := start(t, f, codex.Options{})
	threadID := startThread(t, c)
	turn, sub := startTurn(t, c, threadID, "work")
	if _, err := f.WaitRequest(testContext(t), codex.MethodTurnStart, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.InterruptTurn(testContext(t), threadID, turn.ID); err != nil {
		t.Fatal(err)
	}
	r := collect(t, turn, sub)
	r.status(t, codex.TurnInterrupted)
	if len(r.done.Turn.Items) != 0 {
		t.Errorf("interrupted turn items %+v", r.done.Turn.Items)
	}
	wantRPCError(t, c.InterruptTurn(testContext(t), threadID, turn.ID), "no active turn to interrupt")
	wantRPCError(t, c.InterruptTurn(testContext(t), threadID, "turn-99"), "no active turn to interrupt")
}

func TestFakeInterruptWithdrawsApproval(t *testing.T) {
	f := codextest.NewFake(t)
	handlerErr := make(chan error, 1)
	f.OnTurn(func(ft *codextest.FakeTurn) {
		_, err := ft.RequestExecApproval("sleep 30")
		handlerErr <- err
		// Returning completes the interrupted turn.
	})
	var seen log
	asked := make(chan struct{})
	withdrawn := make(chan struct{})
	c := start(t, f, codex.Options{
		OnNotification: func(ev codex.Event) { seen.add(ev.Method) },
		OnRequest: func(ctx context.Context, req *codex.Request) (any, error) {
			close(asked)
			<-ctx.Done() // a person who never answers
			close(withdrawn)
			return nil, ctx.Err()
		},
	})
	threadID := startThread(t, c)
	turn, sub := startTurn(t, c, threadID, "sleep")
	<-asked
	if err := c.InterruptTurn(testContext(t), threadID, turn.ID); err != nil {
		t.Fatal(err)
	}
	r := collect(t, turn, sub)
	r.status(t, codex.TurnInterrupted)
	if err := <-handlerErr; !errors.Is(err, codextest.ErrInterrupted) {
		t.Fatalf("handler's approval ended with %v", err)
	}
	select {
	case <-withdrawn:
	case <-time.After(timeout):
		t.Fatal("the approval was never withdrawn")
	}
	if a, b := seen.index(codex.NotifyTurnCompleted), seen.index(codex.NotifyServerRequestResolved); a < 0 || b < a {
		t.Fatalf("want turn/completed before serverRequest/resolved: %q", seen.entries)
	}
}

func TestFakeSteer(t *testing.T) {
	f := codextest.NewFake(t)
	f.OnTurn(func(ft *codextest.FakeTurn) {
		var got []string
		for len(got) < 2 {
			select {
			case s := <-ft.Steered():
				got = append(got, s)
			case <-ft.Done():
				return
			}
		}
		ft.AgentMessage(ft.Prompt + "|" + strings.Join(got, "|"))
		ft.Complete(codex.TurnCompleted, nil)
	})
	c := start(t, f, codex.Options{})
	threadID := startThread(t, c)
	turn, sub := startTurn(t, c, threadID, "first")

	steered, err := c.SteerTurn(testContext(t), codex.TurnSteerParams{
		ThreadID: threadID, ExpectedTurnID: turn.ID, Input: []codex.UserInput{codex.TextInput("more")},
	})
	if err != nil || steered != turn.ID {
		t.Fatalf("steer: %q, %v", steered, err)
	}
	_, err = c.SteerTurn(testContext(t), codex.TurnSteerParams{
		ThreadID: threadID, ExpectedTurnID: "turn-42", Input: []codex.UserInput{codex.TextInput("x")},
	})
	wantRPCError(t, err, "expected active turn id `turn-42` but found `"+turn.ID+"`")

	// A turn/start while the turn runs joins it, as codex does.
	again, sub2 := startTurn(t, c, threadID, "second")
	if again.ID != turn.ID {
		t.Fatalf("turn/start during a turn answered turn %s, want %s", again.ID, turn.ID)
	}
	sub2.Close()

	r := collect(t, turn, sub)
	r.status(t, codex.TurnCompleted)
	if msgs := r.items(codex.NotifyItemCompleted, codex.ItemAgentMessage); len(msgs) != 1 || msgs[0].Text != "first|more|second" {
		t.Fatalf("agent messages %+v", msgs)
	}
	_, err = c.SteerTurn(testContext(t), codex.TurnSteerParams{
		ThreadID: threadID, ExpectedTurnID: turn.ID, Input: []codex.UserInput{codex.TextInput("late")},
	})
	wantRPCError(t, err, "no active turn to steer")
}

// TestFakeThreadTurnsList: thread/turns/list answers a thread's turns with every item they
// completed, newest first (or oldest with sortDirection asc), a page at a time; after a restart
// too, and without the turns thread/revert took out.
func TestFakeThreadTurnsList(t *testing.T) {
	f := codextest.NewFake(t)
	c := start(t, f, codex.Options{})
	threadID := startThread(t, c)
	f.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("go test", 1, "FAIL\n")
		ft.AgentMessage("answer to " + ft.Prompt)
		ft.Complete(codex.TurnCompleted, nil)
	})
	runTurn(t, c, threadID, "first").status(t, codex.TurnCompleted)
	runTurn(t, c, threadID, "second").status(t, codex.TurnCompleted)
	runTurn(t, c, threadID, "third").status(t, codex.TurnCompleted)

	list := func(c *codex.Client, p codex.ThreadTurnsListParams) codex.ThreadTurnsListResponse {
		t.Helper()
		var res codex.ThreadTurnsListResponse
		if err := c.Call(testContext(t), "thread/turns/list", p, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	page := list(c, codex.ThreadTurnsListParams{ThreadID: threadID, Limit: 2})
	if len(page.Data) != 2 || page.Data[0].ID != "turn-3" || page.Data[1].ID != "turn-2" || page.NextCursor == "" {
		t.Fatalf("first page: %+v", page)
	}
	last := page.Data[0]
	if last.Status != codex.TurnCompleted || len(last.Items) != 3 {
		t.Fatalf("turn-3: %+v", last)
	}
	if it := last.Items[0]; it.Type != codex.ItemUserMessage || !strings.Contains(string(it.Content), `"third"`) {
		t.Errorf("first item %+v", it)
	}
	if it := last.Items[1]; it.Type != codex.ItemCommandExecution || it.Command != "go test" || it.ExitCode == nil || *it.ExitCode != 1 {
		t.Errorf("second item %+v", it)
	}
	if it := last.Items[2]; it.Type != codex.ItemAgentMessage || it.Text != "answer to third" {
		t.Errorf("third item %+v", it)
	}
	rest := list(c, codex.ThreadTurnsListParams{ThreadID: threadID, Limit: 2, Cursor: page.NextCursor})
	if len(rest.Data) != 1 || rest.Data[0].ID != "turn-1" || rest.NextCursor != "" {
		t.Fatalf("second page: %+v", rest)
	}

	if err := c.Call(testContext(t), codex.MethodThreadRevert, codex.ThreadRevertParams{ThreadID: threadID, BeforeTurnID: "turn-3"}, nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	again := start(t, f, codex.Options{})
	asc := list(again, codex.ThreadTurnsListParams{ThreadID: threadID, SortDirection: "asc"})
	if len(asc.Data) != 2 || asc.Data[0].ID != "turn-1" || asc.Data[1].ID != "turn-2" {
		t.Fatalf("after revert and restart: %+v", asc)
	}
	var res codex.ThreadTurnsListResponse
	wantRPCError(t, again.Call(testContext(t), "thread/turns/list", codex.ThreadTurnsListParams{ThreadID: "thread-9"}, &res), "no rollout")
}
