package agenthost

// This file is the session's side of the fallback chain: which provider its turns run on, and the
// cooldown of each provider that failed. The chain is the primary (codex's own provider), then
// fallbackProviders in order. A provider that fails a turn (the primary: out of quota; a fallback:
// out of quota or failing at all) is skipped for its cooldown, and the turn is retried on the next
// provider not cooling down; a session's turns run on the first provider of the chain not cooling
// down, so once the primary's cooldown has passed they are back on the primary.

import (
	"slices"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost/chatfallback"
)

// primary is the primary provider as the chain's cooldowns and a turn's provider name it: the zero
// FallbackProvider (withDefaults gives every fallback a name, a base URL and a model).
var primary FallbackProvider

// providerName names a provider of the chain for people.
func providerName(p FallbackProvider) string {
	if p == primary {
		return "the primary provider"
	}
	return p.Name
}

// fallbackNow returns the fallback provider a new turn of the session runs on, or nil for the
// primary: the first provider of the chain not cooling down. When every provider is cooling down
// the turn runs on the primary, whose failure then says so. On the session's goroutine (planRun).
func (s *Session) fallbackNow(st *sessionState) *FallbackProvider {
	next := st.providerNow(s.h.config().Fallbacks, time.Now())
	st.switchTo(next)
	return next
}

// providerNow is the first provider of the chain not cooling down at now (nil: the primary); it
// forgets the cooldowns that have passed. A provider no longer configured is never picked.
func (st *sessionState) providerNow(fallbacks []FallbackProvider, now time.Time) *FallbackProvider {
	for p, until := range st.cooldowns {
		if !now.Before(until) {
			delete(st.cooldowns, p)
		}
	}
	if _, cooling := st.cooldowns[primary]; !cooling {
		return nil
	}
	for _, fb := range fallbacks {
		if _, cooling := st.cooldowns[fb]; !cooling {
			return &fb
		}
	}
	return nil
}

// switchTo makes next the provider the session's turns run on (nil: the primary). A thread that ran
// under a responses fallback, or is to run under one, is resumed under its new provider by the next
// codex turn (a chat fallback does not involve codex: the thread stays as it was loaded).
func (st *sessionState) switchTo(next *FallbackProvider) {
	cur := st.fallback
	if (cur == nil && next == nil) || (cur != nil && next != nil && *cur == *next) {
		return
	}
	if (cur != nil && cur.Kind == FallbackResponses) || (next != nil && next.Kind == FallbackResponses) {
		st.loadedGen = 0
	}
	if next != nil {
		p := *next
		next = &p
	}
	st.fallback = next
}

// failedOver is where a turn goes after its provider failed: the next provider of the chain, and the
// session's thread as that provider is to run it.
type failedOver struct {
	next FallbackProvider
	view threadView
	// cooling are the fallbacks passed over because they are cooling down, each with when its
	// cooldown ends: said when no provider is left.
	cooling []string
	ok      bool // false: no provider is left to try
}

// failOver records that failed (primary for the primary) failed a turn: it is skipped for cooldown.
// It moves the session to the next fallback of the chain that the turn has not tried and that is
// not cooling down, and returns it; when none is left the session is put back on the first provider
// not cooling down (the primary when all are) for its next turn.
func (s *Session) failOver(failed FallbackProvider, cooldown time.Duration, tried []FallbackProvider) failedOver {
	var out failedOver
	cfg := s.h.config()
	_ = s.call(func(st *sessionState) {
		now := time.Now()
		if st.cooldowns == nil {
			st.cooldowns = make(map[FallbackProvider]time.Time)
		}
		st.cooldowns[failed] = now.Add(cooldown)
		for _, fb := range cfg.Fallbacks {
			if slices.Contains(tried, fb) {
				continue
			}
			if until, cooling := st.cooldowns[fb]; cooling && now.Before(until) {
				out.cooling = append(out.cooling, fb.Name+" (until "+until.Format("15:04:05")+")")
				continue
			}
			st.switchTo(&fb)
			out.next, out.view, out.ok = fb, st.threadView(), true
			return
		}
		st.switchTo(st.providerNow(cfg.Fallbacks, now))
	})
	return out
}

// fallbackHistory returns the conversation so far (the last historyKept rows), for a chat fallback.
func (s *Session) fallbackHistory() []chatfallback.Message {
	var history []chatfallback.Message
	_ = s.call(func(st *sessionState) {
		h := st.history
		if len(h) > historyKept {
			h = h[len(h)-historyKept:]
		}
		history = chatHistory(h)
	})
	return history
}
