package agenthost_test

// Tests of the fallback chain: the primary, then fallbackProviders in order, each provider that
// fails skipped for its own cooldown, and the session back on the primary once the primary's
// cooldown has passed, for both kinds of fallback.

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// providerScript plays each codex turn by the provider its thread runs under now ("" for the
// primary, else codex's id of the fallback): quota fails it for quota (its limit resetting in an
// hour when long), fail fails it for another reason, answer answers it; a provider not in the script
// answers.
type providerScript struct {
	fh *fakeHost
	mu sync.Mutex
	by map[string]string
	// ran are the providers of the codex turns played, in order.
	ran []string
}

const (
	quota     = "quota"
	quotaLong = "quota for an hour"
	fail      = "fail"
)

func newProviderScript(fh *fakeHost) *providerScript {
	ps := &providerScript{fh: fh, by: map[string]string{}}
	fh.fake.OnTurn(ps.play)
	return ps
}

func (ps *providerScript) set(provider, what string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.by[provider] = what
}

func (ps *providerScript) played() []string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]string(nil), ps.ran...)
}

func (ps *providerScript) play(ft *codextest.FakeTurn) {
	provider := providerOf(ps.fh, ft.ThreadID)
	ps.mu.Lock()
	what := ps.by[provider]
	ps.ran = append(ps.ran, provider)
	ps.mu.Unlock()
	switch what {
	case quota:
		ft.Complete(codex.TurnFailed, turnError(`"usageLimitExceeded"`, "You've hit your usage limit."))
	case quotaLong:
		ft.Complete(codex.TurnFailed, turnError(`"usageLimitExceeded"`, `You've hit your usage limit. {"resets_in_seconds": 3600}`))
	case fail:
		ft.Complete(codex.TurnFailed, turnError(`"internalServerError"`, "the provider broke"))
	default:
		ft.AgentMessage("answered by " + provider)
	}
}

// providerOf is the provider the fake's thread runs under now: its last resume's, else its start's.
func providerOf(fh *fakeHost, threadID string) string {
	th := fh.fake.Threads()[threadID]
	if n := len(th.Resumes); n > 0 {
		return th.Resumes[n-1].ModelProvider
	}
	return th.Start.ModelProvider
}

func responsesFallback(name string) agenthost.FallbackProvider {
	return agenthost.FallbackProvider{Name: name, Kind: agenthost.FallbackResponses, BaseURL: "http://127.0.0.1:9/v1", Model: name + "-model"}
}

func chatFallback(name string, srv *fakemodel.Server) agenthost.FallbackProvider {
	return agenthost.FallbackProvider{Name: name, Kind: agenthost.FallbackChat, BaseURL: srv.BaseURL(), Model: name + "-model"}
}

func startChat(t *testing.T) *fakemodel.Server {
	t.Helper()
	srv, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// chatQuotaLong is a chat provider's answer when it is out of quota for an hour.
func chatQuotaLong() fakemodel.Reply {
	return fakemodel.HTTPError(429, `{"error":{"type":"usage_limit_reached","message":"usage limit reached, resets_in_seconds: 3600"}}`)
}

// TestFallbackChainResponses: the primary out of quota, the first fallback out of quota too (for an
// hour), the second answers; the turn says so. The primary's cooldown (the default, here none to
// speak of) passes first: the next turn is back on the primary. When the primary fails again, the
// first fallback is still cooling down: the turn goes straight to the second.
func TestFallbackChainResponses(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{responsesFallback("one"), responsesFallback("two")}
		c.FallbackCooldown = time.Nanosecond
	})
	ps := newProviderScript(fh)
	ps.set("", quota)
	ps.set("hermes-fallback-one", quotaLong)
	s := fh.session(t)

	res, events := run(t, s, "first")
	if !res.Completed || res.Fallback != "two" || res.FinalText != "answered by hermes-fallback-two" || res.APICalls != 3 || res.Error != "" {
		t.Fatalf("first turn: %+v", res)
	}
	if got, want := ps.played(), []string{"", "hermes-fallback-one", "hermes-fallback-two"}; !slices.Equal(got, want) {
		t.Errorf("codex turns on %q, want %q", got, want)
	}
	fb := ofKind(events, hermesproto.EventKindFallback)
	if len(fb) != 2 ||
		!strings.Contains(fb[0].Text, "the primary provider is skipped") || !strings.Contains(fb[0].Text, "retrying on fallback provider one") ||
		!strings.Contains(fb[1].Text, "one is skipped for 1h0m0s") || !strings.Contains(fb[1].Text, "retrying on fallback provider two") {
		t.Errorf("fallback events: %+v", fb)
	}
	if n := len(ofKind(events, hermesproto.EventKindTurnCompleted)); n != 1 {
		t.Errorf("%d turnCompleted events", n)
	}

	ps.set("", "")
	second, _ := run(t, s, "second")
	if !second.Completed || second.Fallback != "" || second.FinalText != "answered by " || s.Status().Fallback != "" {
		t.Fatalf("after the primary's cooldown: %+v (status fallback %q)", second, s.Status().Fallback)
	}

	ps.set("", quota)
	third, events := run(t, s, "third")
	if !third.Completed || third.Fallback != "two" || third.APICalls != 2 {
		t.Fatalf("third turn: %+v", third)
	}
	if got := ps.played()[4:]; !slices.Equal(got, []string{"", "hermes-fallback-two"}) {
		t.Errorf("third turn's codex turns on %q: want the primary, then two (one is cooling down)", got)
	}
	if fb := ofKind(events, hermesproto.EventKindFallback); len(fb) != 1 || !strings.Contains(fb[0].Text, "fallback provider two") {
		t.Errorf("third turn's fallback events: %+v", fb)
	}
}

// TestFallbackChainChat: the same chain of chat fallbacks: the primary out of quota, the first chat
// provider out of quota for an hour, the second answers; within the primary's cooldown the next turn
// runs on the second alone, codex not asked (TestFallbackChainChatBackToPrimary goes on from there).
func TestFallbackChainChat(t *testing.T) {
	one, two := startChat(t), startChat(t)
	one.SetChatDefault(func(fakemodel.ChatRequest) fakemodel.Reply { return chatQuotaLong() })
	two.SetChatDefault(func(r fakemodel.ChatRequest) fakemodel.Reply {
		return fakemodel.Message("two answered " + r.Messages[len(r.Messages)-1].Content)
	})
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{chatFallback("one", one), chatFallback("two", two)}
		c.FallbackCooldown = time.Hour
	})
	ps := newProviderScript(fh)
	ps.set("", quota)
	s := fh.session(t)

	res, events := run(t, s, "first")
	if !res.Completed || res.Fallback != "two" || res.FinalText != "two answered first" || res.APICalls != 3 {
		t.Fatalf("first turn: %+v", res)
	}
	if fb := ofKind(events, hermesproto.EventKindFallback); len(fb) != 2 || !strings.Contains(fb[1].Text, "one is skipped for 1h0m0s") {
		t.Errorf("fallback events: %+v", fb)
	}
	if n1, n2 := len(one.ChatRequests()), len(two.ChatRequests()); n1 != 1 || n2 != 1 {
		t.Errorf("chat requests: one %d, two %d; want 1 each", n1, n2)
	}

	// The primary is cooling down (an hour), and so is one: two answers, codex not asked.
	second, _ := run(t, s, "second")
	if !second.Completed || second.Fallback != "two" || second.FinalText != "two answered second" || second.APICalls != 1 {
		t.Fatalf("second turn: %+v", second)
	}
	if n := len(ps.played()); n != 1 {
		t.Errorf("codex ran %d turns, want 1 (the second turn is two's alone)", n)
	}
	if n1 := len(one.ChatRequests()); n1 != 1 {
		t.Errorf("one asked %d times, want once (cooling down)", n1)
	}
	if st := s.Status(); st.Fallback != "two" {
		t.Errorf("status fallback %q, want two", st.Fallback)
	}
}

// TestFallbackChainChatBackToPrimary: once the primary's cooldown has passed, the turns of a session
// on a chat fallback are back on the primary; a chat fallback still cooling down is skipped when
// the primary fails again.
func TestFallbackChainChatBackToPrimary(t *testing.T) {
	one, two := startChat(t), startChat(t)
	one.SetChatDefault(func(fakemodel.ChatRequest) fakemodel.Reply { return chatQuotaLong() })
	two.SetChatDefault(func(fakemodel.ChatRequest) fakemodel.Reply { return fakemodel.Message("two answered") })
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{chatFallback("one", one), chatFallback("two", two)}
		c.FallbackCooldown = time.Nanosecond
	})
	ps := newProviderScript(fh)
	ps.set("", quota)
	s := fh.session(t)
	if res, _ := run(t, s, "first"); res.Fallback != "two" || !res.Completed {
		t.Fatalf("first turn: %+v", res)
	}

	ps.set("", "")
	second, _ := run(t, s, "second")
	if !second.Completed || second.Fallback != "" || second.FinalText != "answered by " || s.Status().Fallback != "" {
		t.Fatalf("after the primary's cooldown: %+v", second)
	}
	if n2 := len(two.ChatRequests()); n2 != 1 {
		t.Errorf("two asked %d times, want once", n2)
	}

	ps.set("", quota)
	third, _ := run(t, s, "third")
	if !third.Completed || third.Fallback != "two" || third.APICalls != 2 {
		t.Fatalf("third turn: %+v", third)
	}
	if n1 := len(one.ChatRequests()); n1 != 1 {
		t.Errorf("one asked %d times, want once (cooling down for an hour)", n1)
	}
}

// TestFallbackChainMixed: a session on a chat fallback whose provider then fails goes to the next
// provider, a responses one: codex runs the turn there, on the folder's thread.
func TestFallbackChainMixed(t *testing.T) {
	chat := startChat(t)
	chat.EnqueueChat(fakemodel.Message("chat answered"), fakemodel.Failed("the chat provider broke"))
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{chatFallback("chatty", chat), responsesFallback("backup")}
		c.FallbackCooldown = time.Hour
	})
	ps := newProviderScript(fh)
	ps.set("", quota)
	s := fh.session(t)
	first, _ := run(t, s, "first")
	if !first.Completed || first.Fallback != "chatty" {
		t.Fatalf("first turn: %+v", first)
	}
	second, events := run(t, s, "second")
	if !second.Completed || second.Fallback != "backup" || second.FinalText != "answered by hermes-fallback-backup" || second.APICalls != 2 {
		t.Fatalf("second turn: %+v", second)
	}
	if second.ThreadID != first.ThreadID || providerOf(fh, second.ThreadID) != "hermes-fallback-backup" {
		t.Errorf("second turn on thread %s under %q, want %s under backup", second.ThreadID, providerOf(fh, second.ThreadID), first.ThreadID)
	}
	if fb := ofKind(events, hermesproto.EventKindFallback); len(fb) != 1 || !strings.Contains(fb[0].Text, "chatty is skipped") {
		t.Errorf("fallback events: %+v", fb)
	}
	lines := readTranscript(t, fh.state, second.ThreadID)
	if last := lines[len(lines)-1]; last.Result == nil || last.Result.TurnID != second.TurnID || last.Result.Fallback != "backup" {
		t.Errorf("transcript ends with %s, want the second turn's result", last.raw)
	}
}

// TestFallbackChainExhausted: when every provider fails the turn fails, and its answer says what
// each said and what to do. The next turn runs on the primary (every fallback is cooling down) and,
// when it fails again, tries none of them.
func TestFallbackChainExhausted(t *testing.T) {
	chat := startChat(t)
	chat.SetChatDefault(func(fakemodel.ChatRequest) fakemodel.Reply { return fakemodel.Failed("the chat provider broke") })
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{responsesFallback("backup"), chatFallback("chatty", chat)}
		c.FallbackCooldown = time.Hour
	})
	ps := newProviderScript(fh)
	ps.set("", quota)
	ps.set("hermes-fallback-backup", fail)
	s := fh.session(t)

	res, _ := run(t, s, "first")
	if res.Completed || res.Status != agenthost.StatusFailed || res.Fallback != "" || res.APICalls != 3 {
		t.Fatalf("result: %+v", res)
	}
	for _, want := range []string{"No provider could answer", "the primary provider: You've hit your usage limit.",
		"backup: the provider broke", "chatty: fallback provider chatty failed", "fallbackProviders"} {
		if !strings.Contains(res.FinalText, want) {
			t.Errorf("answer %q does not say %q", res.FinalText, want)
		}
	}
	if st := s.Status(); st.Fallback != "" {
		t.Errorf("status fallback %q: every provider is cooling down, the primary is next", st.Fallback)
	}

	again, events := run(t, s, "again")
	if again.Completed || again.APICalls != 1 || len(ofKind(events, hermesproto.EventKindFallback)) != 0 {
		t.Fatalf("second turn: %+v", again)
	}
	if !strings.Contains(again.FinalText, "Cooling down after failing earlier: backup (until ") || !strings.Contains(again.FinalText, "chatty (until ") {
		t.Errorf("second answer %q does not name the providers cooling down", again.FinalText)
	}
	if got := ps.played(); !slices.Equal(got, []string{"", "hermes-fallback-backup", ""}) {
		t.Errorf("codex turns on %q", got)
	}
	if n := len(chat.ChatRequests()); n != 1 {
		t.Errorf("chatty asked %d times, want once", n)
	}
}

// TestFallbackNamesUnique: two fallback providers of one name are refused: the name is the
// provider's id in codex's configuration, and what the user reads.
func TestFallbackNamesUnique(t *testing.T) {
	err := agenthost.Validate(agenthost.Config{Fallbacks: []agenthost.FallbackProvider{responsesFallback("same"), responsesFallback("same")}})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", "same")) {
		t.Errorf("Validate: %v", err)
	}
}

// TestFallbackChainStopsAtTheDeadline: a chat fallback still answering when the turn's time is up
// ends the turn (interrupted, saying why); the next provider is not tried.
func TestFallbackChainStopsAtTheDeadline(t *testing.T) {
	chat := startChat(t)
	chat.SetChatDefault(func(fakemodel.ChatRequest) fakemodel.Reply { return fakemodel.Hang() })
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{chatFallback("slow", chat), responsesFallback("backup")}
		c.TurnTimeout = 300 * time.Millisecond
	})
	ps := newProviderScript(fh)
	ps.set("", quota)
	res, _ := run(t, fh.session(t), "hello")
	if res.Completed || res.Status != agenthost.StatusInterrupted || !strings.Contains(res.Error, "turn timed out") {
		t.Fatalf("result: %+v", res)
	}
	if got := ps.played(); !slices.Equal(got, []string{""}) {
		t.Errorf("codex turns on %q: want the primary's alone", got)
	}
}
