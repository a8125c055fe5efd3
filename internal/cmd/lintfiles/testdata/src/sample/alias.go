package sample

import (
	stdos "os"
	"syscall"
)

func aliased(name string) {
	_, _ = stdos.ReadFile(name) // renamed import
	_ = syscall.Unlink(name)    // syscall
	var os struct{ Open func() }
	os.Open = func() {} // here os is a local, the package is stdos: not reported
}
