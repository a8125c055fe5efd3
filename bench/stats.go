// Package bench measures hermes-lsp against the baselines its claims are about: a bare codex
// app-server client with no host, codex-acp (the ACP adapter of codex) driven with the same model and
// prompts, an event flood from a fake codex, and startup. Everything runs offline, on loopback, against
// the fake Responses model of internal/fakemodel. bench/cmd/hermes-bench runs it all and prints the
// markdown table that docs/benchmarks.md keeps.
package bench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Samples are durations measured for one quantity.
type Samples []time.Duration

// Percentile returns the p-th percentile (0..100), by linear interpolation between the closest ranks;
// 0 for no samples.
func (s Samples) Percentile(p float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	if len(sorted) == 1 {
		return sorted[0]
	}
	rank := p / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(rank))
	hi := int(math.Ceil(rank))
	frac := rank - float64(lo)
	return sorted[lo] + time.Duration(frac*float64(sorted[hi]-sorted[lo]))
}

// Median is the 50th percentile.
func (s Samples) Median() time.Duration { return s.Percentile(50) }

// P95 is the 95th percentile.
func (s Samples) P95() time.Duration { return s.Percentile(95) }

// Ms formats a duration in milliseconds with two decimals.
func Ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// SignedMs formats a difference in milliseconds with its sign.
func SignedMs(d time.Duration) string {
	return fmt.Sprintf("%+.2f ms", float64(d)/float64(time.Millisecond))
}

// MiB formats a size in kilobytes as mebibytes.
func MiB(kb int64) string {
	return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
}
