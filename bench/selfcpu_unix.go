//go:build unix

package bench

import (
	"syscall"
	"time"
)

// SelfCPU is this process's CPU time so far (user and system), to the microsecond.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
