//go:build unix

package agentproc

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// processTree ends the agent with the commands it runs: the agent leads a process group of its own,
// and every signal goes to the whole group.
type processTree struct {
	pgid int
}

// treeProcAttr starts the agent as the leader of a new process group (so that a signal to the group
// reaches the commands it runs, and a Ctrl-C in a terminal reaches only us, who stop the agent in
// order); on Linux it is also killed if we die without closing it (process_linux.go).
func treeProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(attr)
	return attr
}

// startTree records the group of the started agent: its pid, since it leads the group.
func startTree(cmd *exec.Cmd) (processTree, error) {
	return processTree{pgid: cmd.Process.Pid}, nil
}

// stop asks the group to end: SIGTERM.
func (t processTree) stop() { t.signal(unix.SIGTERM) }

// kill ends the group: SIGKILL.
func (t processTree) kill() { t.signal(unix.SIGKILL) }

// release has nothing to free: a process group needs no handle.
func (t processTree) release() {}

// endedByClose reports whether exitErr says the agent died of a signal: one Close sent, since Close
// is what ends it (an agent that exits with a status, even after SIGTERM, reports that status).
func (t processTree) endedByClose(exitErr error) bool {
	var ee *exec.ExitError
	return errors.As(exitErr, &ee) && !ee.Exited()
}

func (t processTree) signal(sig unix.Signal) {
	// The negative pid names the group. Errors mean the group is gone already.
	_ = unix.Kill(-t.pgid, sig)
}
