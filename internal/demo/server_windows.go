package demo

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// serverProcAttr gives the server a process group of its own, so a Ctrl-C in the console reaches
// only the demo. A demo that dies closes the server's stdin, and the server exits at its end.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}
