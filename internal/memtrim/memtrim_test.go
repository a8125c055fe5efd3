package memtrim

import (
	"context"
	"runtime/debug"
	"testing"
	"time"
)

// TestWatch: a quiet interval right after a busy one trims, once; quiet ones after it, busy ones,
// and quiet ones with no activity before do not.
func TestWatch(t *testing.T) {
	const quiet = 100
	for _, tc := range []struct {
		name  string
		alloc []uint64 // bytes allocated in each interval
		trims []bool
	}{
		{"idle", []uint64{0, 10, 100}, []bool{false, false, false}},
		{"burst", []uint64{500, 0, 0}, []bool{false, true, false}},
		{"long burst", []uint64{500, 500, 500, 50}, []bool{false, false, false, true}},
		{"two bursts", []uint64{101, 1, 200, 99, 0}, []bool{false, true, false, true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := watch{quiet: quiet, last: 1000}
			total := w.last
			for i, n := range tc.alloc {
				total += n
				if got := w.tick(total); got != tc.trims[i] {
					t.Errorf("interval %d (%d bytes): trim %v, want %v", i, n, got, tc.trims[i])
				}
			}
		})
	}
}

// sink keeps an allocation from being optimised away.
var sink []byte

// TestRunTrims: Run trims once the process stops allocating, and returns when its context ends.
func TestRunTrims(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	trimmed := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, 10*time.Millisecond, 1<<20, func() {
			select {
			case trimmed <- struct{}{}:
			default:
			}
		})
	}()
	defer func() { cancel(); <-done }()
	// A burst of 4 MiB, then nothing: the trim follows within two intervals of Run's start.
	for range 100 {
		for range 64 {
			sink = make([]byte, 64<<10)
		}
		select {
		case <-trimmed:
			return
		case <-time.After(100 * time.Millisecond): // Run had not started: another burst
		}
	}
	t.Fatal("no trim after bursts of allocations")
}

// TestTune: Tune sets GOGC 200 unless the environment sets GOGC, even to "".
func TestTune(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	for _, v := range []string{"150", ""} {
		t.Setenv("GOGC", v)
		if Tune() || debug.SetGCPercent(100) != 100 {
			t.Errorf("GOGC=%q: Tune changed the collector", v)
		}
	}
}
