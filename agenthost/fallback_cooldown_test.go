package agenthost_test

import (
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

var backUp = agenthost.FallbackProvider{Name: "back up", Kind: agenthost.FallbackResponses, BaseURL: "http://127.0.0.1:9/v1", Model: "backup-model"}

// quotaOnce fails the first turn on the primary for quota (with message), then answers every turn.
func quotaOnce(message string) func(*codextest.FakeTurn) {
	var turns atomic.Int32
	return func(ft *codextest.FakeTurn) {
		if turns.Add(1) == 1 {
			ft.Complete(codex.TurnFailed, turnError(`"usageLimitExceeded"`, message))
			return
		}
		ft.AgentMessage("answered")
	}
}

// lastResume returns the provider the thread was last resumed under ("" for the primary).
func lastResume(t *testing.T, fh *fakeHost, threadID string) string {
	t.Helper()
	rs := fh.fake.Threads()[threadID].Resumes
	if len(rs) == 0 {
		t.Fatalf("thread %s never resumed", threadID)
	}
	return rs[len(rs)-1].ModelProvider
}

// TestResponsesFallbackCooldown: after a quota failure the session stays on its responses fallback
// while the cooldown runs (each turn says so), goes back to the primary when it has passed or when
// the provider is no longer configured, and resumes the thread under the primary.
func TestResponsesFallbackCooldown(t *testing.T) {
	t.Run("within the cooldown, then the provider removed", func(t *testing.T) {
		fh := newFakeHost(t, func(c *agenthost.Config) {
			c.Fallbacks, c.FallbackCooldown = []agenthost.FallbackProvider{backUp}, time.Hour
		})
		fh.fake.OnTurn(quotaOnce("You've hit your usage limit."))
		s := fh.session(t)
		first, _ := run(t, s, "one")
		second, _ := run(t, s, "two")
		if first.Fallback != "back up" || second.Fallback != "back up" || !second.Completed || second.FinalText != "answered" {
			t.Fatalf("turns on the fallback: first %q, second %q (%+v)", first.Fallback, second.Fallback, second)
		}
		if p := lastResume(t, fh, second.ThreadID); p != "hermes-fallback-back_up" {
			t.Errorf("second turn under provider %q", p)
		}
		if err := fh.Reconfigure(agenthost.Config{CodexPath: "/opt/codex/bin/codex", FallbackCooldown: time.Hour}); err != nil {
			t.Fatal(err)
		}
		third, _ := run(t, s, "three")
		if third.Fallback != "" || !third.Completed || s.Status().Fallback != "" {
			t.Errorf("after the provider was removed: fallback %q, status %q", third.Fallback, s.Status().Fallback)
		}
		if p := lastResume(t, fh, third.ThreadID); p != "" {
			t.Errorf("third turn resumed under %q, want the primary", p)
		}
	})
	t.Run("cooldown passed", func(t *testing.T) {
		fh := newFakeHost(t, func(c *agenthost.Config) {
			c.Fallbacks, c.FallbackCooldown = []agenthost.FallbackProvider{backUp}, time.Nanosecond
		})
		fh.fake.OnTurn(quotaOnce("You've hit your usage limit."))
		s := fh.session(t)
		run(t, s, "one")
		second, _ := run(t, s, "two")
		if second.Fallback != "" || !second.Completed {
			t.Fatalf("after the cooldown: %+v", second)
		}
		if p := lastResume(t, fh, second.ThreadID); p != "" {
			t.Errorf("resumed under %q, want the primary", p)
		}
	})
	t.Run("reset time from codex", func(t *testing.T) {
		fh := newFakeHost(t, func(c *agenthost.Config) { c.Fallbacks = []agenthost.FallbackProvider{backUp} })
		fh.fake.OnTurn(quotaOnce(`usage limit reached {"resets_in_seconds": 42}`))
		_, events := run(t, fh.session(t), "one")
		if fb := ofKind(events, hermesproto.EventKindFallback); len(fb) != 1 || !strings.Contains(fb[0].Text, "for 42s") {
			t.Errorf("fallback event: %+v", fb)
		}
	})
}

// TestChatFallbackCooldown: within the cooldown a chat fallback answers the next turn by itself:
// codex is not asked again (no new turn, no respawn), and the result says so.
func TestChatFallbackCooldown(t *testing.T) {
	chat, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = chat.Close() })
	chat.EnqueueChat(fakemodel.MessageChunks("first ", "fallback"), fakemodel.MessageChunks("second ", "fallback"))
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{{Name: "chatty", Kind: agenthost.FallbackChat, BaseURL: chat.BaseURL(), Model: "fake-chat"}}
		c.FallbackCooldown = time.Hour
	})
	fh.fake.OnTurn(failTurn(turnError(`"usageLimitExceeded"`, "You've hit your usage limit.")))
	s := fh.session(t)
	first, _ := run(t, s, "one")
	turnsBefore := len(fh.fake.Threads()[first.ThreadID].Turns)
	second, _ := run(t, s, "two")
	if !second.Completed || second.Fallback != "chatty" || second.FinalText != "second fallback" || second.Retired {
		t.Fatalf("second turn: %+v", second)
	}
	if n := len(fh.fake.Threads()[first.ThreadID].Turns); n != turnsBefore {
		t.Errorf("codex ran %d more turns within the cooldown", n-turnsBefore)
	}
	if n := len(fh.fake.Starts()); n != 1 {
		t.Errorf("codex started %d times, want once (no respawn for the chat turn)", n)
	}
	if reqs := chat.ChatRequests(); len(reqs) != 2 {
		t.Errorf("chat requests: %d", len(reqs))
	}
	if st := s.Status(); st.Fallback != "chatty" {
		t.Errorf("status fallback %q", st.Fallback)
	}
}

// TestChatFallbackCooldownPassed: once its cooldown has passed, a chat fallback gives the session
// back to the primary: the next turn runs on codex, and the status no longer names the fallback.
func TestChatFallbackCooldownPassed(t *testing.T) {
	chat, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = chat.Close() })
	chat.EnqueueChat(fakemodel.MessageChunks("from the ", "fallback"))
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{{Name: "chatty", Kind: agenthost.FallbackChat, BaseURL: chat.BaseURL(), Model: "fake-chat"}}
		c.FallbackCooldown = time.Nanosecond
	})
	fh.fake.OnTurn(quotaOnce("You've hit your usage limit."))
	s := fh.session(t)
	first, _ := run(t, s, "one")
	if first.Fallback != "chatty" || first.FinalText != "from the fallback" {
		t.Fatalf("first turn: %+v", first)
	}
	turnsBefore := len(fh.fake.Threads()[first.ThreadID].Turns)
	second, _ := run(t, s, "two")
	if !second.Completed || second.Fallback != "" || second.FinalText != "answered" {
		t.Fatalf("after the cooldown, the second turn: %+v", second)
	}
	if n := len(fh.fake.Threads()[first.ThreadID].Turns); second.ThreadID != first.ThreadID || n != turnsBefore+1 {
		t.Errorf("after the cooldown: thread %s (was %s), %d more codex turns, want 1", second.ThreadID, first.ThreadID, n-turnsBefore)
	}
	if reqs := chat.ChatRequests(); len(reqs) != 1 {
		t.Errorf("chat requests: %d, want 1", len(reqs))
	}
	if st := s.Status(); st.Fallback != "" {
		t.Errorf("status fallback %q after the cooldown", st.Fallback)
	}
}
