package annotate

import (
	"fmt"
	"strings"
	"time"
)

// CompactCount is n for a short status: "950", "1.2k", "34k", "1.5M".
func CompactCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

// FirstLine is s's first line, without the space around it.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// When says when t was, in the local time zone and in words a message can use, seen from now:
// "just now", "12 min ago", "today 14:02", "yesterday 09:15", "Mon 10:00" (this week), "Dec 2"
// (this year), "Dec 2 2025".
func When(t, now time.Time) string {
	t = t.In(now.Location())
	d := now.Sub(t)
	switch {
	case d >= 0 && d < time.Minute:
		return "just now"
	case d >= 0 && d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	}
	day := func(x time.Time) time.Time {
		y, m, dd := x.Date()
		return time.Date(y, m, dd, 0, 0, 0, 0, x.Location())
	}
	days := int(day(now).Sub(day(t)).Hours()/24 + 0.5)
	switch {
	case days == 0:
		return "today " + t.Format("15:04")
	case days == 1:
		return "yesterday " + t.Format("15:04")
	case days > 1 && days < 7:
		return t.Format("Mon 15:04")
	case t.Year() == now.Year():
		return t.Format("Jan 2")
	}
	return t.Format("Jan 2 2006")
}
