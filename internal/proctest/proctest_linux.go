package proctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Children lists the running processes (zombies left out) whose parent is ppid.
func Children(ppid int) []int {
	var out []int
	want := strconv.Itoa(ppid)
	for _, pid := range pids() {
		state, parent, ok := stat(pid)
		if ok && parent == want && state != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// Gone reports whether pid no longer runs: it does not exist, or it is a zombie.
func Gone(pid int) bool {
	state, _, ok := stat(pid)
	return !ok || state == "Z"
}

// FindCommand returns a running process whose command line holds args in a row, or 0.
func FindCommand(args ...string) int {
	want := []byte(strings.Join(args, "\x00"))
	for _, pid := range pids() {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err == nil && bytes.Contains(b, want) && !Gone(pid) {
			return pid
		}
	}
	return 0
}

// withEnv lists the processes other than this one whose environment holds entry ("KEY=value").
func withEnv(entry string) []int {
	marker := []byte(entry + "\x00")
	var out []int
	for _, pid := range pids() {
		if pid == os.Getpid() {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
		if err == nil && bytes.Contains(append([]byte{0}, append(environ, 0)...), append([]byte{0}, marker...)) {
			out = append(out, pid)
		}
	}
	return out
}

// pids lists the processes in /proc.
func pids() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// stat reads the state and parent pid from /proc/<pid>/stat; ok is false when pid does not exist.
func stat(pid int) (state, ppid string, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", "", false
	}
	// The command name, in parentheses, may hold spaces and parentheses: the fields follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return "", "", false
	}
	return f[0], f[1], true
}
