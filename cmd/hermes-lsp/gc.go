package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the collector's target hermes-lsp sets: a collection when the heap has grown by
// twice what the last one left live, not once. A streaming turn allocates steadily; the collector
// then runs half as often (its mark work fell from 6.6 % to 1.7 % of the server's CPU in the bench's
// 10-folder row). The heap this lets grow goes back to the system when the server is idle
// (lsp's memoryLoop).
const gcPercent = 200

// tuneGC sets the collector's target to gcPercent unless the environment sets GOGC (the user's
// choice stands, even empty). It reports whether it set it.
func tuneGC() bool {
	if _, set := os.LookupEnv("GOGC"); set {
		return false
	}
	debug.SetGCPercent(gcPercent)
	return true
}
