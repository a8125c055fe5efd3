package agenthost_test

// Tests of the differences between the supported codex releases, on the fake: a release outside the
// range, thread/list ignoring includedThreadIds, and interrupts codex never answers.

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// TestCodexTooOldIsRefused: a codex older than the supported range starts no turn, and the error
// says which release it is, the range, and how to get a supported one.
func TestCodexTooOldIsRefused(t *testing.T) {
	fh := newFakeHost(t, nil)
	fh.fake.SetVersion("0.158.0")
	_, err := fh.session(t).Run(t.Context(), agenthost.Input{Prompt: "hello"})
	if err == nil {
		t.Fatal("a turn started on codex 0.158.0")
	}
	for _, want := range []string{"codex 0.158.0 is older than " + codex.MinVersion, codex.SupportedRange(),
		"npm install -g " + codex.NpmPackage + "@" + codex.TestedVersion, "hermes.codex.path"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if c, ok := fh.CodexCompat(); !ok || c.Support != codex.SupportTooOld || c.Version != "0.158.0" {
		t.Errorf("CodexCompat: %+v, %v", c, ok)
	}
	for _, m := range fh.fake.Requests() {
		if m.Method != codex.MethodInitialize {
			t.Errorf("sent %s to a codex it refuses", m.Method)
		}
	}
}

// TestCodexOutsideRangeIsUsed: a codex newer than the tested release, or one that names no release,
// runs turns; OnCodexStarted hears of each start with its release, and CodexWarning words it. One in
// the range has no warning.
func TestCodexOutsideRangeIsUsed(t *testing.T) {
	for _, c := range []struct {
		version, support, warning string
	}{
		{"0.172.0", codex.SupportNewer, "codex 0.172.0 is newer than " + codex.TestedVersion},
		{"dev-build", codex.SupportUnknown, "did not say which release it is"},
		{codex.MinVersion, codex.SupportSupported, ""},
		{codex.TestedVersion, codex.SupportTested, ""},
	} {
		t.Run(c.version, func(t *testing.T) {
			var mu sync.Mutex
			var started []codex.Compat
			fh := newFakeHost(t, func(cfg *agenthost.Config) {
				cfg.OnCodexStarted = func(c codex.Compat) {
					mu.Lock()
					started = append(started, c)
					mu.Unlock()
				}
			})
			fh.fake.SetVersion(c.version)
			if res, _ := run(t, fh.session(t), "hello"); !res.Completed {
				t.Fatalf("turn: %+v", res)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(started) != 1 || started[0].Support != c.support {
				t.Fatalf("OnCodexStarted heard %+v, want one start, %s", started, c.support)
			}
			w := agenthost.CodexWarning(started[0])
			if c.warning == "" && w != "" || c.warning != "" && (!strings.Contains(w, c.warning) || !strings.Contains(w, "If something fails")) {
				t.Errorf("warning %q, want %q", w, c.warning)
			}
		})
	}
}

// TestThreadLookupIgnoresTheCodexFilter: on a codex that ignores includedThreadIds and pages
// thread/list (two threads a page here), a folder's thread is found on any page, a thread of another
// folder or none is refused, and the list of threads follows the pages.
func TestThreadLookupIgnoresTheCodexFilter(t *testing.T) {
	fake := codextest.NewFake(t)
	state := t.TempDir()
	fh := newFakeHostOn(t, fake, state, nil)
	other := newFakeHostOn(t, fake, state, nil) // another folder's threads, in the same codex
	fake.ThreadPageSize(2)
	s := fh.session(t)
	var ids []string
	for i := range 5 {
		if i > 0 {
			if err := s.NewThread(); err != nil {
				t.Fatal(err)
			}
		}
		res, _ := run(t, s, "thread "+string(rune('a'+i)))
		ids = append(ids, res.ThreadID)
	}
	foreign, _ := run(t, other.session(t), "elsewhere")

	oldest := ids[0] // the last page: three pages of two
	if err := s.ResumeThread(t.Context(), oldest); err != nil {
		t.Fatalf("resume the folder's oldest thread: %v", err)
	}
	if _, err := s.ThreadHistory(t.Context(), ids[1]); err != nil {
		t.Errorf("history of one of the folder's threads: %v", err)
	}
	for _, id := range []string{foreign.ThreadID, "thread-999"} {
		if err := s.ResumeThread(t.Context(), id); err == nil || !strings.Contains(err.Error(), "is not one of") {
			t.Errorf("resume %s, not the folder's: %v", id, err)
		}
		if _, err := s.ThreadHistory(t.Context(), id); err == nil {
			t.Errorf("history of %s, not the folder's: no error", id)
		}
	}
	list, err := s.Threads(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(ids) {
		t.Errorf("Threads: %d threads, want %d: %+v", len(list), len(ids), list)
	}
	cursors := 0
	for _, m := range fake.Requests() {
		if m.Method == "thread/list" && strings.Contains(string(m.Params), `"cursor"`) {
			cursors++
		}
	}
	if cursors == 0 {
		t.Error("thread/list was never asked for a next page")
	}
}

// TestInterruptNeverAnswered: codex never answers turn/interrupt (as releases up to 0.168.0 do for
// a turn that has just ended): Interrupt returns within the interrupt's own timeout, and the host
// ends the turn as interrupted while codex's turn still runs, rather than wait for codex.
func TestInterruptNeverAnswered(t *testing.T) {
	fake := codextest.NewFake(t)
	fh := newFakeHostOn(t, fake, t.TempDir(), func(cfg *agenthost.Config) {
		cfg.StartCodex = func(ctx context.Context, opts codex.Options) (*codex.Client, error) {
			opts.InterruptTimeout = 100 * time.Millisecond
			return fake.Start(ctx, opts)
		}
	})
	fake.IgnoreInterrupts()
	release := make(chan struct{})
	running := make(chan struct{})
	fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage("working")
		close(running)
		select {
		case <-release:
		case <-ft.Done():
		}
	})
	defer close(release)
	s := fh.session(t)
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "think forever"})
	if err != nil {
		t.Fatal(err)
	}
	recv(t, running, "the turn to run")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := turn.Interrupt(ctx); err != nil {
		t.Fatalf("Interrupt: %v", err)
	}
	res, _ := finish(t, turn)
	if res.Status != agenthost.StatusInterrupted || res.Completed {
		t.Errorf("result %s (%s), want interrupted", res.Status, res.Error)
	}
	if _, err := fake.WaitRequest(ctx, codex.MethodTurnInterrupt, 2); err != nil {
		t.Errorf("the runner did not send the interrupt again: %v", err)
	}
}
