//go:build unix

package agenthost_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// TestStartTimeoutFailsFirstTurn runs the real codex.Start on a binary that never answers
// initialize: the first turn fails once StartTimeout passes, not at the turn timeout, with an error
// that says what to do; the child is reaped, and (TestMain) no goroutine is left behind.
func TestStartTimeoutFailsFirstTurn(t *testing.T) {
	tmp := t.TempDir()
	pidFile := filepath.Join(tmp, "pid")
	bin := filepath.Join(tmp, "codex")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho $$ > '"+pidFile+"'\nexec sleep 600\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	h, err := agenthost.New(agenthost.Config{CodexPath: bin, StateDir: filepath.Join(tmp, "state"), StartTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.Session(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	began := time.Now()
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "hello"})
	took := time.Since(began)
	if err == nil {
		finish(t, turn)
		t.Fatal("a turn ran on a codex that never answers initialize")
	}
	want := "start codex: codex did not answer initialize within 300ms (the binary at " + bin +
		" may not be codex app-server 0.171.0, or it is hung): check hermes.codex.path or raise hermes.codex.startTimeoutSeconds"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
	if took > 2*time.Second {
		t.Errorf("the turn failed after %v, want about 300ms", took)
	}
	if h.Running() {
		t.Error("the host says codex runs")
	}

	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// A zombie still exists: only a reaped child does not.
	if proctest.Exists(pid) {
		t.Errorf("codex (pid %d) is still there, unreaped", pid)
	}
	t.Logf("the first turn failed after %v", took)
}
