package agenthost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"

	"github.com/sourcegraph/conc"

	"github.com/hermes-lsp/hermes-lsp/agenthost/chatfallback"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// resetsIn finds how long until a usage limit resets in codex's error ("resets_in_seconds": N, as
// the provider's 429 body says it).
var resetsIn = regexp.MustCompile(`resets_in_seconds\W{0,4}(\d+)`)

// cooldownOf is how long a provider that failed with e is skipped: until its limit resets, when the
// error says, else def.
func cooldownOf(e *codex.TurnError, def time.Duration) time.Duration {
	if e != nil {
		for _, text := range []string{e.Message, e.AdditionalDetails} {
			if m := resetsIn.FindStringSubmatch(text); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
					return time.Duration(n) * time.Second
				}
			}
		}
	}
	return def
}

// onFallback makes fb the provider the turn runs on (before it starts, or as it fails over).
func (ts *turnRunner) onFallback(fb FallbackProvider) {
	ts.provider, ts.fallback = fb, fb.Name
}

// runChatOnly runs a turn on the chat fallback the session is on (the providers before it in the
// chain are cooling down), codex not involved unless the chat fallback fails and the next provider
// is a responses one; it finishes the turn.
func (ts *turnRunner) runChatOnly(fb FallbackProvider) {
	cfg := ts.s.h.config()
	deadline := newTurnDeadline(ts.s.h)
	defer deadline.stop()
	ts.runChatFallback(cfg, fb, deadline.timer.C)
	ts.finish(ts.failOver(cfg, deadline, false))
}

// failOver retries the turn down the fallback chain for as long as the provider it ran on failed in
// a way the next one may mend (mayFailOver): each provider that failed is skipped for its cooldown,
// and the turn goes to the next fallback it has not tried that is not cooling down. It returns
// whether codex is left retired: retired is the turn's answer so far, and each responses attempt
// gives its own (a chat attempt leaves it as it was).
func (ts *turnRunner) failOver(cfg Config, deadline *turnDeadline, retired bool) bool {
	for ts.mayFailOver(cfg) {
		failed, why := ts.provider, ts.failureText()
		cooldown := cooldownOf(ts.turnErr, cfg.FallbackCooldown)
		ts.tried = append(ts.tried, failed)
		ts.failures = append(ts.failures, providerName(failed)+": "+why)
		to := ts.s.failOver(failed, cooldown, ts.tried)
		ts.cooling = to.cooling
		if !to.ok {
			ts.exhausted = true
			ts.s.h.log.Warn("no fallback provider left for the turn", "folder", ts.s.folder, "tried", len(ts.tried))
			return retired
		}
		ts.emit(hermesproto.Event{Kind: hermesproto.EventKindFallback, Text: fmt.Sprintf("%s; %s is skipped for %v; retrying on fallback provider %s (%s, %s)",
			why, providerName(failed), cooldown.Round(time.Second), to.next.Name, to.next.Kind, to.next.Model)})
		ts.s.h.log.Info("retrying a turn on a fallback provider", "folder", ts.s.folder, "failed", providerName(failed),
			"provider", to.next.Name, "kind", to.next.Kind, "cooldown", cooldown)
		if fellBack := ts.runFallback(cfg, to.next, to.view, deadline); to.next.Kind == FallbackResponses {
			retired = fellBack
		}
	}
	return retired
}

// mayFailOver reports whether the turn, as it ended on its provider, goes to the next provider of the
// chain: fallbacks are configured, the turn is a prompt's (not a compaction or a review) that nobody
// stopped (a person, the deadline, shutdown), and its provider failed: the primary for quota (any
// other failure of codex's would be the next provider's too), a fallback for any reason.
func (ts *turnRunner) mayFailOver(cfg Config) bool {
	if ts.compaction || ts.review || len(cfg.Fallbacks) == 0 || ts.status == codex.TurnCompleted {
		return false
	}
	if ts.interruptReason() != "" {
		return false
	}
	if ts.provider == primary {
		return ts.failure == nil && ts.status == codex.TurnFailed && isQuotaFailure(ts.turnErr)
	}
	return ts.failure != nil || ts.status == codex.TurnFailed
}

// failureText is why the turn failed on its provider, in one clamped line.
func (ts *turnRunner) failureText() string {
	why := "the turn failed"
	switch {
	case ts.turnErr != nil && ts.turnErr.Message != "":
		why = ts.turnErr.Message
	case ts.failure != nil:
		why = ts.failure.Error()
	}
	return safetext.LineCut(why, 300)
}

// exhaustedAdvice is the answer of a turn that failed on every provider of the chain: what each
// said, which were cooling down, and what to do.
func (ts *turnRunner) exhaustedAdvice() string {
	var b strings.Builder
	b.WriteString("No provider could answer: ")
	b.WriteString(strings.Join(ts.failures, "; "))
	b.WriteString(".")
	if len(ts.cooling) > 0 {
		b.WriteString(" Cooling down after failing earlier: " + strings.Join(ts.cooling, ", ") + ".")
	}
	b.WriteString(" Ask again once a usage limit has reset, or check hermes fallbackProviders (each provider's baseUrl, model and apiKeyEnv) and the hermes-lsp log.")
	return b.String()
}

// runFallback retries the turn's input on fb, the next provider of the chain, with view the
// session's thread as fb is to run it. A responses provider runs through codex, the thread resumed
// under that provider (same input, tools and approvals); a chat provider answers the prompt with the
// transcript so far as context, text only. It reports whether a responses attempt left codex retired
// (it could not start, or its outcome retired it).
func (ts *turnRunner) runFallback(cfg Config, fb FallbackProvider, view threadView, deadline *turnDeadline) (retired bool) {
	ts.live.flush() // events held for rows not on disk go out before the fallback's
	ts.apiCalls++
	ts.onFallback(fb)
	ts.status, ts.turnErr, ts.failure = "", nil, nil
	if fb.Kind == FallbackChat {
		ts.runChatFallback(cfg, fb, deadline.timer.C)
		return false
	}

	s := ts.s
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, fresh, err := s.startCodexTurn(ctx, ts.input, view)
	if err != nil {
		ts.newThread = ts.newThread || fresh
		ts.failure = fmt.Errorf("fallback %s: %w", fb.Name, err)
		return true
	}
	ts.moved(a, fresh)
	ts.emit(hermesproto.Event{Kind: hermesproto.EventKindTurnStarted, Text: ts.input.Prompt})
	ts.drive(deadline)
	retire, why := ts.assess()
	if retire {
		s.h.retire(ts.cur.client, why)
	}
	return retire
}

func (ts *turnRunner) runChatFallback(cfg Config, fb FallbackProvider, deadline <-chan time.Time) {
	var (
		wg      conc.WaitGroup
		stopped string // why the watcher stopped the request, when the runner did (read after wg.Wait)
	)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.TurnTimeout)
	defer cancel()
	wg.Go(func() {
		// Stop the request at the turn's deadline, an interrupt, or shutdown.
		select {
		case <-deadline:
			stopped = fmt.Sprintf("turn timed out after %v", cfg.TurnTimeout)
		case <-ts.interrupted:
		case <-ts.s.h.closing:
			stopped = "hermes-lsp is shutting down"
		case <-ctx.Done():
			// Its own bound is the turn timeout counted from later than the turn's start: when it
			// is what fired (both may be ready by the time this runs), the turn timed out too.
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				stopped = fmt.Sprintf("turn timed out after %v", cfg.TurnTimeout)
			}
		}
		cancel()
	})
	defer func() {
		cancel() // the watcher ends
		wg.Wait()
		if stopped != "" {
			ts.stopReason = stopped // the deadline or shutdown is the reason, as in stopAndWait
		}
	}()

	var apiKey string
	if fb.APIKeyEnv != "" {
		apiKey = os.Getenv(fb.APIKeyEnv)
	}
	history := ts.s.fallbackHistory()
	history = append(history, chatHistory(ts.messages[1:])...) // this turn's rows so far, prompt excluded

	resp, err := chatfallback.Stream(ctx, chatfallback.Request{
		BaseURL: fb.BaseURL, Model: fb.Model, APIKey: apiKey, History: history, Prompt: withNotes(ts.s.folder, ts.input),
		System: "You are a coding assistant answering inside the user's editor. Tools are unavailable right now; answer in text.",
	}, func(delta string) { ts.emit(hermesproto.Event{Kind: hermesproto.EventKindAnswerDelta, Text: delta}) })
	if err != nil {
		ts.status = codex.TurnFailed
		msg := fmt.Sprintf("fallback provider %s failed: %v", fb.Name, err)
		if fb.APIKeyEnv != "" && apiKey == "" {
			msg += fmt.Sprintf(" ($%s is not set)", fb.APIKeyEnv)
		}
		ts.turnErr = &codex.TurnError{Message: msg}
		ts.emit(hermesproto.Event{Kind: hermesproto.EventKindError, Text: msg})
		return
	}
	ts.status = codex.TurnCompleted
	ts.finalText = resp.Text
	ts.addMessages(hermesproto.Message{Role: "assistant", Content: resp.Text})
	u := codex.ThreadTokenUsage{Last: codex.TokenUsage{
		InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens, TotalTokens: resp.Usage.TotalTokens,
	}}
	ts.setUsage(&u, true)
}

// chatHistory turns projected rows into chat messages: text rows as they are, tool calls and their
// results as short assistant notes.
func chatHistory(rows []hermesproto.Message) []chatfallback.Message {
	var out []chatfallback.Message
	for _, m := range rows {
		switch {
		case m.Role == "user" && m.Content != "":
			out = append(out, chatfallback.Message{Role: "user", Content: m.Content})
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			c := m.ToolCalls[0].Function
			out = append(out, chatfallback.Message{Role: "assistant", Content: "[called " + c.Name + " " + Truncate(c.Arguments, 300) + "]"})
		case m.Role == "assistant" && m.Content != "":
			out = append(out, chatfallback.Message{Role: "assistant", Content: m.Content})
		case m.Role == "tool":
			out = append(out, chatfallback.Message{Role: "assistant", Content: "[tool result] " + Truncate(strings.TrimSpace(m.Content), 1000)})
		}
	}
	return out
}
