package agenthost

// This file judges how a turn failed: whether codex must be retired, and what to tell the user.

import (
	"errors"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// assess classifies how the turn ended and whether codex must be retired for it.
func (ts *turnRunner) assess() (retire bool, why string) {
	reason := ts.interruptReason()
	switch {
	case ts.failure != nil:
		return true, "the turn broke: " + ts.failure.Error()
	case strings.HasPrefix(reason, "turn timed out"):
		return true, reason
	case ts.status == codex.TurnFailed && isAuthFailure(ts.turnErr):
		return true, "authentication failed"
	case ts.status == codex.TurnFailed && isQuotaFailure(ts.turnErr):
		return true, "usage limit reached"
	}
	return false, ""
}

// isQuotaFailure reports a usage-limit, rate-limit or billing failure.
func isQuotaFailure(e *codex.TurnError) bool {
	if e == nil {
		return false
	}
	switch e.CodexErrorInfo.Kind() {
	case codex.ErrorUsageLimitExceeded, codex.ErrorRateLimitExceeded:
		return true
	case codex.ErrorTooManyAttempts:
		if e.CodexErrorInfo.HTTPStatus() == 429 {
			return true
		}
	}
	msg := strings.ToLower(e.Message)
	for _, s := range []string{"usage limit", "quota", "billing", "insufficient_quota", "rate limit"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// isAuthFailure reports a refused login or key.
func isAuthFailure(e *codex.TurnError) bool {
	if e == nil {
		return false
	}
	if e.CodexErrorInfo.Kind() == codex.ErrorUnauthorized {
		return true
	}
	st := e.CodexErrorInfo.HTTPStatus()
	if st == 401 || st == 403 {
		return true
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, "401 unauthorized") || strings.Contains(msg, "not logged in") || strings.Contains(msg, "codex login")
}

// failureAdvice tells a person what to do about a failed turn.
func failureAdvice(e *codex.TurnError) string {
	if e == nil {
		return "The turn failed without a reason from codex. Ask again; the hermes-lsp log may say more."
	}
	switch {
	case isAuthFailure(e):
		return "Codex could not authenticate: run `codex login` in a terminal (or set OPENAI_API_KEY), then ask again. (" + e.Message + ")"
	case isQuotaFailure(e):
		return "The model provider's usage limit is reached: " + e.Message +
			" Try again later, or configure hermes fallbackProviders to answer on another provider."
	}
	return "The turn failed: " + e.Message + " Ask again; if it repeats, the hermes-lsp log has details."
}

// shortCause says in a few words why codex stopped: its exit status, or the error's first line.
func shortCause(err error) string {
	var exit *codex.ExitError
	if errors.As(err, &exit) {
		return exit.Status
	}
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(strings.TrimSpace(s), ":")
}
