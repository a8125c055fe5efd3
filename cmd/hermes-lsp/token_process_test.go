//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTwoServersOneTokenFile: two servers started at once on one missing --token-file both serve,
// both with the token the file holds, and only one of them created it.
func TestTwoServersOneTokenFile(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	args := []string{"--listen", "tcp:127.0.0.1:0", "--token-file", tokenFile, "--codex", "/nonexistent/codex"}
	servers := []*server{startServer(t, nil, args...), startServer(t, nil, args...)}
	addrs := make([]string, len(servers))
	for i, srv := range servers {
		_, addrs[i] = srv.addr()
	}
	data, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(data))
	created := 0
	for i, srv := range servers {
		c := dial(t, "tcp", addrs[i])
		if err := c.initialize(dir, map[string]any{"hermes": map[string]any{"token": token}}); err != nil {
			t.Fatal(err)
		}
		if name := serverName(t, c.reply(1)); name != "hermes-lsp" {
			t.Errorf("server %d: serverInfo.name = %q, want hermes-lsp", i, name)
		}
		created += strings.Count(srv.logText(), "created a token file")
	}
	if created != 1 {
		t.Errorf("%d servers say they created the token file, want 1", created)
	}
}
