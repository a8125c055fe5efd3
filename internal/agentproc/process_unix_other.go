//go:build unix && !linux

package agentproc

import "syscall"

// setParentDeathSignal does nothing: macOS and the BSDs have no parent-death signal. An agent whose
// parent died still sees the end of its stdin (the pipe's only writer was the parent), at which
// codex exits, as it does when Close closes stdin; an agent that ignores it, and commands it runs
// that do, may outlive us.
func setParentDeathSignal(attr *syscall.SysProcAttr) {}
