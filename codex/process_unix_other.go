//go:build unix && !linux

package codex

import "syscall"

// setParentDeathSignal does nothing: macOS and the BSDs have no parent-death signal. A codex whose
// parent died still sees the end of its stdin (the pipe's only writer was the parent) and exits,
// as it does when Close closes stdin; only commands it runs that ignore that may outlive us.
func setParentDeathSignal(attr *syscall.SysProcAttr) {}
