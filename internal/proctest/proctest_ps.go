//go:build unix && !linux

package proctest

import (
	"os/exec"
	"strconv"
	"strings"
)

// Children lists the running processes (zombies left out) whose parent is ppid.
func Children(ppid int) []int {
	var out []int
	for _, p := range ps() {
		if p.ppid == ppid && !strings.HasPrefix(p.state, "Z") {
			out = append(out, p.pid)
		}
	}
	return out
}

// Gone reports whether pid no longer runs: it does not exist, or it is a zombie.
func Gone(pid int) bool {
	if !Exists(pid) {
		return true
	}
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	return err == nil && strings.HasPrefix(strings.TrimSpace(string(out)), "Z")
}

// FindCommand returns a running process whose command line holds args in a row (ps shows them
// joined by spaces), or 0.
func FindCommand(args ...string) int {
	want := strings.Join(args, " ")
	for _, p := range ps() {
		if strings.Contains(p.command, want) && !strings.HasPrefix(p.state, "Z") {
			return p.pid
		}
	}
	return 0
}

// withEnv finds nothing: outside Linux no reliable, unprivileged way shows another process's
// environment (ps -E on macOS shows it only for some processes), so [EndCodex] checks nothing.
func withEnv(entry string) []int { return nil }

type psRow struct {
	pid, ppid int
	state     string
	command   string
}

// ps lists every process: its pid, parent, state and command line.
func ps() []psRow {
	out, err := exec.Command("ps", "-A", "-o", "pid=,ppid=,stat=,command=").Output()
	if err != nil {
		return nil
	}
	var rows []psRow
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		ppid, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		rows = append(rows, psRow{pid: pid, ppid: ppid, state: f[2], command: strings.Join(f[3:], " ")})
	}
	return rows
}
