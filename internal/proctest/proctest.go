// Package proctest finds, watches and ends the processes a test or a benchmark started: the
// children of a process, whether a process is gone, the codex processes a test left behind (found
// by the CODEX_HOME in their environment), and process groups to end with everything in them.
//
// Linux reads /proc; macOS and the other Unix systems ask ps(1); Windows takes a Toolhelp snapshot
// and uses taskkill(1) for trees. What a system cannot tell (another process's environment, outside
// Linux) is said on the function, which then does nothing rather than guess.
package proctest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// pollEvery is how often the waits below look again: processes end without telling us.
const pollEvery = 10 * time.Millisecond

// WaitGone waits up to d for pid to stop running (see [Gone]) and reports whether it did.
func WaitGone(pid int, d time.Duration) bool {
	return poll(d, func() bool { return Gone(pid) })
}

// poll calls done every pollEvery until it reports true or d has passed, and returns its last answer.
func poll(d time.Duration, done func() bool) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if done() {
			return true
		}
		select {
		case <-deadline.C:
			return done()
		case <-tick.C:
		}
	}
}

// Kill ends pid at once (SIGKILL; TerminateProcess on Windows). It ends only that process.
func Kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	defer p.Release()
	return p.Kill()
}

// Stop ends pid: asked first (SIGTERM; on Windows, where a console program cannot be asked, at
// once), then killed after grace if it still runs. It ends only that process.
func Stop(pid int, grace time.Duration) {
	if pid <= 0 || Gone(pid) {
		return
	}
	terminate(pid)
	if !WaitGone(pid, grace) {
		_ = Kill(pid)
	}
}

// EndCodex checks, when a test ends, that no codex it started outlived the server that ran it: a
// process whose environment holds CODEX_HOME=codexHome that still runs 5 s on is reported as an
// error and killed by its pid. Only Linux shows another process's environment; elsewhere EndCodex
// checks nothing (codex still dies with its server: see codex/process_*.go).
func EndCodex(t testing.TB, codexHome string) {
	t.Helper()
	for _, pid := range leftWithEnv("CODEX_HOME=" + codexHome) {
		t.Errorf("codex process %d (CODEX_HOME %s) outlived its server; killing it", pid, codexHome)
		_ = Kill(pid)
	}
}

// EndEnv is [EndCodex] for any process whose environment holds entry ("KEY=value", such as the
// throwaway HOME a test gave a program): one that still runs 5 s on is reported and killed. It
// finds the processes that left the group of the program they came from, which [KillGroup] misses.
// Only Linux shows another process's environment; elsewhere EndEnv checks nothing.
func EndEnv(t testing.TB, entry string) {
	t.Helper()
	for _, pid := range leftWithEnv(entry) {
		t.Errorf("process %d (%s) outlived the test; killing it", pid, entry)
		_ = Kill(pid)
	}
}

// leftWithEnv waits up to 5 s for the processes whose environment holds entry to end, and returns
// those still running.
func leftWithEnv(entry string) []int {
	var left []int
	poll(5*time.Second, func() bool {
		left = slices.DeleteFunc(withEnv(entry), Gone)
		return len(left) == 0
	})
	return left
}

// GroupCommand is exec.CommandContext for a command that leads a process group of its own (see
// [NewGroup]): when ctx ends, the whole group is killed, not only the command.
func GroupCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	NewGroup(cmd)
	cmd.Cancel = func() error { return KillGroup(cmd.Process.Pid) }
	return cmd
}

// RunGroup runs cmd, made by [GroupCommand], to its end with its output collected (waiting at most
// 5 s for the output once it has exited or been killed), then kills whatever is left in its group,
// and returns the output and how cmd ended. It logs how long cmd ran, as what.
func RunGroup(t testing.TB, what string, cmd *exec.Cmd) (stdout, stderr *bytes.Buffer, err error) {
	t.Helper()
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err = cmd.Run()
	t.Logf("%s ran %v (exit: %v)", what, time.Since(start).Round(time.Millisecond), err)
	if cmd.Process != nil {
		_ = KillGroup(cmd.Process.Pid) // helpers left behind, if any
	}
	return stdout, stderr, err
}

// NewGroup makes cmd, not yet started, lead a process group of its own (a new process group on
// Windows), which [KillGroup] and [TerminateGroup] end with what cmd started, unless that moved to
// groups of its own.
func NewGroup(cmd *exec.Cmd) { cmd.SysProcAttr = groupAttr() }

// NewSession is [NewGroup] for a program with helpers of its own (an editor): the group is also a
// new session, with no controlling terminal, so that none of them can stop on reading from the
// terminal the tests run in. On Windows it is [NewGroup].
func NewSession(cmd *exec.Cmd) { cmd.SysProcAttr = sessionAttr() }

// KillGroup kills the group that pid leads (see [NewGroup]); on Windows, the tree of processes
// under pid.
func KillGroup(pid int) error { return signalGroup(pid, true) }

// TerminateGroup asks the group that pid leads to end (SIGTERM); on Windows, where console
// programs cannot be asked, it kills the tree under pid.
func TerminateGroup(pid int) error { return signalGroup(pid, false) }

// WaitGroupGone waits up to d for the group that pid leads to be empty (on Windows: for pid to be
// gone) and reports whether it is.
func WaitGroupGone(pid int, d time.Duration) bool {
	return poll(d, func() bool { return groupGone(pid) })
}
