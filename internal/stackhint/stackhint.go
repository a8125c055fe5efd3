// Package stackhint grows a new goroutine's stack while it is still shallow.
//
// A goroutine starts with a small stack and the runtime doubles it each time a call needs more,
// copying the stack and adjusting every frame on it: the deeper the goroutine is when it runs out,
// the more frames each copy adjusts. A goroutine that is known to go deep (an editor request that
// starts a turn goes through the session, codex's client and encoding/json's recursion) does better
// to take its stack in one step at its start, when a copy adjusts two or three frames. The stack is
// the runtime's as ever: it shrinks again at a garbage collection when the goroutine uses little of
// it, and is freed when the goroutine ends.
//
// The row it pays in (make bench, section 1; docs/benchmarks.md, "Performance tricks audited"):
// "Host only: added turn latency" (also with the editor's token) and "added time to first answer
// update" are 0.04 ms (about 12 %) higher without it: 0.36/0.33/0.33 ms with, 0.40/0.37/0.37
// without (2026-12-04, 50 interleaved runs each), while two copies of one binary differ by at
// most 0.01 ms over 90 runs.
package stackhint

// frame is the stack one call of grow takes; Grow makes depth+1 of them (12 KiB and a little).
const (
	frame = 4 << 10
	depth = 2
)

// Grow makes the calling goroutine's stack hold about 12 KiB more than it uses now: 16 KiB at the
// start of a goroutine, the largest size the runtime keeps pooled per thread (a larger stack comes
// from the heap each time).
func Grow() { grow(depth) }

// grow takes n+1 frames of the size of pad. It is not inlined, so that its frames are real.
//
//go:noinline
func grow(n int) byte {
	var pad [frame]byte
	pad[n] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return grow(n-1) + pad[n]
}
