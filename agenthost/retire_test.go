package agenthost_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// turnError is a codex turn error; info is codexErrorInfo as JSON ("" for none).
func turnError(info, message string) *codex.TurnError {
	e := &codex.TurnError{Message: message}
	if info != "" {
		e.CodexErrorInfo.Raw = json.RawMessage(info)
	}
	return e
}

// failTurn is a turn handler that fails the turn with e.
func failTurn(e *codex.TurnError) func(*codextest.FakeTurn) {
	return func(ft *codextest.FakeTurn) { ft.Complete(codex.TurnFailed, e) }
}

func TestFailedTurnResult(t *testing.T) {
	cases := []struct {
		name      string
		err       *codex.TurnError
		wantError string
		wantText  string
	}{
		{"internal error", turnError(`"internalServerError"`, "boom"),
			"turn ended status=failed: internalServerError: boom", "The turn failed: boom"},
		{"object error info", turnError(`{"responseTooManyFailedAttempts":{"httpStatusCode":502}}`, "bad gateway"),
			"turn ended status=failed: responseTooManyFailedAttempts(502): bad gateway", "The turn failed: bad gateway"},
		{"no error", nil, "turn ended status=failed", "without a reason"},
		{"message only", turnError("", "boom"), "turn ended status=failed: boom", "The turn failed: boom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fh := newFakeHost(t, nil)
			fh.fake.OnTurn(failTurn(tc.err))
			res, events := run(t, fh.session(t), "do it")
			if res.Error != tc.wantError || res.Status != agenthost.StatusFailed || res.Completed || !res.Partial || res.Retired {
				t.Errorf("result: error %q status %s completed %v partial %v retired %v; want error %q",
					res.Error, res.Status, res.Completed, res.Partial, res.Retired, tc.wantError)
			}
			if !strings.Contains(res.FinalText, tc.wantText) {
				t.Errorf("FinalText %q lacks %q", res.FinalText, tc.wantText)
			}
			if tc.err != nil && len(ofKind(events, hermesproto.EventKindError)) != 1 {
				t.Errorf("error events: %v", kinds(events))
			}
			if !strings.Contains(readFile(t, res.TranscriptPath), "**Error:** "+tc.wantError) {
				t.Error("the markdown transcript lacks the error")
			}
		})
	}
}

func TestInterruptedTurnIsPartial(t *testing.T) {
	cases := []struct {
		name      string
		interrupt func(*testing.T, *agenthost.Session, *agenthost.Turn) error
	}{
		{"session", func(t *testing.T, s *agenthost.Session, _ *agenthost.Turn) error { return s.Interrupt(t.Context()) }},
		{"turn", func(t *testing.T, _ *agenthost.Session, turn *agenthost.Turn) error {
			return turn.Interrupt(t.Context())
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fh := newFakeHost(t, nil)
			fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
				ft.AgentMessage("half an answer")
				ft.CompleteOnInterrupt()
			})
			s := fh.session(t)
			turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "long job"})
			if err != nil {
				t.Fatal(err)
			}
			nextEvent(t, turn.Events(), hermesproto.EventKindAnswerDelta)
			if err := tc.interrupt(t, s, turn); err != nil {
				t.Fatal(err)
			}
			res, _ := finish(t, turn)
			if res.Status != agenthost.StatusInterrupted || res.Completed || !res.Partial || res.Error != "interrupted by the user" ||
				res.FinalText != "half an answer" || res.Retired {
				t.Errorf("result: %+v", res)
			}
			if err := s.Interrupt(t.Context()); err != agenthost.ErrNoTurn {
				t.Errorf("interrupt with no turn: %v", err)
			}
			// The process is kept: the next turn runs on it.
			fh.fake.OnTurn(nil)
			if next, _ := run(t, s, "again"); !next.Completed || len(fh.fake.Starts()) != 1 {
				t.Errorf("next turn: %+v, starts %d", next, len(fh.fake.Starts()))
			}
		})
	}
}

// TestCodexExitMidTurn kills codex in the middle of a turn: the result is partial and says why, with
// codex's last words; the next turn starts codex again and resumes the thread, or starts a new one
// when the thread cannot be resumed.
func TestCodexExitMidTurn(t *testing.T) {
	for _, failResume := range []bool{false, true} {
		name := "resume"
		if failResume {
			name = "resume fails"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fh := newFakeHost(t, nil)
			s := fh.session(t)
			first, _ := run(t, s, "remember banana")
			if !first.Completed {
				t.Fatalf("first turn: %+v", first)
			}

			started := make(chan struct{})
			fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
				close(started)
				<-ft.Done()
			})
			turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "work hard"})
			if err != nil {
				t.Fatal(err)
			}
			recv(t, started, "the turn's start")
			fh.fake.Kill("thread 'main' panicked", "fatal: something broke")
			res, _ := finish(t, turn)
			if res.Completed || !res.Partial || !res.Retired || res.Status != agenthost.StatusFailed {
				t.Errorf("result after the kill: %+v", res)
			}
			if !strings.Contains(res.Error, "codex closed its output") || !strings.Contains(res.Error, "fatal: something broke") {
				t.Errorf("Error %q lacks the cause or codex's last words", res.Error)
			}
			if !strings.Contains(res.FinalText, "Ask again") || !strings.Contains(res.FinalText, "codex stopped") {
				t.Errorf("FinalText does not say what to do: %q", res.FinalText)
			}
			if fh.Running() {
				t.Error("codex still counts as running after it died")
			}

			fh.fake.OnTurn(nil)
			fh.fake.FailResume(failResume)
			next, _ := run(t, s, "what was the word?")
			if !next.Completed {
				t.Fatalf("turn after the kill: %+v", next)
			}
			if n := len(fh.fake.Starts()); n != 2 {
				t.Errorf("codex started %d times, want 2", n)
			}
			resumes := fh.fake.Threads()[first.ThreadID].Resumes
			if failResume {
				if next.ThreadID == first.ThreadID || !next.NewThread || s.Status().ThreadID != next.ThreadID {
					t.Errorf("resume failed: thread %s (first %s) new %v status %s", next.ThreadID, first.ThreadID, next.NewThread, s.Status().ThreadID)
				}
				if len(resumes) != 0 {
					t.Errorf("resumes recorded though resume failed: %+v", resumes)
				}
			} else {
				if next.ThreadID != first.ThreadID || next.NewThread {
					t.Errorf("thread %s (first %s) new %v", next.ThreadID, first.ThreadID, next.NewThread)
				}
				if len(resumes) != 1 || resumes[0].ThreadID != first.ThreadID || resumes[0].Cwd != fh.folder {
					t.Errorf("thread/resume: %+v", resumes)
				}
			}
		})
	}
}

func TestTurnDeadline(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) { c.TurnTimeout = 200 * time.Millisecond })
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.AgentMessage("what I have so far")
		ft.CompleteOnInterrupt()
	})
	s := fh.session(t)
	res, _ := run(t, s, "endless")
	if !res.Retired || res.Completed || !res.Partial || res.Status != agenthost.StatusInterrupted ||
		!strings.Contains(res.Error, "turn timed out after 200ms") || res.FinalText != "what I have so far" {
		t.Errorf("result at the deadline: %+v", res)
	}
	if _, err := fh.fake.WaitRequest(t.Context(), codex.MethodTurnInterrupt, 1); err != nil {
		t.Errorf("the turn was not interrupted: %v", err)
	}
	fh.fake.OnTurn(nil)
	next, _ := run(t, s, "again")
	if !next.Completed || next.ThreadID != res.ThreadID || len(fh.fake.Starts()) != 2 {
		t.Errorf("next turn: %+v, starts %d", next, len(fh.fake.Starts()))
	}
}

// TestRetirementByOutcome checks which outcomes retire codex: the next turn then starts it again and
// resumes the thread; otherwise it runs on the same process.
func TestRetirementByOutcome(t *testing.T) {
	cases := []struct {
		name    string
		turn    func(*codextest.FakeTurn)
		retired bool
		status  string
		text    string
	}{
		{"completed", codextest.DefaultTurn, false, agenthost.StatusCompleted, "ok"},
		{"unauthorized", failTurn(turnError(`"unauthorized"`, "401 Unauthorized: Missing bearer")), true, agenthost.StatusFailed, "run `codex login`"},
		{"http 401", failTurn(turnError(`{"responseStreamConnectionFailed":{"httpStatusCode":401}}`, "stream failed")), true, agenthost.StatusFailed, "codex login"},
		{"usage limit", failTurn(turnError(`"usageLimitExceeded"`, "You've hit your usage limit.")), true, agenthost.StatusFailed, "usage limit is reached"},
		{"rate limit", failTurn(turnError(`{"responseTooManyFailedAttempts":{"httpStatusCode":429}}`, "slow down")), true, agenthost.StatusFailed, "usage limit"},
		// No codexErrorInfo: the message alone says what happened.
		{"usage limit, message only", failTurn(turnError("", "You've hit your usage limit. Upgrade to Pro or try again later.")), true, agenthost.StatusFailed, "usage limit is reached"},
		{"not logged in, message only", failTurn(turnError("", "Not logged in: run codex login")), true, agenthost.StatusFailed, "run `codex login`"},
		{"other failure", failTurn(turnError(`"internalServerError"`, "boom")), false, agenthost.StatusFailed, "The turn failed: boom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fh := newFakeHost(t, nil)
			fh.fake.OnTurn(tc.turn)
			s := fh.session(t)
			res, _ := run(t, s, "first")
			if res.Retired != tc.retired || res.Status != tc.status || !strings.Contains(res.FinalText, tc.text) {
				t.Fatalf("result: retired %v status %s text %q; want retired %v status %s text with %q",
					res.Retired, res.Status, res.FinalText, tc.retired, tc.status, tc.text)
			}
			if fh.Running() == tc.retired {
				t.Errorf("Running() = %v after retired=%v", fh.Running(), tc.retired)
			}
			fh.fake.OnTurn(nil)
			next, _ := run(t, s, "second")
			if !next.Completed || next.ThreadID != res.ThreadID || next.Retired {
				t.Fatalf("next turn: %+v", next)
			}
			wantStarts, wantResumes := 1, 0
			if tc.retired {
				wantStarts, wantResumes = 2, 1
			}
			if n := len(fh.fake.Starts()); n != wantStarts {
				t.Errorf("codex started %d times, want %d", n, wantStarts)
			}
			if n := len(fh.fake.Threads()[res.ThreadID].Resumes); n != wantResumes {
				t.Errorf("thread resumed %d times, want %d", n, wantResumes)
			}
		})
	}
}

func TestResponsesFallback(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Model = "gpt-5.5"
		c.Fallbacks = []agenthost.FallbackProvider{
			{Name: "back up", Kind: agenthost.FallbackResponses, BaseURL: "http://127.0.0.1:9/v1", Model: "backup-model", APIKeyEnv: "BACKUP_KEY"},
			{Name: "chatty", Kind: agenthost.FallbackChat, BaseURL: "http://127.0.0.1:9/v1", Model: "chat-model"},
		}
	})
	var turns atomic.Int32
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		if turns.Add(1) == 1 {
			ft.Complete(codex.TurnFailed, turnError(`"usageLimitExceeded"`, "You've hit your usage limit."))
			return
		}
		ft.AgentMessage("answered by the backup")
	})
	s := fh.session(t)
	res, events := run(t, s, "hello with quota trouble")

	cfg := fh.fake.Starts()[0].Process.Config
	for _, want := range []string{
		`model_providers.hermes-fallback-back_up.name="back up"`,
		`model_providers.hermes-fallback-back_up.base_url="http://127.0.0.1:9/v1"`,
		`model_providers.hermes-fallback-back_up.wire_api="responses"`,
		`model_providers.hermes-fallback-back_up.env_key="BACKUP_KEY"`,
	} {
		if !slices.Contains(cfg, want) {
			t.Errorf("codex -c overrides lack %s: %q", want, cfg)
		}
	}
	for _, kv := range cfg {
		if strings.Contains(kv, "chatty") {
			t.Errorf("a chat fallback was defined for codex: %s", kv)
		}
	}

	if !res.Completed || res.Fallback != "back up" || res.APICalls != 2 || res.FinalText != "answered by the backup" || res.Error != "" || res.Partial {
		t.Fatalf("result: %+v", res)
	}
	// The fallback runs on a codex of its own, which stays up: the result does not say retired.
	if res.Retired || !fh.Running() {
		t.Errorf("after a successful responses fallback: Retired %v, Running %v", res.Retired, fh.Running())
	}
	th := fh.fake.Threads()[res.ThreadID]
	if len(th.Resumes) == 0 {
		t.Fatal("the thread was not resumed on the fallback provider")
	}
	last := th.Resumes[len(th.Resumes)-1]
	if last.ThreadID != res.ThreadID || last.ModelProvider != "hermes-fallback-back_up" || last.Model != "backup-model" || last.Cwd != fh.folder {
		t.Errorf("thread/resume for the fallback: %+v", last)
	}
	if len(th.Turns) != 2 || th.Turns[1] != res.TurnID {
		t.Errorf("thread turns %v, result turn %s", th.Turns, res.TurnID)
	}
	if fb := ofKind(events, hermesproto.EventKindFallback); len(fb) != 1 || !strings.Contains(fb[0].Text, "back up") || !strings.Contains(fb[0].Text, "usage limit") {
		t.Errorf("fallback events: %+v", fb)
	}
	if st := s.Status(); st.Fallback != "back up" {
		t.Errorf("Status().Fallback = %q", st.Fallback)
	}
}

func TestChatFallback(t *testing.T) {
	chat, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = chat.Close() })
	chat.EnqueueChat(fakemodel.MessageChunks("fallback ", "answered"))
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{{Name: "chatty", Kind: agenthost.FallbackChat, BaseURL: chat.BaseURL(), Model: "fake-chat"}}
	})
	fh.fake.OnTurn(failTurn(turnError(`"usageLimitExceeded"`, "You've hit your usage limit.")))
	res, events := run(t, fh.session(t), "hello chat")
	if !res.Completed || res.Fallback != "chatty" || res.FinalText != "fallback answered" || res.APICalls != 2 || res.Error != "" {
		t.Fatalf("result: %+v", res)
	}
	// The chat fallback does not use codex, which the quota failure retired.
	if !res.Retired || fh.Running() {
		t.Errorf("after a chat fallback: Retired %v, Running %v", res.Retired, fh.Running())
	}
	var deltas []string
	for _, ev := range ofKind(events, hermesproto.EventKindAnswerDelta) {
		deltas = append(deltas, ev.Text)
	}
	if len(deltas) < 2 || strings.Join(deltas, "") != "fallback answered" {
		t.Errorf("answer deltas %q", deltas)
	}
	if len(ofKind(events, hermesproto.EventKindFallback)) != 1 {
		t.Errorf("events: %v", kinds(events))
	}
	reqs := chat.ChatRequests()
	if len(reqs) != 1 || reqs[0].Model != "fake-chat" {
		t.Fatalf("chat requests: %+v", reqs)
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1]; last.Role != "user" || last.Content != "hello chat" {
		t.Errorf("chat prompt: %+v", last)
	}
	if msgs := res.Messages; len(msgs) != 2 || msgs[1].Role != "assistant" || msgs[1].Content != "fallback answered" {
		t.Errorf("projected rows: %+v", msgs)
	}
}
