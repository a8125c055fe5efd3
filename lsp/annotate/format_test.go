package annotate_test

import (
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
)

// TestWhen: times in local words, from a minute ago to another year.
func TestWhen(t *testing.T) {
	zone := time.FixedZone("here", 2*3600)
	now := time.Date(2026, 12, 4, 15, 30, 0, 0, zone) // a Friday
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{now.Add(-20 * time.Second), "just now"},
		{now.Add(-12 * time.Minute), "12 min ago"},
		{time.Date(2026, 12, 4, 9, 5, 0, 0, zone), "today 09:05"},
		{time.Date(2026, 12, 4, 7, 5, 0, 0, time.UTC), "today 09:05"}, // shown in the local zone
		{time.Date(2026, 12, 3, 23, 59, 0, 0, zone), "yesterday 23:59"},
		{time.Date(2026, 11, 30, 10, 0, 0, 0, zone), "Mon 10:00"},
		{time.Date(2026, 11, 2, 10, 0, 0, 0, zone), "Nov 2"},
		{time.Date(2025, 12, 2, 10, 0, 0, 0, zone), "Dec 2 2025"},
	} {
		if got := annotate.When(tc.t, now); got != tc.want {
			t.Errorf("When(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
