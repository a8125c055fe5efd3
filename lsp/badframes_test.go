package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/lsp"
)

// rawClient speaks LSP frames by hand, to send what no well-behaved client would.
type rawClient struct {
	t    *testing.T
	conn io.ReadWriteCloser // a net.Conn gets read deadlines
	r    *bufio.Reader
}

// deadline bounds the next reads, when the connection can.
func (c *rawClient) deadline(d time.Duration) {
	if dc, ok := c.conn.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = dc.SetReadDeadline(time.Now().Add(d))
	}
}

func (c *rawClient) send(raw string) {
	c.t.Helper()
	if _, err := io.WriteString(c.conn, raw); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *rawClient) frame(body string) {
	c.t.Helper()
	c.send(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// reply reads frames until one is a response (server requests and notifications are skipped).
func (c *rawClient) reply() map[string]json.RawMessage {
	c.t.Helper()
	c.deadline(20 * time.Second)
	tp := textproto.NewReader(c.r)
	for {
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			c.t.Fatalf("read header: %v", err)
		}
		n, err := strconv.Atoi(h.Get("Content-Length"))
		if err != nil {
			c.t.Fatalf("bad Content-Length from the server: %v", err)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(c.r, body); err != nil {
			c.t.Fatalf("read body: %v", err)
		}
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(body, &msg); err != nil {
			c.t.Fatalf("the server wrote invalid JSON %q: %v", body, err)
		}
		if _, isCall := msg["method"]; !isCall {
			return msg
		}
	}
}

func errorCode(msg map[string]json.RawMessage) int {
	var e struct {
		Code int `json:"code"`
	}
	_ = json.Unmarshal(msg["error"], &e)
	return e.Code
}

// serveRaw serves a server on a pipe and returns a raw client for it.
func serveRaw(t *testing.T, opts lsp.Options) (*rawClient, chan error) {
	t.Helper()
	fake := codextest.NewFake(t)
	opts.StartCodex = fake.Start
	srv := lsp.NewServer(opts)
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	t.Cleanup(func() {
		_ = clientEnd.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop")
		}
	})
	return &rawClient{t: t, conn: clientEnd, r: bufio.NewReader(clientEnd)}, served
}

// TestBadFramesKeepTheServerAnswering: an invalid JSON body, ids that are objects or arrays, a
// header line over 8 KiB and a body announced at 100 MiB each get an error reply (or are skipped),
// and the server goes on answering on the same connection.
func TestBadFramesKeepTheServerAnswering(t *testing.T) {
	c, _ := serveRaw(t, lsp.Options{})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":"file://` + t.TempDir() + `","initializationOptions":{"stateDir":"` + t.TempDir() + `"}}}`
	c.frame(init)
	if msg := c.reply(); string(msg["id"]) != "1" || msg["result"] == nil {
		t.Fatalf("initialize: %v", msg)
	}
	c.frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)

	status := func(id int) {
		t.Helper()
		c.frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":{"command":"hermes.status"}}`, id))
		msg := c.reply()
		if string(msg["id"]) != strconv.Itoa(id) || msg["result"] == nil {
			t.Fatalf("the server stopped answering after bad input: %v", msg)
		}
	}
	cases := []struct {
		name string
		send func()
		code int // the error reply expected, 0 for none
		id   string
	}{
		{"invalid JSON with an id", func() { c.frame(`{"jsonrpc":"2.0","id":7,"method":"x","params":{oops}`) }, -32700, "7"},
		{"invalid JSON without an id", func() { c.frame(`{{{{`) }, 0, ""},
		{"object id", func() { c.frame(`{"jsonrpc":"2.0","id":{"a":1},"method":"workspace/executeCommand","params":{}}`) }, -32600, "null"},
		{"array id", func() { c.frame(`{"jsonrpc":"2.0","id":[1],"method":"shutdown"}`) }, -32600, "null"},
		{"header line over 8 KiB", func() { c.send("X-Junk: " + strings.Repeat("a", 9000) + "\r\n\r\n") }, -32600, "null"},
		{"100 MiB body", func() {
			c.send("Content-Length: 104857600\r\n\r\n")
			chunk := strings.Repeat(" ", 1<<20)
			for range 100 {
				c.send(chunk)
			}
		}, -32600, "null"},
	}
	for i, tc := range cases {
		tc.send()
		if tc.code != 0 {
			msg := c.reply()
			if errorCode(msg) != tc.code || string(msg["id"]) != tc.id {
				t.Errorf("%s: reply %v, want code %d id %s", tc.name, msg, tc.code, tc.id)
			}
		}
		status(100 + i)
	}
}

// TestSocketHandshake: on a socket connection (a token, a handshake timeout) the first message
// must be initialize with the token; anything else, or a wrong token, closes the connection, and
// a client that says nothing is closed after the timeout.
func TestSocketHandshake(t *testing.T) {
	opts := lsp.Options{Token: "s3cret", HandshakeTimeout: 300 * time.Millisecond, CloseOnOversizedFrame: true}
	closed := func(c *rawClient) bool {
		c.deadline(10 * time.Second)
		_, err := c.r.ReadByte()
		return err != nil && !strings.Contains(err.Error(), "deadline")
	}
	initWith := func(token string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"initializationOptions":{"hermes":{"token":"` + token + `","codex":{"path":"/tmp/planted"}}}}}`
	}
	t.Run("no initialize first", func(t *testing.T) {
		c, _ := serveRaw(t, opts)
		c.frame(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)
		if !closed(c) {
			t.Fatal("a request before initialize did not close the connection")
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		c, _ := serveRaw(t, opts)
		c.frame(initWith("guess"))
		if !closed(c) {
			t.Fatal("a wrong token did not close the connection")
		}
	})
	t.Run("idle", func(t *testing.T) {
		c, _ := serveRaw(t, opts)
		if !closed(c) {
			t.Fatal("an idle connection was not closed")
		}
	})
	t.Run("oversized frame closes", func(t *testing.T) {
		c, served := serveRaw(t, lsp.Options{CloseOnOversizedFrame: true})
		go func() { _, _ = io.WriteString(c.conn, "Content-Length: 104857600\r\n\r\n") }()
		if !closed(c) {
			t.Fatal("an oversized frame did not close the socket connection")
		}
		select {
		case err := <-served:
			served <- err // for the cleanup
		case <-time.After(5 * time.Second):
			t.Fatal("Serve did not return")
		}
	})
	t.Run("good token", func(t *testing.T) {
		c, _ := serveRaw(t, opts)
		c.frame(initWith("s3cret"))
		msg := c.reply()
		if string(msg["id"]) != "1" || msg["result"] == nil {
			t.Fatalf("initialize with the token: %v", msg)
		}
		if !strings.Contains(string(msg["result"]), "hermes-lsp") {
			t.Errorf("initialize result %s", msg["result"])
		}
	})
}
