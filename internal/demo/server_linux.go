package demo

import "syscall"

// serverProcAttr gives the server a process group of its own and has the kernel kill it if the
// demo dies first.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
