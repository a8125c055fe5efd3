//go:build unix

package main

import (
	"os"
	"syscall"
)

// pollable returns f, a pipe or socket from the editor, as a file the Go runtime polls: its reads
// and writes then park the goroutine rather than hold a thread in a blocking system call, so a
// message from the editor wakes the server without the scheduler first taking a processor back from
// that call (a tenth of a millisecond on a small virtual machine). A terminal or a regular file is
// returned as it is: making them non-blocking would change them for whoever shares them.
func pollable(f *os.File) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f
	}
	fd := f.Fd()
	if err := syscall.SetNonblock(int(fd), true); err != nil {
		return f
	}
	return os.NewFile(fd, f.Name()) // non-blocking now: this file is registered with the poller
}
