//go:build unix

package proctest

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// Exists reports whether pid exists at all, a zombie included: false once it has been reaped.
func Exists(pid int) bool {
	return !errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}

// terminate asks pid to end: SIGTERM.
func terminate(pid int) { _ = unix.Kill(pid, unix.SIGTERM) }

func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// sessionAttr starts a new session, which is also a new process group led by the process.
func sessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// signalGroup sends SIGKILL (kill) or SIGTERM to the group pid leads: the negative pid names it.
func signalGroup(pid int, kill bool) error {
	sig := unix.SIGTERM
	if kill {
		sig = unix.SIGKILL
	}
	return unix.Kill(-pid, sig)
}

// groupGone reports whether no process is left in the group pid leads.
func groupGone(pid int) bool { return unix.Kill(-pid, 0) != nil }
