package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mem is a process's resident memory in kB: now (VmRSS) and its peak (VmHWM).
type Mem struct{ RSS, HWM int64 }

// ProcMem reads /proc/<pid>/status.
func ProcMem(pid int) (Mem, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Mem{}, err
	}
	var m Mem
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.RSS = n
		case "VmHWM:":
			m.HWM = n
		}
	}
	return m, nil
}

var (
	clkOnce sync.Once
	clkTck  int64 = 100
)

// ticks is the kernel's clock tick (USER_HZ), from getconf CLK_TCK; 100 when it cannot be read.
func ticks() int64 {
	clkOnce.Do(func() {
		out, err := exec.Command("getconf", "CLK_TCK").Output()
		if err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && n > 0 {
				clkTck = n
			}
		}
	})
	return clkTck
}

// ProcCPU is the CPU time (user + system) pid has used itself, its children excluded, from
// /proc/<pid>/stat. Its resolution is a clock tick (10 ms).
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// After the name: state(0) ppid(1) ... utime(11) stime(12).
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration((ut + st) * int64(time.Second) / ticks()), nil
}
