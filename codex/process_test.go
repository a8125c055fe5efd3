package codex_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// script writes an executable shell script standing in for codex.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-codex")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestProcessArgsEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	bin := script(t, `echo "args: $*" >&2; echo "home: $CODEX_HOME extra: $EXTRA" >&2; echo "cwd: $(pwd)" >&2; exit 0`)
	p, err := codex.StartProcess(codex.ProcessOptions{
		Binary: bin,
		Config: []string{`model="gpt-5.5"`, "features.plugins=false"},
		Args:   []string{"--listen", "stdio://"},
		Env:    []string{"EXTRA=yes"},
		Home:   "/somewhere/codex-home",
		Dir:    dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	exit := p.ExitError()
	tail := exit.(*codex.ExitError).Stderr
	for _, want := range []string{
		`args: app-server -c model="gpt-5.5" -c features.plugins=false --listen stdio://`,
		"home: /somewhere/codex-home extra: yes",
		"cwd: " + dir,
	} {
		if !strings.Contains(tail, want) {
			t.Errorf("stderr tail lacks %q:\n%s", want, tail)
		}
	}
	if err := p.Close(); err != nil {
		t.Errorf("close after a clean exit: %v", err)
	}
}

func TestProcessUnexpectedExit(t *testing.T) {
	bin := script(t, `echo "error: not logged in" >&2; exit 3`)
	p, err := codex.StartProcess(codex.ProcessOptions{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("exit not observed")
	}
	var exit *codex.ExitError
	if err := p.ExitError(); !errors.As(err, &exit) {
		t.Fatalf("want *ExitError, got %v", err)
	}
	if !strings.Contains(exit.Error(), "exit status 3") || !strings.Contains(exit.Error(), "not logged in") {
		t.Fatalf("exit error lacks status or stderr: %v", exit)
	}
	_ = p.Close()
}

func TestProcessCloseEscalates(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		// Exits at the end of its input: Close needs no signal.
		{"stdin EOF", `cat >/dev/null; exit 0`},
		// Ignores its input ending but not SIGTERM.
		{"SIGTERM", `trap 'exit 0' TERM; while :; do sleep 0.05; done`},
		// Ignores both: only SIGKILL ends it.
		{"SIGKILL", `trap '' TERM; while :; do sleep 0.05; done`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := codex.StartProcess(codex.ProcessOptions{Binary: script(t, tt.body), Grace: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			pid := p.Pid()
			start := time.Now()
			_ = p.Close()
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("close took %v", took)
			}
			select {
			case <-p.Done():
			default:
				t.Fatal("Close returned before the child was reaped")
			}
			if proctest.Exists(pid) {
				t.Errorf("process %d still exists (unreaped) after Close", pid)
			}
		})
	}
}

func TestProcessMissingBinary(t *testing.T) {
	_, err := codex.StartProcess(codex.ProcessOptions{Binary: filepath.Join(t.TempDir(), "no-such-codex")})
	if err == nil || !strings.Contains(err.Error(), "no-such-codex") {
		t.Fatalf("want an error naming the binary, got %v", err)
	}
}
