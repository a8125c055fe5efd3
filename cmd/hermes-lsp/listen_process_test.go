//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// plantScript writes a shell script that creates marker when run: what an attacker would pass as
// hermes.codex.path to run a program of theirs as us.
func plantScript(t *testing.T, dir, name string) (script, marker string) {
	t.Helper()
	marker = filepath.Join(dir, name+".ran")
	script = filepath.Join(dir, name+".sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, marker
}

// TestTCPRequiresToken: a TCP client without the token (or with a wrong one) is closed before the
// server acts on anything it sent, so the program it names as codex never runs; with the token the
// same requests do run it. The server gets no --codex here, so a client's hermes.codex.path is what
// it would run: the attack the token stops.
func TestTCPRequiresToken(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(dir, "token")
	srv := startServer(t, nil, "--listen", "tcp:127.0.0.1:0", "--token-file", tokenFile, "--log-level", "debug")
	network, address := srv.addr()
	data, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatalf("the server did not create its token file: %v", err)
	}
	token := strings.TrimSpace(string(data))

	attack := func(t *testing.T, name string, hermes map[string]any) (marker string) {
		t.Helper()
		script, marker := plantScript(t, dir, name)
		hermes["codex"] = map[string]any{"path": script}
		c := dial(t, network, address)
		start := time.Now()
		// Sent all at once, without waiting for answers, as an attacker would.
		_ = c.initialize(work, map[string]any{"hermes": hermes})
		_ = c.send(map[string]any{"method": "initialized", "params": map[string]any{}})
		_ = c.send(map[string]any{"id": 2, "method": "workspace/executeCommand", "params": map[string]any{
			"command": "hermes.ask", "arguments": []any{map[string]any{"prompt": "hello", "uri": "file://" + work + "/a.go"}},
		}})
		got := c.readUntilClosed()
		t.Logf("%s: closed %v after initialize", name, time.Since(start).Round(time.Microsecond))
		for _, m := range got {
			if m.Method == "" {
				t.Errorf("%s: the server answered a request before closing: id %s result %s error %s", name, m.ID, m.Result, m.Error)
			}
		}
		return marker
	}
	noToken := attack(t, "no-token", map[string]any{})
	wrongToken := attack(t, "wrong-token", map[string]any{"token": strings.Repeat("0", len(token))})
	prefixToken := attack(t, "prefix-token", map[string]any{"token": token[:len(token)-1]})

	// The same requests with the token: initialize succeeds and hermes.ask runs the planted program,
	// which shows that the refusals above are what kept it from running.
	script, marker := plantScript(t, dir, "with-token")
	c := dial(t, network, address)
	if err := c.initialize(work, map[string]any{"hermes": map[string]any{"token": token, "codex": map[string]any{"path": script}}}); err != nil {
		t.Fatal(err)
	}
	if name := serverName(t, c.reply(1)); name != "hermes-lsp" {
		t.Errorf("serverInfo.name = %q, want hermes-lsp", name)
	}
	_ = c.send(map[string]any{"method": "initialized", "params": map[string]any{}})
	_ = c.send(map[string]any{"id": 2, "method": "workspace/executeCommand", "params": map[string]any{
		"command": "hermes.ask", "arguments": []any{map[string]any{"prompt": "hello", "uri": "file://" + work + "/a.go"}},
	}})
	c.reply(2) // an error: the planted "codex" exits at once; what matters is that it ran
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("with the token hermes.ask did not run the planted program (%v): the test proves nothing", err)
	}
	for _, m := range []string{noToken, wrongToken, prefixToken} {
		if _, err := os.Stat(m); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the planted program ran for an unauthenticated client: %s (%v)", m, err)
		}
	}
	if strings.Contains(srv.logText(), token) {
		t.Errorf("the server logged the token")
	}
}

// TestListenNonLoopback: an address other machines can reach is refused unless --listen-insecure
// says so, and then it is served with a warning.
func TestListenNonLoopback(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	for _, addr := range []string{"0.0.0.0:0", "tcp:0.0.0.0:0"} {
		t.Run(addr, func(t *testing.T) {
			start := time.Now()
			srv := startServer(t, nil, "--listen", addr, "--token-file", tokenFile, "--codex", "/nonexistent/codex")
			if code := srv.wait(); code == 0 {
				t.Errorf("--listen %s without --listen-insecure exited 0", addr)
			}
			t.Logf("refused in %v", time.Since(start).Round(time.Millisecond))
			if log := srv.logText(); !strings.Contains(log, "--listen-insecure") {
				t.Errorf("the refusal does not name --listen-insecure:\n%s", log)
			}
		})
	}
	t.Run("--listen-insecure", func(t *testing.T) {
		srv := startServer(t, nil, "--listen", "0.0.0.0:0", "--listen-insecure", "--token-file", tokenFile, "--codex", "/nonexistent/codex")
		srv.addr()
		srv.waitLog(`level=WARN msg="--listen-insecure: `)
		if code := srv.terminate(); code != 0 {
			t.Errorf("after SIGTERM the server exited %d, want 0", code)
		}
	})
}

// TestIdleClientDoesNotBlock: a client that connects and says nothing neither holds up the next one
// nor stays connected past the handshake timeout.
func TestIdleClientDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	const timeout = 500 * time.Millisecond
	srv := startServer(t, nil, "--listen", "tcp:127.0.0.1:0", "--token-file", tokenFile, "--codex", "/nonexistent/codex",
		"--handshake-timeout", timeout.String())
	network, address := srv.addr()
	data, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}

	idle := dial(t, network, address)
	idleSince := time.Now()
	second := dial(t, network, address)
	start := time.Now()
	if err := second.initialize(dir, map[string]any{"hermes": map[string]any{"token": strings.TrimSpace(string(data))}}); err != nil {
		t.Fatal(err)
	}
	if name := serverName(t, second.reply(1)); name != "hermes-lsp" {
		t.Errorf("serverInfo.name = %q, want hermes-lsp", name)
	}
	initTime := time.Since(start)
	t.Logf("second client initialized in %v while the idle one was connected", initTime.Round(time.Microsecond))
	if initTime >= timeout {
		t.Errorf("the second client took %v: it waited for the idle one", initTime)
	}

	if got := idle.readUntilClosed(); len(got) != 0 {
		t.Errorf("the idle client was sent %d messages", len(got))
	}
	closedAfter := time.Since(idleSince)
	t.Logf("idle client closed after %v (handshake timeout %v)", closedAfter.Round(time.Millisecond), timeout)
	if closedAfter < timeout {
		t.Errorf("the idle client was closed after %v, before the handshake timeout %v", closedAfter, timeout)
	}

	// The initialized client is past its handshake: the timeout does not close it.
	if err := second.send(map[string]any{"id": 2, "method": "shutdown"}); err != nil {
		t.Fatal(err)
	}
	if m := second.reply(2); len(m.Error) > 0 {
		t.Errorf("shutdown after the handshake timeout: %s", m.Error)
	}
}

// TestMessageBeforeInitializeCloses: on a socket, anything but initialize as the first message
// closes the connection unanswered.
func TestMessageBeforeInitializeCloses(t *testing.T) {
	sockDir := shortTempDir(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	unixSrv := startServer(t, nil, "--listen", "unix:"+filepath.Join(sockDir, "s", "lsp.sock"), "--codex", "/nonexistent/codex")
	tcpSrv := startServer(t, nil, "--listen", "tcp:127.0.0.1:0", "--token-file", tokenFile, "--codex", "/nonexistent/codex")
	for _, srv := range []*server{unixSrv, tcpSrv} {
		network, address := srv.addr()
		for _, first := range []map[string]any{
			{"id": 1, "method": "shutdown"},
			{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": "file:///a.go", "languageId": "go", "version": 1, "text": ""}}},
			{"method": "initialized", "params": map[string]any{}},
			{"id": 1, "method": "workspace/executeCommand", "params": map[string]any{"command": "hermes.status"}},
		} {
			method := first["method"].(string)
			t.Run(network+"/"+method, func(t *testing.T) {
				c := dial(t, network, address)
				start := time.Now()
				_ = c.send(first)
				if got := c.readUntilClosed(); len(got) != 0 {
					raw, _ := json.Marshal(got)
					t.Errorf("%s before initialize was answered: %s", method, raw)
				}
				t.Logf("closed %v after %s", time.Since(start).Round(time.Microsecond), method)
			})
		}
	}
}

// TestUnixSocket: the socket is 0600 in a 0700 directory, a client running as us initializes, and
// the socket file is gone once the server stops.
func TestUnixSocket(t *testing.T) {
	base := shortTempDir(t)
	for _, tc := range []struct {
		name, listen string
		env          []string
		want         string
	}{
		{"unix:PATH", "unix:" + filepath.Join(base, "a", "lsp.sock"), nil, filepath.Join(base, "a", "lsp.sock")},
		{"bare path", filepath.Join(base, "b", "lsp.sock"), nil, filepath.Join(base, "b", "lsp.sock")},
		{"default path", "unix", []string{"XDG_RUNTIME_DIR=" + filepath.Join(base, "run")}, filepath.Join(base, "run", "hermes-lsp", "lsp.sock")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != nil {
				if err := os.Mkdir(filepath.Join(base, "run"), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			srv := startServer(t, tc.env, "--listen", tc.listen, "--codex", "/nonexistent/codex")
			network, path := srv.addr()
			if network != "unix" || path != tc.want {
				t.Fatalf("listening on %s:%s, want unix:%s", network, path, tc.want)
			}
			sock, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if sock.Mode()&fs.ModeSocket == 0 || sock.Mode().Perm() != 0o600 {
				t.Errorf("socket mode %v, want Srw-------", sock.Mode())
			}
			if dir, err := os.Lstat(filepath.Dir(path)); err != nil || dir.Mode().Perm() != 0o700 {
				t.Errorf("socket directory: %v, %v; want mode 0700", dir.Mode(), err)
			}

			c := dial(t, network, path)
			if err := c.initialize(base, nil); err != nil {
				t.Fatal(err)
			}
			if name := serverName(t, c.reply(1)); name != "hermes-lsp" {
				t.Errorf("serverInfo.name = %q, want hermes-lsp", name)
			}

			// SIGTERM with the client still connected: its session ends, then the server.
			if code := srv.terminate(); code != 0 {
				t.Errorf("after SIGTERM the server exited %d, want 0", code)
			}
			if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the socket file is still there after the server stopped (%v)", err)
			}
		})
	}
}
