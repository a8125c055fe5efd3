//go:build unix && !linux

package demo

import "syscall"

// serverProcAttr gives the server a process group of its own. There is no parent-death signal
// here: a demo that dies closes the server's stdin, and the server exits at its end.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
