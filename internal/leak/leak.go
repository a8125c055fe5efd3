// Package leak samples what this process holds (goroutines, open files, the live heap) so that a
// test can run many turns and check that the process does not grow between two points.
package leak

import (
	"runtime"
	"testing"
)

// Sample is what the process held at one moment.
type Sample struct {
	Goroutines int
	Files      int    // open file descriptors (handles, on Windows)
	Heap       uint64 // live heap bytes, after a collection
}

// Take samples the process after two garbage collections (the second frees what the first's
// finalizers released). It fails t if the open files cannot be counted.
func Take(t testing.TB) Sample {
	t.Helper()
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	files, err := openFiles()
	if err != nil {
		t.Fatalf("count open files: %v", err)
	}
	return Sample{Goroutines: runtime.NumGoroutine(), Files: files, Heap: ms.HeapAlloc}
}

// Check fails t when the process grew from before to after: by more than two goroutines or open
// files (a test's own helpers come and go), or by more than heapSlack bytes of live heap (what the
// test's fakes record on purpose).
func Check(t testing.TB, before, after Sample, heapSlack int64) {
	t.Helper()
	if after.Goroutines > before.Goroutines+2 {
		t.Errorf("goroutines grew from %d to %d", before.Goroutines, after.Goroutines)
	}
	if after.Files > before.Files+2 {
		t.Errorf("open files grew from %d to %d", before.Files, after.Files)
	}
	if grow := int64(after.Heap) - int64(before.Heap); grow > heapSlack {
		t.Errorf("the heap grew by %d kB (%d -> %d kB), more than the %d kB allowed", grow>>10, before.Heap>>10, after.Heap>>10, heapSlack>>10)
	}
}
