package agenthost

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"

	"github.com/sourcegraph/conc"

	"github.com/hermes-lsp/hermes-lsp/agenthost/chatfallback"
	"github.com/hermes-lsp/hermes-lsp/codex"
)

// resetsIn finds how long until a usage limit resets in codex's error ("resets_in_seconds": N, as
// the provider's 429 body says it).
var resetsIn = regexp.MustCompile(`resets_in_seconds\W{0,4}(\d+)`)

// cooldownOf is how long to stay on a fallback after e: until the limit resets, when codex says,
// else def.
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

// runChatOnly runs a turn on a chat fallback the session is on (within its cooldown), codex not
// involved; it finishes the turn.
func (ts *turnRunner) runChatOnly(fb FallbackProvider) {
	cfg := ts.s.h.config()
	deadline := time.NewTimer(cfg.TurnTimeout)
	defer deadline.Stop()
	ts.runChatFallback(cfg, fb, deadline.C)
	if ts.interruptReason() != "" && ts.status != codex.TurnCompleted {
		ts.status = codex.TurnInterrupted
	}
	ts.finish(false)
}

// fallbackFor says whether the turn should be retried on a fallback provider: it failed for quota,
// a fallback is configured, and the session is not already on one.
func (ts *turnRunner) fallbackFor(cfg Config) (FallbackProvider, bool) {
	if ts.compaction || len(cfg.Fallbacks) == 0 || ts.fallback != "" {
		return FallbackProvider{}, false
	}
	if ts.failure != nil || ts.status != codex.TurnFailed || !isQuotaFailure(ts.turnErr) {
		return FallbackProvider{}, false
	}
	if ts.s.usesFallback() {
		return FallbackProvider{}, false
	}
	return cfg.Fallbacks[0], true
}

// runFallback retries the turn's input once on fb. A responses provider runs through codex, the
// thread resumed under that provider (same input, tools and approvals); a chat provider answers the
// prompt with the transcript so far as context, text only. It reports whether a responses attempt
// left codex retired (it could not start, or its outcome retired it).
func (ts *turnRunner) runFallback(cfg Config, fb FallbackProvider, deadline *turnDeadline) (retired bool) {
	why := "the usage limit is reached"
	if ts.turnErr != nil {
		why = ts.turnErr.Message
	}
	cooldown := cooldownOf(ts.turnErr, cfg.FallbackCooldown)
	ts.live.flush() // events held for rows not on disk go out before the fallback's
	ts.apiCalls++
	ts.fallback = fb.Name
	ts.status, ts.turnErr, ts.failure = "", nil, nil
	ts.emit(hermesproto.Event{Kind: hermesproto.EventKindFallback, Text: fmt.Sprintf("%s; retrying on fallback provider %s (%s, %s) for %v",
		why, fb.Name, fb.Kind, fb.Model, cooldown.Round(time.Second))})
	ts.s.h.log.Info("retrying a turn on a fallback provider", "folder", ts.s.folder, "provider", fb.Name, "kind", fb.Kind, "cooldown", cooldown)
	s := ts.s
	view := s.moveToFallback(fb, cooldown)

	if fb.Kind == FallbackChat {
		ts.runChatFallback(cfg, fb, deadline.timer.C)
		return false
	}

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
	var wg conc.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.TurnTimeout)
	defer cancel() // runs before wg.Wait: the watcher below ends
	wg.Go(func() {
		// Stop the request at the turn's deadline, an interrupt, or shutdown.
		select {
		case <-deadline:
		case <-ts.interrupted:
		case <-ts.s.h.closing:
		case <-ctx.Done():
		}
		cancel()
	})

	var apiKey string
	if fb.APIKeyEnv != "" {
		apiKey = os.Getenv(fb.APIKeyEnv)
	}
	history := ts.s.fallbackHistory()
	history = append(history, chatHistory(ts.messages[1:])...) // this turn's rows so far, prompt excluded

	resp, err := chatfallback.Stream(ctx, chatfallback.Request{
		BaseURL: fb.BaseURL, Model: fb.Model, APIKey: apiKey, History: history, Prompt: ts.input.Prompt,
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

// fallbackNow returns the fallback provider the session's turns run on, or nil for the primary. The
// session goes back to the primary once the fallback's cooldown has passed, or when the provider is
// no longer configured; a thread that ran under a responses fallback is then resumed under the
// primary. On the session's goroutine (planRun).
func (s *Session) fallbackNow(st *sessionState) *FallbackProvider {
	if st.fallback == nil {
		return nil
	}
	if time.Now().Before(st.fallbackEnd) && slices.Contains(s.h.config().Fallbacks, *st.fallback) {
		fb := *st.fallback
		return &fb
	}
	if st.fallback.Kind == FallbackResponses {
		st.loadedGen = 0
	}
	st.fallback = nil
	return nil
}
