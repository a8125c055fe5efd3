package agenthost_test

// Fault tests of the agent host: a codex that stops answering, one that writes garbage between its
// messages, and a thousand turns in a row with goroutines, open files and heap flat.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/leak"
)

// TestFaultCodexStopsAnswering: codex answers nothing any more, mid-turn or between turns. The turn
// timeout bounds every wait: the turn ends partial, or starting (steering, compacting) fails with
// "codex did not answer", and codex is retired so the next turn runs on a new one.
func TestFaultCodexStopsAnswering(t *testing.T) {
	const timeout = 300 * time.Millisecond
	withTimeout := func(c *agenthost.Config) { c.TurnTimeout = timeout }

	t.Run("mid-turn", func(t *testing.T) {
		t.Parallel()
		// The turn starts under the default timeout, and the short one is set once codex has gone
		// silent: the deadline that fires is the fault's, never a slow start's.
		fh := newFakeHost(t, nil)
		stalled := make(chan struct{})
		fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
			ft.AgentMessage("so far")
			fh.fake.Stall()
			close(stalled)
			<-ft.Done()
		})
		s := fh.session(t)
		turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "work"})
		if err != nil {
			t.Fatal(err)
		}
		// The runner, whose deadline follows the timeout, has begun once it passes an answer on.
		for evs := turn.Events(); ; {
			ev, ok := recvOrClosed(t, evs)
			if !ok {
				t.Fatal("the turn ended before its answer")
			}
			if ev.Kind == hermesproto.EventKindAnswerDelta {
				break
			}
		}
		recv(t, stalled, "codex to stop answering")
		reconfigure(t, fh, timeout)
		res, _ := finish(t, turn)
		if res.Completed || !res.Partial || !res.Retired || res.FinalText != "so far" ||
			!strings.Contains(res.Error, "turn timed out") || !strings.Contains(res.Error, "did not confirm the interrupt") {
			t.Errorf("result: %+v", res)
		}
		reconfigure(t, fh, 0) // the next turn starts a new codex under the default timeout
		fh.fake.OnTurn(nil)
		if next, _ := run(t, s, "again"); !next.Completed || len(fh.fake.Starts()) != 2 {
			t.Errorf("next turn: %+v, starts %d", next, len(fh.fake.Starts()))
		}
	})

	for _, op := range []string{"start", "steer", "compact"} {
		t.Run("at "+op, func(t *testing.T) {
			t.Parallel()
			fh := newFakeHost(t, withTimeout)
			s := fh.session(t)
			if res, _ := run(t, s, "first"); !res.Completed {
				t.Fatalf("first turn: %+v", res)
			}
			var running *agenthost.Turn
			if op == "steer" {
				started := make(chan struct{})
				fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
					close(started)
					<-ft.Done()
				})
				turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "long"})
				if err != nil {
					t.Fatal(err)
				}
				recv(t, started, "the turn's start")
				running = turn
			}
			fh.fake.Stall()
			began := time.Now()
			var err error
			if op == "compact" {
				_, err = s.Compact(t.Context())
			} else {
				_, err = s.Run(t.Context(), agenthost.Input{Prompt: "second"})
			}
			if took := time.Since(began); err == nil || !strings.Contains(err.Error(), "codex did not answer") || took > 5*timeout {
				t.Fatalf("%s on a silent codex: %v after %v", op, err, took)
			}
			if fh.Running() {
				t.Error("the silent codex was not retired")
			}
			if running != nil {
				// The running turn's codex is gone: it ends, partial, and says so.
				if res, _ := finish(t, running); res.Completed || !res.Partial {
					t.Errorf("the running turn after the retirement: %+v", res)
				}
			}
			fh.fake.OnTurn(nil)
			if next, _ := run(t, s, "third"); !next.Completed || len(fh.fake.Starts()) != 2 {
				t.Errorf("next turn: %+v, starts %d", next, len(fh.fake.Starts()))
			}
		})
	}
}

// reconfigure sets the turn timeout of fh's host (0: the default), its other settings as
// newFakeHost made them.
func reconfigure(t *testing.T, fh *fakeHost, turnTimeout time.Duration) {
	t.Helper()
	if err := fh.Reconfigure(agenthost.Config{CodexPath: "/opt/codex/bin/codex", TurnTimeout: turnTimeout}); err != nil {
		t.Fatal(err)
	}
}

// rawCodex is a codex app-server played line by line, so that a test can write anything on its
// stdout: it answers initialize, thread/start and turn/start, then plays script for the turn.
type rawCodex struct {
	t      *testing.T
	script func(p *rawCodex)

	wmu sync.Mutex
	w   io.WriteCloser

	mu      sync.Mutex
	answers map[string]json.RawMessage // the client's answers to our requests, by id
	got     chan struct{}              // signalled when an answer arrives
	wg      sync.WaitGroup
}

// start has the signature of codex.Start: it connects a client to a new rawCodex.
func (p *rawCodex) start(ctx context.Context, opts codex.Options) (*codex.Client, error) {
	clientR, clientW, serverR, serverW := codextest.Pipes()
	p.w = serverW
	p.wg.Go(func() { p.serve(serverR) })
	p.t.Cleanup(func() {
		_ = serverW.Close()
		_ = serverR.Close()
		p.wg.Wait()
	})
	return codex.NewClient(ctx, clientR, clientW, opts)
}

// line writes one line as is.
func (p *rawCodex) line(s string) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, _ = io.WriteString(p.w, s+"\n")
}

func (p *rawCodex) serve(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "" && len(m.ID) > 0:
			p.mu.Lock()
			p.answers[string(m.ID)] = append(json.RawMessage(nil), sc.Bytes()...)
			p.mu.Unlock()
			select {
			case p.got <- struct{}{}:
			default:
			}
		case m.Method == codex.MethodInitialize:
			p.line(`{"id":` + string(m.ID) + `,"result":{"userAgent":"raw/0.171.0","codexHome":"/raw","platformFamily":"unix","platformOs":"linux"}}`)
		case m.Method == codex.MethodThreadStart || m.Method == codex.MethodThreadResume:
			p.line(`{"id":` + string(m.ID) + `,"result":{"thread":{"id":"thr-1","cwd":"/raw"},"model":"m","modelProvider":"p","cwd":"/raw"}}`)
		case m.Method == codex.MethodTurnStart:
			p.line(`{"id":` + string(m.ID) + `,"result":{"turn":{"id":"turn-1","items":[],"status":"inProgress","error":null}}}`)
			p.wg.Go(func() { p.script(p) })
		case len(m.ID) > 0:
			p.line(`{"id":` + string(m.ID) + `,"error":{"code":-32600,"message":"unknown"}}`)
		}
	}
}

// waitAnswers waits until the client answered every request id.
func (p *rawCodex) waitAnswers(ids ...string) (map[string]json.RawMessage, bool) {
	deadline := time.After(10 * time.Second)
	for {
		p.mu.Lock()
		have := 0
		for _, id := range ids {
			if _, ok := p.answers[id]; ok {
				have++
			}
		}
		out := make(map[string]json.RawMessage, len(p.answers))
		for k, v := range p.answers {
			out[k] = v
		}
		p.mu.Unlock()
		if have == len(ids) {
			return out, true
		}
		select {
		case <-p.got:
		case <-deadline:
			return out, false
		}
	}
}

// TestFaultGarbageFromCodex: codex writes lines that are not messages (plain text, cut JSON, binary,
// JSON of the wrong shape, a 2 MB line, answers to requests never made, known notifications with
// malformed params, a turn/completed of another turn, requests with garbage params) between the
// messages of a turn. The turn completes as if they were not there, and every request is answered.
func TestFaultGarbageFromCodex(t *testing.T) {
	const ids = `"threadId":"thr-1","turnId":"turn-1"`
	garbage := []string{
		"WARN codex_core: plain text on stdout",
		`{"method":"item/agentMessage/delta","params":{` + ids + `,"itemId":"msg_1","delta":"cut`,
		"\x00\x01\x02 binary \xff\xfe\xfd",
		"null", "[]", "{}", "42", `"a string"`, "   ", "\r",
		`{"method":123,"params":{}}`,
		`{"id":999,"result":{"unexpected":true}}`,
		`{"id":null,"error":{"code":-1,"message":"nobody asked"}}`,
		`{"id":"str-id","result":null}`,
		`{"method":"item/completed","params":{` + ids + `,"item":"not an object"}}`,
		`{"method":"item/started","params":{` + ids + `,"item":{"type":"commandExecution","id":{"not":"a string"},"command":["not","a","string"]}}}`,
		`{"method":"turn/completed","params":{"threadId":"thr-1","turn":{"id":"turn-OTHER","status":"completed","items":[]}}}`,
		`{"method":"turn/completed","params":{"threadId":"thr-1","turn":5}}`,
		`{"method":"thread/tokenUsage/updated","params":{` + ids + `,"tokenUsage":"lots"}}`,
		`{"method":"codex/unknown` + "\xff" + `","params":{"x":1}}`,
		`{"jsonrpc":"2.0","method":"item/agentMessage/delta","params":null}`,
		`{"id":7,"method":"item/commandExecution/requestApproval","params":"garbage"}`,
		`{"id":8,"method":"some/unknownRequest","params":{"a":[1,2,3]}}`,
		`{"id":9,"method":"item/fileChange/requestApproval","params":{` + ids + `,"itemId":42}}`,
		strings.Repeat("x", 2<<20),
		`{"method":"item/agentMessage/delta","params":{` + ids + `,"itemId":"msg_1","delta":` + strings.Repeat("[", 10000) + `}}`,
	}
	turn := []string{
		`{"method":"turn/started","params":{"threadId":"thr-1","turn":{"id":"turn-1","items":[],"status":"inProgress","error":null}}}`,
		`{"method":"item/started","params":{` + ids + `,"item":{"type":"agentMessage","id":"msg_1","text":""}}}`,
		`{"method":"item/agentMessage/delta","params":{` + ids + `,"itemId":"msg_1","delta":"Hello"}}`,
		`{"method":"item/agentMessage/delta","params":{` + ids + `,"itemId":"msg_1","delta":", world"}}`,
		`{"method":"item/completed","params":{` + ids + `,"item":{"type":"agentMessage","id":"msg_1","text":"Hello, world"}}}`,
		`{"method":"item/started","params":{` + ids + `,"item":{"type":"commandExecution","id":"call_1","command":"ls","cwd":"/raw","status":"inProgress"}}}`,
		`{"method":"item/completed","params":{` + ids + `,"item":{"type":"commandExecution","id":"call_1","command":"ls","cwd":"/raw","status":"completed","exitCode":0,"aggregatedOutput":"a\n"}}}`,
		`{"method":"thread/tokenUsage/updated","params":{` + ids + `,"tokenUsage":{"total":{"totalTokens":10,"inputTokens":8,"outputTokens":2},"last":{"totalTokens":10,"inputTokens":8,"outputTokens":2},"modelContextWindow":1000}}}`,
	}
	done := `{"method":"turn/completed","params":{"threadId":"thr-1","turn":{"id":"turn-1","items":[],"status":"completed","error":null}}}`

	p := &rawCodex{t: t, answers: map[string]json.RawMessage{}, got: make(chan struct{}, 1)}
	p.script = func(p *rawCodex) {
		for i, msg := range turn {
			p.line(garbage[i%len(garbage)])
			p.line(msg)
		}
		for _, g := range garbage {
			p.line(g)
		}
		// The requests are answered before the turn ends, as codex waits for them.
		if _, ok := p.waitAnswers("7", "8", "9"); !ok {
			t.Error("codex's requests were not all answered")
		}
		p.line(done)
	}
	fh := newFakeHost(t, func(c *agenthost.Config) { c.StartCodex = p.start })
	res, events := run(t, fh.session(t), "hello")
	if !res.Completed || res.FinalText != "Hello, world" || res.ToolIterations != 1 || res.Usage.Total != 10 {
		t.Errorf("result: %+v", res)
	}
	var deltas []string
	for _, ev := range ofKind(events, hermesproto.EventKindAnswerDelta) {
		deltas = append(deltas, ev.Text)
	}
	if strings.Join(deltas, "|") != "Hello|, world" {
		t.Errorf("answer deltas: %q", deltas)
	}
	if n := len(ofKind(events, hermesproto.EventKindToolCompleted)); n != 1 {
		t.Errorf("tool events: %d", n)
	}
	answers, _ := p.waitAnswers("7", "8", "9")
	for id, want := range map[string]string{"7": `"decision":"decline"`, "8": `"error"`, "9": `"decision":"decline"`} {
		if !strings.Contains(string(answers[id]), want) {
			t.Errorf("answer to request %s: %s (want %s)", id, answers[id], want)
		}
	}
	if !fh.Running() {
		t.Error("codex was retired for garbage it wrote")
	}
}

// TestFaultThousandTurns runs 1000 turns one after another on the fake codex, each with a tool call
// and an answer, and checks that the host does not grow: goroutines, open file descriptors and the
// live heap after turn 1000 are those after turn 100, within a small tolerance. goleak (TestMain)
// checks that nothing is left once the host is closed.
func TestFaultThousandTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand turns; skipped with -short")
	}
	fh := newFakeHost(t, nil)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("go test ./...", 0, "ok\n")
		ft.AgentMessage("all good")
		u := codex.TokenUsage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110}
		ft.Usage(u, u, 258400)
		ft.Complete(codex.TurnCompleted, nil)
	})
	s := fh.session(t)
	var at100 leak.Sample
	for i := 1; i <= 1000; i++ {
		turn, err := s.Run(t.Context(), agenthost.Input{Prompt: fmt.Sprintf("turn %d", i)})
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if i%2 == 0 {
			for range turn.Events() { // half the callers read the events, half only wait
			}
		}
		res, err := turn.Wait(t.Context())
		if err != nil || !res.Completed {
			t.Fatalf("turn %d: %+v %v", i, res, err)
		}
		if i == 100 {
			at100 = leak.Take(t)
		}
	}
	at1000 := leak.Take(t)
	t.Logf("after 100 turns: %+v; after 1000: %+v", at100, at1000)
	// The fake codex records every request it gets (a few kB a turn); the host itself keeps a bounded
	// history. 900 more turns may add at most 4 MiB in all.
	leak.Check(t, at100, at1000, 4<<20)
	if st := s.Status(); st.Turns != 1000 || st.ToolIterations != 1000 {
		t.Errorf("status: %+v", st)
	}
}
