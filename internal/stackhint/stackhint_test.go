package stackhint

import (
	"runtime"
	"sync"
	"testing"
)

// TestGrow: goroutines may call Grow at once, and carry on as before (a deep call after it works).
func TestGrow(t *testing.T) {
	var wg sync.WaitGroup
	results := make([]int, 8)
	for i := range results {
		wg.Go(func() {
			Grow()
			results[i] = depthSum(200)
			runtime.Gosched()
		})
	}
	wg.Wait()
	for i, r := range results {
		if r != 200*201/2 {
			t.Errorf("goroutine %d: %d", i, r)
		}
	}
}

func depthSum(n int) int {
	if n == 0 {
		return 0
	}
	return n + depthSum(n-1)
}

// BenchmarkGrow is the cost of Grow at a new goroutine's start.
func BenchmarkGrow(b *testing.B) {
	for b.Loop() {
		done := make(chan struct{})
		go func() {
			Grow()
			close(done)
		}()
		<-done
	}
}
