//go:build unix

package codex_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// hungCodex writes a stand-in for codex that records its pid in the returned file and never answers.
func hungCodex(t *testing.T) (bin, pidFile string) {
	t.Helper()
	pidFile = filepath.Join(t.TempDir(), "pid")
	return script(t, "echo $$ > '"+pidFile+"'\nexec sleep 600\n"), pidFile
}

// reaped reports whether the process whose pid is in pidFile is gone, zombie included.
func reaped(t *testing.T, pidFile string) (int, bool) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// A zombie still exists: only a reaped child does not.
	return pid, !proctest.Exists(pid)
}

// TestStartTimeout: a codex that never answers initialize fails Start once StartTimeout passes, at
// once (not after Close's grace periods), with an error that names the binary, and is reaped.
func TestStartTimeout(t *testing.T) {
	bin, pidFile := hungCodex(t)
	began := time.Now()
	c, err := codex.Start(t.Context(), codex.Options{
		Process:      codex.ProcessOptions{Binary: bin},
		StartTimeout: 300 * time.Millisecond,
	})
	took := time.Since(began)
	if err == nil {
		c.Close()
		t.Fatal("Start succeeded on a codex that never answers")
	}
	var te *codex.StartTimeoutError
	if !errors.As(err, &te) || te.Binary != bin || te.Timeout != 300*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v (%T), want a *StartTimeoutError for %s", err, err, bin)
	}
	want := "start codex: codex did not answer initialize within 300ms (the binary at " + bin + " may not be codex app-server 0.171.0, or it is hung)"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
	if took < 300*time.Millisecond || took > 1500*time.Millisecond {
		t.Errorf("Start took %v, want about 300ms", took)
	}
	if pid, ok := reaped(t, pidFile); !ok {
		t.Errorf("codex (pid %d) is still there", pid)
	}
	t.Logf("Start gave up after %v", took)
}

// TestStartCallerContextIsNotATimeout: when the caller's context ends first, the error is the
// context's, not a start timeout, and codex is still reaped.
func TestStartCallerContextIsNotATimeout(t *testing.T) {
	bin, pidFile := hungCodex(t)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := codex.Start(ctx, codex.Options{
		Process:      codex.ProcessOptions{Binary: bin, Grace: 50 * time.Millisecond},
		StartTimeout: time.Minute,
	})
	var te *codex.StartTimeoutError
	if err == nil || errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the caller's deadline", err)
	}
	if pid, ok := reaped(t, pidFile); !ok {
		t.Errorf("codex (pid %d) is still there", pid)
	}
}

// TestNewClientStartTimeout: the bound applies to a client over pipes too.
func TestNewClientStartTimeout(t *testing.T) {
	clientR, serverW := io.Pipe()
	serverR, clientW := io.Pipe()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(io.Discard, serverR) // reads initialize and never answers
	}()
	_, err := codex.NewClient(t.Context(), clientR, clientW, codex.Options{StartTimeout: 100 * time.Millisecond})
	var te *codex.StartTimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "codex did not answer initialize within 100ms (codex may not be") {
		t.Errorf("error %v, want a start timeout", err)
	}
	<-drained // NewClient closed its ends
	serverW.Close()
}

// TestDiedClientTellsSubscriptionsWhy: once Done closes, every subscription of a codex that died
// knows why (the exit status). The host closes a dead client the moment Done closes, and Close
// abandons the subscriptions: one abandoned before it was told ended with no reason, and its turn
// said "the event stream ended early" instead of naming codex's death.
func TestDiedClientTellsSubscriptionsWhy(t *testing.T) {
	// Answers initialize (whatever its id), then exits 3 at the next line it reads.
	bin := script(t, `read line
id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
printf '{"id":%s,"result":{"userAgent":"fake"}}\n' "$id"
read initialized
read next
echo "fake codex: going away" >&2
exit 3
`)
	c, err := codex.Start(t.Context(), codex.Options{Process: codex.ProcessOptions{Binary: bin}, StartTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	subs := make([]*codex.Subscription, 50)
	for i := range subs {
		subs[i] = c.Subscribe("")
	}
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		_, _ = c.ReadAccount(t.Context()) // the line that ends it
	}()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("codex's exit not observed")
	}
	for i, sub := range subs {
		var exit *codex.ExitError
		if err := sub.Err(); !errors.As(err, &exit) || !strings.Contains(exit.Status, "exit status 3") {
			t.Errorf("subscription %d: Err() = %v once Done closed, want codex's exit status", i, err)
		}
	}
	_ = c.Close()
	<-asked
	for _, sub := range subs {
		for range sub.Events() {
		}
		if sub.Err() == nil {
			t.Fatal("a subscription lost its reason on Close")
		}
	}
	sub := c.Subscribe("") // after the end: told at once
	if sub.Err() == nil {
		t.Error("a subscription made after the end has no reason")
	}
	sub.Close()
}
