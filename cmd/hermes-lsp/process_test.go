//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

// This file runs the built hermes-lsp with --listen and talks to it with raw bytes, as an attacker
// or an editor on the same machine would.

// server is a running hermes-lsp. Its stderr (the log) is collected as it comes.
type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	wg     conc.WaitGroup // the goroutine that reads stderr and then waits for the process
	exited chan struct{}
	state  *os.ProcessState

	mu      sync.Mutex
	log     strings.Builder
	changed chan struct{} // closed (and replaced) when more log arrives
}

// startServer runs the binary with args and env (added to ours) and stops it, by its pid, when the
// test ends.
func startServer(t *testing.T, env []string, args ...string) *server {
	t.Helper()
	bin := testbin.HermesLSP(t)
	home := t.TempDir()
	s := &server{t: t, exited: make(chan struct{}), changed: make(chan struct{})}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_RUNTIME_DIR=", "OPENAI_API_KEY=", "CODEX_API_KEY=", "HERMES_YOLO_MODE=")
	s.cmd.Env = append(s.cmd.Env, env...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.wg.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			close(s.changed)
			s.changed = make(chan struct{})
			s.mu.Unlock()
		}
		_ = s.cmd.Wait()
		s.state = s.cmd.ProcessState
		close(s.exited)
	})
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.cmd.Process.Kill()
		}
		s.wg.Wait()
		if t.Failed() {
			t.Logf("server log:\n%s", s.logText())
		}
	})
	return s
}

func (s *server) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// waitLog waits until the log matches re and returns the first match's submatches.
func (s *server) waitLog(re string) []string {
	s.t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		m, changed := rx.FindStringSubmatch(s.log.String()), s.changed
		s.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-changed:
		case <-s.exited:
			if m := rx.FindStringSubmatch(s.logText()); m != nil {
				return m
			}
			s.t.Fatalf("the server exited (%v) before logging %q", s.state, re)
		case <-timeout.C:
			s.t.Fatalf("the server did not log %q in 20s", re)
		}
	}
}

// addr waits for the server to listen and returns its address: "tcp", "127.0.0.1:NNN" or "unix", path.
func (s *server) addr() (network, address string) {
	m := s.waitLog(`msg="hermes-lsp listening" addr=(tcp|unix):(\S+)`)
	return m[1], m[2]
}

// wait waits for the server to exit and returns its exit code.
func (s *server) wait() int {
	s.t.Helper()
	select {
	case <-s.exited:
		return s.state.ExitCode()
	case <-time.After(20 * time.Second):
		s.t.Fatalf("the server did not exit in 20s")
		return -1
	}
}

// terminate sends SIGTERM to the server's pid and returns its exit code.
func (s *server) terminate() int {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatal(err)
	}
	return s.wait()
}

// client is a raw LSP connection.
type client struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dial(t *testing.T, network, address string) *client {
	t.Helper()
	conn, err := net.DialTimeout(network, address, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	// A bound on every read, so that a broken server fails the test instead of hanging it.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	return &client{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// send writes one message, framed. Write errors are returned: a closed connection is what some
// tests expect.
func (c *client) send(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	_, err = fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// message is a JSON-RPC message as read.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// read reads one message.
func (c *client) read() (message, error) {
	length := -1
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return message{}, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return message{}, err
			}
		}
	}
	if length < 0 {
		return message{}, errors.New("a frame without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return message{}, err
	}
	var m message
	return m, json.Unmarshal(body, &m)
}

// reply reads until the response to id, answering the server's own requests with null.
func (c *client) reply(id int) message {
	c.t.Helper()
	for {
		m, err := c.read()
		if err != nil {
			c.t.Fatalf("waiting for the response to request %d: %v", id, err)
		}
		switch {
		case m.Method != "" && m.ID != nil:
			_ = c.send(map[string]any{"id": m.ID, "result": nil})
		case m.Method == "" && string(m.ID) == strconv.Itoa(id):
			return m
		}
	}
}

// readUntilClosed reads until the server closes the connection, returning what it sent; it fails
// the test if the connection stays open.
func (c *client) readUntilClosed() []message {
	c.t.Helper()
	var got []message
	for {
		m, err := c.read()
		if err == nil {
			got = append(got, m)
			continue
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			c.t.Fatalf("the server did not close the connection (got %d messages)", len(got))
		}
		return got // EOF, or a reset: closed
	}
}

// initialize sends an initialize request (id 1) with these initializationOptions and a workspace.
func (c *client) initialize(folder string, initOptions map[string]any) error {
	return c.send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"processId":             nil,
		"rootUri":               "file://" + folder,
		"workspaceFolders":      []map[string]any{{"uri": "file://" + folder, "name": "w"}},
		"capabilities":          map[string]any{},
		"initializationOptions": initOptions,
	}})
}

// serverName is initialize's serverInfo.name.
func serverName(t *testing.T, m message) string {
	t.Helper()
	var res struct {
		ServerInfo struct{ Name string } `json:"serverInfo"`
	}
	if len(m.Error) > 0 {
		t.Fatalf("initialize failed: %s", m.Error)
	}
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatalf("initialize result %s: %v", m.Result, err)
	}
	return res.ServerInfo.Name
}
