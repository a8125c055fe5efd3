// Package memtrim trades memory for CPU while the process is busy and gives the memory back once
// it is idle. Tune lets the heap grow to three times what is live before the garbage collector runs
// (GOGC 200 instead of 100), which halves how often it runs while a turn streams; Run then returns
// the heap's free pages to the system after the first quiet interval that follows activity, so
// that an idle server holds less than it would with the default.
package memtrim

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// GCPercent is the collector's target Tune sets: a collection when the heap has grown by this
// percentage of what the last one left live.
const GCPercent = 200

// Tune sets the collector's target to GCPercent, unless the environment sets GOGC (the user's
// choice stands). It reports whether it changed it.
func Tune() bool {
	if _, set := os.LookupEnv("GOGC"); set {
		return false
	}
	debug.SetGCPercent(GCPercent)
	return true
}

// Run watches how much the process allocates, every interval, until ctx ends. An interval in which
// it allocated more than quiet bytes is busy; the first one after a busy one in which it allocated
// less collects the garbage and returns the free memory to the system (debug.FreeOSMemory), then
// calls trimmed when it is not nil. An idle process is trimmed once, not at every interval.
func Run(ctx context.Context, interval time.Duration, quiet uint64, trimmed func()) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	w := watch{quiet: quiet, last: allocated()}
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if !w.tick(allocated()) {
			continue
		}
		debug.FreeOSMemory()
		w.last = allocated() // the collection's own allocations are not activity
		if trimmed != nil {
			trimmed()
		}
	}
}

// watch tells busy intervals from quiet ones by the bytes allocated in each.
type watch struct {
	quiet uint64 // most bytes a quiet interval allocates
	last  uint64 // bytes allocated at the last tick
	busy  bool   // the last interval was busy
}

// tick takes the bytes allocated so far and reports whether to trim now: the interval was quiet
// and the one before busy.
func (w *watch) tick(now uint64) bool {
	n := now - w.last
	w.last = now
	if n > w.quiet {
		w.busy = true
		return false
	}
	trim := w.busy
	w.busy = false
	return trim
}

// allocated is the bytes the process has allocated on the heap since it started.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
