package agentproc

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// processTree ends the agent with the commands it runs: the agent and everything it starts belong
// to a job object that kills its members when its last handle closes. That handle is ours alone, so
// the agent dies with us even when we are killed (Windows closes our handles), and TerminateJobObject ends the
// whole tree at once; Windows has no process groups to signal.
type processTree struct {
	job    windows.Handle
	forced bool // stop or kill ended the job while the agent ran: its exit status is ours
}

// treeProcAttr starts the agent suspended, so that it joins the job before it can start anything that
// would be left outside it, and in a process group of its own, so that a Ctrl-C in our console
// reaches only us, who stop the agent in order.
func treeProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
}

// startTree puts the started, still suspended agent in a new job object that kills its members
// when closed, then lets it run. On an error the caller kills and reaps the process.
func startTree(cmd *exec.Cmd) (processTree, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return processTree{}, fmt.Errorf("create a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return processTree{}, fmt.Errorf("set the job object to kill on close: %w", err)
	}
	pid := uint32(cmd.Process.Pid)
	if err := assign(job, pid); err != nil {
		_ = windows.CloseHandle(job)
		return processTree{}, err
	}
	if err := resumeThreads(pid); err != nil {
		_ = windows.CloseHandle(job) // kills the agent, now a member
		return processTree{}, err
	}
	return processTree{job: job}, nil
}

// assign puts the process pid in job.
func assign(job windows.Handle, pid uint32) error {
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		return fmt.Errorf("put process %d in a job object: %w", pid, err)
	}
	return nil
}

// resumeThreads resumes the threads of the suspended process pid (one, its main thread). os/exec
// closes the thread handle CreateProcess returns, so the thread is found in a snapshot instead.
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list the threads of process %d: %w", pid, err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		thread, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		_, err = windows.ResumeThread(thread)
		_ = windows.CloseHandle(thread)
		if err != nil {
			return fmt.Errorf("resume thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("list the threads of process %d: %w", pid, err)
	}
	if resumed == 0 {
		return fmt.Errorf("process %d has no thread to resume", pid)
	}
	return nil
}

// stop ends the job: Windows has no request to stop that a console program like the agent could
// handle without sharing our console, so after the end of its stdin (Close's first step) the only
// step left is to terminate it with what it started.
func (t *processTree) stop() {
	t.forced = true
	t.kill()
}

// kill terminates every process in the job.
func (t *processTree) kill() {
	if t.job != 0 {
		_ = windows.TerminateJobObject(t.job, 1)
	}
}

// release closes the job's handle; any member still running is killed as it closes.
func (t *processTree) release() {
	if t.job != 0 {
		_ = windows.CloseHandle(t.job)
		t.job = 0
	}
}

// endedByClose reports whether Close terminated the agent: Windows exit statuses cannot tell a
// termination from an exit, so Close's own record says it.
func (t *processTree) endedByClose(exitErr error) bool {
	var ee *exec.ExitError
	return t.forced && errors.As(exitErr, &ee)
}
