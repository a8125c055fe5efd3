package proctest

import (
	"errors"
	"os/exec"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Children lists the running processes whose parent is ppid.
func Children(ppid int) []int {
	var out []int
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(snap)
	entry := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &entry); err == nil; err = windows.Process32Next(snap, &entry) {
		// Windows reuses pids and keeps a dead parent's pid in its children: check the child runs.
		if int(entry.ParentProcessID) == ppid && !Gone(int(entry.ProcessID)) {
			out = append(out, int(entry.ProcessID))
		}
	}
	return out
}

// Gone reports whether pid no longer runs: it does not exist, or it has exited (while a handle
// to it keeps it around, as a zombie does on Unix).
func Gone(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true
	}
	defer windows.CloseHandle(h)
	event, err := windows.WaitForSingleObject(h, 0)
	return err == nil && event == windows.WAIT_OBJECT_0
}

// Exists reports whether pid exists at all, exited or not: false once no handle keeps it.
func Exists(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER) // the error for a pid that names nothing
	}
	_ = windows.CloseHandle(h)
	return true
}

// FindCommand finds nothing: another process's command line is not in a Toolhelp snapshot.
func FindCommand(args ...string) int { return 0 }

// withEnv finds nothing: Windows shows no other process's environment without reading its memory,
// so [EndCodex] checks nothing (codex's job object ends it with its server).
func withEnv(entry string) []int { return nil }

// terminate ends pid at once: a console program cannot be asked to end.
func terminate(pid int) { _ = Kill(pid) }

// groupAttr starts a new process group, so that a Ctrl-C in the test's console does not reach it.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// sessionAttr is groupAttr: Windows has no sessions of this kind.
func sessionAttr() *syscall.SysProcAttr { return groupAttr() }

// signalGroup kills the tree of processes under pid with taskkill: Windows has no signals, and a
// process group there is only for console events.
func signalGroup(pid int, kill bool) error {
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}

// groupGone reports whether pid, the group's leader, is gone: Windows cannot list a group.
func groupGone(pid int) bool { return Gone(pid) }
