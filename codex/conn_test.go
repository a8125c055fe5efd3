package codex_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// peer is the server side of a Conn under test: it reads the client's lines and writes raw lines.
type peer struct {
	t     *testing.T
	lines *bufio.Scanner
	w     *io.PipeWriter
	r     *io.PipeReader
}

func newConnPair(t *testing.T, opts codex.ConnOptions) (*codex.Conn, *peer) {
	t.Helper()
	clientR, clientW, serverR, serverW := codextest.Pipes()
	conn := codex.NewConn(clientR, clientW, opts)
	p := &peer{t: t, lines: bufio.NewScanner(serverR), w: serverW, r: serverR}
	t.Cleanup(func() {
		_ = serverW.Close()
		_ = serverR.Close()
		_ = conn.Close()
	})
	return conn, p
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatalf("peer write: %v", err)
	}
}

// next reads the client's next message.
func (p *peer) next() map[string]json.RawMessage {
	p.t.Helper()
	if !p.lines.Scan() {
		p.t.Fatalf("peer read: %v", p.lines.Err())
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(p.lines.Bytes(), &m); err != nil {
		p.t.Fatalf("client sent %q: %v", p.lines.Text(), err)
	}
	return m
}

func TestConnCallResultAndErrors(t *testing.T) {
	conn, p := newConnPair(t, codex.ConnOptions{})
	ctx := t.Context()

	type result struct {
		Answer int `json:"answer"`
	}
	got := make(chan error, 1)
	var res result
	go func() { got <- conn.Call(ctx, "thing/do", map[string]int{"x": 1}, &res) }()
	req := p.next()
	if string(req["method"]) != `"thing/do"` || string(req["params"]) != `{"x":1}` {
		t.Fatalf("request on the wire: %v", req)
	}
	if _, ok := req["jsonrpc"]; ok {
		t.Errorf("client wrote a jsonrpc member; codex does not use it")
	}
	// The answer carries "jsonrpc" and unknown members: both tolerated.
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"answer":42,"extra":true},"emittedAtMs":1}`, req["id"]))
	if err := <-got; err != nil || res.Answer != 42 {
		t.Fatalf("call: %v, %+v", err, res)
	}

	go func() { got <- conn.Call(ctx, "thing/fail", nil, nil) }()
	req = p.next()
	p.send(fmt.Sprintf(`{"id":%s,"error":{"code":-32600,"message":"no active turn","data":{"why":"idle"}}}`, req["id"]))
	err := <-got
	var rpcErr *codex.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32600 || rpcErr.Message != "no active turn" || string(rpcErr.Data) != `{"why":"idle"}` {
		t.Fatalf("error answer: %#v", err)
	}
}

func TestConnCallContext(t *testing.T) {
	conn, p := newConnPair(t, codex.ConnOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan error, 1)
	go func() { got <- conn.Call(ctx, "slow", nil, nil) }()
	p.next() // the request is out; the peer never answers
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestConnServerRequestsAlwaysAnswered(t *testing.T) {
	tests := []struct {
		name     string
		handler  codex.RequestHandler
		wantCode int64
		wantRes  string
	}{
		{name: "no handler", handler: nil, wantCode: codex.CodeMethodNotFound},
		{name: "result", handler: func(context.Context, *codex.Request) (any, error) {
			return codex.ApprovalResponse{Decision: codex.DecisionAccept}, nil
		}, wantRes: `{"decision":"accept"}`},
		{name: "typed error", handler: func(context.Context, *codex.Request) (any, error) {
			return nil, codex.Errorf(codex.CodeInvalidParams, "bad")
		}, wantCode: codex.CodeInvalidParams},
		{name: "plain error", handler: func(context.Context, *codex.Request) (any, error) {
			return nil, errors.New("oops")
		}, wantCode: codex.CodeInternalError},
		{name: "panic", handler: func(context.Context, *codex.Request) (any, error) {
			panic("handler bug")
		}, wantCode: codex.CodeInternalError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := newConnPair(t, codex.ConnOptions{OnRequest: tt.handler})
			p.send(`{"id":7,"method":"item/commandExecution/requestApproval","params":{"itemId":"call_1"}}`)
			reply := p.next()
			if string(reply["id"]) != "7" {
				t.Fatalf("reply id %s, want 7", reply["id"])
			}
			if tt.wantCode != 0 {
				var e codex.Error
				if err := json.Unmarshal(reply["error"], &e); err != nil || e.Code != tt.wantCode {
					t.Fatalf("reply %v, want error code %d", reply, tt.wantCode)
				}
				return
			}
			if string(reply["result"]) != tt.wantRes {
				t.Fatalf("result %s, want %s", reply["result"], tt.wantRes)
			}
		})
	}
}

func TestConnNotificationsInOrderAndBadLines(t *testing.T) {
	const n = 2000
	var (
		mu   sync.Mutex
		seen []string
		bad  []string
		all  = make(chan struct{})
	)
	_, p := newConnPair(t, codex.ConnOptions{
		MaxLine: 1024,
		OnNotification: func(nt codex.Notification) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, string(nt.Params))
			if len(seen) == n {
				close(all)
			}
		},
		OnBadLine: func(line string) {
			mu.Lock()
			defer mu.Unlock()
			bad = append(bad, line)
		},
	})
	p.send("WARN codex starting up")                                              // plain text on stdout
	p.send(`{"method":"x","params":{"pad":"` + strings.Repeat("a", 2000) + `"}}`) // over MaxLine: dropped
	p.send(`[1,2,3]`)
	for i := range n {
		p.send(fmt.Sprintf(`{"method":"item/agentMessage/delta","params":{"i":%d},"emittedAtMs":5}`, i))
	}
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		t.Fatal("notifications did not all arrive")
	}
	mu.Lock()
	defer mu.Unlock()
	for i, s := range seen {
		if s != fmt.Sprintf(`{"i":%d}`, i) {
			t.Fatalf("notification %d is %s: out of order", i, s)
		}
	}
	if len(bad) != 3 || bad[0] != "WARN codex starting up" {
		t.Fatalf("bad lines: %q", bad)
	}
}

func TestConnPeerGone(t *testing.T) {
	conn, p := newConnPair(t, codex.ConnOptions{})
	got := make(chan error, 1)
	go func() { got <- conn.Call(t.Context(), "never/answered", nil, nil) }()
	p.next()
	_ = p.w.Close() // codex's stdout ends
	if err := <-got; !errors.Is(err, codex.ErrClosed) {
		t.Fatalf("pending call: want ErrClosed, got %v", err)
	}
	<-conn.Done()
	if err := conn.Call(t.Context(), "after", nil, nil); !errors.Is(err, codex.ErrClosed) {
		t.Fatalf("call after the end: want ErrClosed, got %v", err)
	}
}

func TestTail(t *testing.T) {
	tail := codex.NewTail(4)
	if _, err := tail.ReadFrom(strings.NewReader("one\nt\x1b[31mw\x1b[0mo\r\nthree\nfour\nfive")); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tail.Lines(), ","); got != "two,three,four,five" {
		t.Fatalf("lines %q", got)
	}
	if got := tail.Last(2); got != "four\nfive" {
		t.Fatalf("last %q", got)
	}
	long := codex.NewTail(2)
	_, _ = long.ReadFrom(strings.NewReader(strings.Repeat("x", 100_000) + "\nend\n"))
	lines := long.Lines()
	if len(lines) != 2 || len(lines[0]) > 5000 || lines[1] != "end" {
		t.Fatalf("long line not cut: %d lines, first %d bytes", len(lines), len(lines[0]))
	}
}
