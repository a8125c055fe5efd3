package threads

import (
	"fmt"
)

// rateLimitWarnPercent is the use of a rate-limit window from which progress reports mention it.
const rateLimitWarnPercent = 80

// RateLimitNote is what a progress report adds when a rate-limit window is over
// rateLimitWarnPercent used: " · rate limit 85% of 5h".
func (t *Threads) RateLimitNote() string {
	h := t.cfg.Host()
	if h == nil {
		return ""
	}
	rl := h.KnownRateLimits()
	if rl == nil {
		return ""
	}
	pct, mins, ok := rl.Highest()
	if !ok || pct < rateLimitWarnPercent {
		return ""
	}
	return fmt.Sprintf(" · rate limit %d%% of %s", pct, windowName(mins))
}

// windowName says a window's length the way people do: 5h, 7d, 90m.
func windowName(mins int64) string {
	switch {
	case mins <= 0:
		return "the window"
	case mins%(24*60) == 0:
		return fmt.Sprintf("%dd", mins/(24*60))
	case mins%60 == 0:
		return fmt.Sprintf("%dh", mins/60)
	}
	return fmt.Sprintf("%dm", mins)
}
