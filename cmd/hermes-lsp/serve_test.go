//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/hermes-lsp/hermes-lsp/lsp"
)

// readToEnd reads until the server closes c and says what went wrong: messages it was sent, or a
// connection left open. Unlike readUntilClosed it may run on any goroutine.
func readToEnd(c *client) string {
	got := 0
	for {
		_, err := c.read()
		if err == nil {
			got++
			continue
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			return fmt.Sprintf("the server did not close the connection (sent %d messages)", got)
		}
		if got > 0 {
			return fmt.Sprintf("the server sent %d messages before closing the connection", got)
		}
		return ""
	}
}

// logWatch is a log a test can wait on.
type logWatch struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed (and replaced) at each write
}

func newLogWatch() *logWatch { return &logWatch{changed: make(chan struct{})} }

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.changed)
	w.changed = make(chan struct{})
	return w.b.Write(p)
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// wait waits until the log matches re.
func (w *logWatch) wait(t *testing.T, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		w.mu.Lock()
		ok, changed := rx.Match(w.b.Bytes()), w.changed
		w.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("no log line matching %q in 10s; log:\n%s", re, w.String())
		}
	}
}

// serveForTest runs acceptLoop with the socket options serveSocket sets, on a loopback TCP
// listener, until the test ends. It returns the address and the log.
func serveForTest(t *testing.T) (address string, logs *logWatch) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", home+"/state")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs = newLogWatch()
	opts := lsp.Options{
		CodexPath:             "/nonexistent/codex",
		HandshakeTimeout:      time.Minute, // the idle clients here stay unadmitted for the whole test
		HandshakeMaxBody:      handshakeMaxBody,
		CloseOnOversizedFrame: true,
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg conc.WaitGroup
	wg.Go(func() { acceptLoop(ctx, ln, opts, slog.New(slog.NewTextHandler(logs, nil))) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	return ln.Addr().String(), logs
}

// TestUnadmittedCap: while eight connections have not sent their initialize, a ninth is closed at
// once, with a log line; a slot is free again when one of them initializes or ends.
func TestUnadmittedCap(t *testing.T) {
	address, logs := serveForTest(t)
	folder := t.TempDir()
	refused := func(name string) {
		t.Helper()
		c := dial(t, "tcp", address)
		if r := readToEnd(c); r != "" {
			t.Fatalf("%s: %s", name, r)
		}
	}
	admittedOK := func(c *client) {
		t.Helper()
		if err := c.initialize(folder, nil); err != nil {
			t.Fatal(err)
		}
		if name := serverName(t, c.reply(1)); name != "hermes-lsp" {
			t.Fatalf("serverInfo.name = %q", name)
		}
	}

	idle := make([]*client, maxUnadmitted)
	for i := range idle {
		idle[i] = dial(t, "tcp", address) // accepted in order: the listener's queue is first in, first out
	}
	refused("the ninth connection")
	logs.wait(t, `closing a new connection: too many others have not sent their initialize yet`)

	// One initializes: its slot goes to the next connection, and only to it.
	admittedOK(idle[0])
	next := dial(t, "tcp", address)
	refused("a connection after the freed slot was taken")

	// One ends (its first message is not initialize): its slot is free once its session has ended.
	if err := idle[1].send(map[string]any{"id": 1, "method": "shutdown"}); err != nil {
		t.Fatal(err)
	}
	if r := readToEnd(idle[1]); r != "" {
		t.Fatal(r)
	}
	logs.wait(t, `msg="client session ended" conn=2\b`)
	admittedOK(dial(t, "tcp", address))

	admittedOK(next) // taken in its turn, it was served as any other
}

// TestHandshakeFrameLimit: before its initialize a socket client may send no frame over 64 KiB (the
// connection is closed unanswered); an initialize of 64 KiB is served, and after it the usual
// limits apply.
func TestHandshakeFrameLimit(t *testing.T) {
	address, logs := serveForTest(t)
	folder := t.TempDir()
	// paddedInitialize is an initialize whose body is exactly size bytes.
	paddedInitialize := func(c *client, size int) error {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://%s","capabilities":{},"pad":"`, folder)
		body := head + strings.Repeat("a", size-len(head)-3) + `"}}`
		_, err := fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
		return err
	}

	over := dial(t, "tcp", address)
	_ = paddedInitialize(over, handshakeMaxBody+1)
	if r := readToEnd(over); r != "" {
		t.Errorf("an initialize of 64 KiB + 1: %s", r)
	}
	logs.wait(t, `over the limit of 65536 before the peer was admitted`)

	c := dial(t, "tcp", address)
	if err := paddedInitialize(c, handshakeMaxBody); err != nil {
		t.Fatal(err)
	}
	if name := serverName(t, c.reply(1)); name != "hermes-lsp" {
		t.Fatalf("serverInfo.name = %q", name)
	}
	_ = c.send(map[string]any{"method": "initialized", "params": map[string]any{}})
	text := strings.Repeat("x", 4<<20)
	if err := c.send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": "file://" + folder + "/big.txt", "languageId": "plaintext", "version": 1, "text": text,
	}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.send(map[string]any{"id": 2, "method": "shutdown"}); err != nil {
		t.Fatal(err)
	}
	if m := c.reply(2); len(m.Error) > 0 {
		t.Errorf("shutdown after a 4 MiB didOpen: %s", m.Error)
	}
}
