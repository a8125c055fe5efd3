package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneGC: the collector's target is 200 unless GOGC is set, even to "".
func TestTuneGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	for _, v := range []string{"150", ""} {
		t.Setenv("GOGC", v)
		if tuneGC() || debug.SetGCPercent(100) != 100 {
			t.Errorf("GOGC=%q: tuneGC changed the collector", v)
		}
	}
	t.Setenv("GOGC", "") // restored after the test; unset it for the last case
	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	if !tuneGC() || debug.SetGCPercent(100) != gcPercent {
		t.Errorf("GOGC unset: the collector's target is not %d", gcPercent)
	}
}
