// Package agentproc runs an agent (codex app-server, an ACP agent) as a child process: its own
// process group (a job object on Windows) so that it can be ended with everything it started, its
// stderr kept in a bounded tail for error messages, and a Close that always reaps it.
package agentproc

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options say how to start the agent. Every field but Command may be left zero.
type Options struct {
	// Name names the agent in errors ("codex app-server", "the agent"); default the command's base
	// name.
	Name string
	// Command is the executable: a path, or a name looked up on PATH.
	Command string
	// Args are its arguments.
	Args []string
	// Env holds extra environment entries ("KEY=value") on top of this process's environment; a
	// later entry of a key overrides an earlier one.
	Env []string
	// Dir is the working directory of the process; empty means this process's.
	Dir string
	// StderrLines is how many lines of stderr to keep for error messages (default 300).
	StderrLines int
	// Grace bounds each step of Close: the wait after closing stdin, then after SIGTERM (default 2s;
	// on Windows, where there is no SIGTERM, only the first step).
	Grace time.Duration
}

// Process is a running agent. Its stdout and stdin are for a JSON-RPC connection; its stderr, and
// anything else it prints, is kept in a bounded Tail. The child is always reaped: Close ends it, and
// an unexpected exit is seen at once on Done.
type Process struct {
	cmd    *exec.Cmd
	name   string
	stdin  *os.File
	stdout *os.File
	stderr *Tail
	grace  time.Duration

	drained chan struct{} // closed when stderr has been read to its end
	errR    *os.File      // read end of stderr, closed to stop a drain that never sees EOF
	done    chan struct{} // closed when the child has been reaped
	exitErr error
	tree    processTree // how this OS ends the agent with what it started (process_unix.go, process_windows.go)

	closeOnce sync.Once
}

// Start spawns the agent as opts say, in a process group (a job object on Windows) of its own.
func Start(opts Options) (*Process, error) {
	name := opts.Name
	if name == "" {
		name = filepath.Base(opts.Command)
	}
	path, err := exec.LookPath(opts.Command)
	if err != nil {
		return nil, fmt.Errorf("find %s's command %q: %w", name, opts.Command, err)
	}
	cmd := exec.Command(path, opts.Args...)
	cmd.Dir = opts.Dir
	cmd.Env = append(os.Environ(), opts.Env...)
	// Started so that Close can end the commands the agent runs along with it, and so that it dies
	// with us if we die without closing it: a process group (and on Linux a parent-death signal), or
	// a job object on Windows.
	cmd.SysProcAttr = treeProcAttr()

	// Pipes of our own rather than cmd.StdoutPipe: Wait must not close the read ends while the
	// connection is still reading what the agent wrote last.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("start %s %s: %w", name, path, err)
	}
	closeAll(inR, outW, errW) // the child has its copies
	tree, err := startTree(cmd)
	if err != nil {
		// Not yet reaped: kill and reap it, so that a failed start leaves nothing behind.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("start %s %s: %w", name, path, err)
	}

	lines := opts.StderrLines
	if lines <= 0 {
		lines = 300
	}
	grace := opts.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	p := &Process{
		cmd: cmd, name: name, stdin: inW, stdout: outR, stderr: NewTail(lines), grace: grace,
		drained: make(chan struct{}), errR: errR, done: make(chan struct{}), tree: tree,
	}
	go func() {
		defer close(p.drained)
		_, _ = p.stderr.ReadFrom(errR)
	}()
	go func() {
		defer close(p.done)
		p.exitErr = cmd.Wait()
	}()
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// Pid is the process id of the child.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Path is the executable that was started.
func (p *Process) Path() string { return p.cmd.Path }

// Stdin is the writer to the agent's standard input.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the reader of the agent's standard output.
func (p *Process) Stdout() io.ReadCloser { return p.stdout }

// Stderr is the tail of what the agent wrote on stderr (and, through the connection, non-JSON
// stdout lines).
func (p *Process) Stderr() *Tail { return p.stderr }

// Done is closed once the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr is the child's exit status once Done is closed (nil for a clean exit), else nil.
func (p *Process) ExitErr() error {
	select {
	case <-p.done:
		return p.exitErr
	default:
		return nil
	}
}

// ExitError describes how the process ended, with the last lines of its stderr, for messages that
// reach a person. It returns nil while the process runs.
func (p *Process) ExitError() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	p.waitDrained()
	status := "exited"
	if p.exitErr != nil {
		status = p.exitErr.Error()
	}
	return &ExitError{Name: p.name, Status: status, Stderr: p.stderr.Last(20), Err: p.exitErr}
}

// ExitError is the error a dead agent leaves behind: its exit status and its last words.
type ExitError struct {
	Name   string // the agent, as Options.Name has it
	Status string // e.g. "exit status 1", "signal: killed"
	Stderr string // the last lines of stderr, possibly empty
	Err    error  // the underlying *exec.ExitError, if any
}

func (e *ExitError) Error() string {
	msg := e.Name + " stopped (" + e.Status + ")"
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += "; its last output:\n" + s
	}
	return msg
}

func (e *ExitError) Unwrap() error { return e.Err }

// waitDrained waits, briefly, for stderr to be read to its end once the child is gone: a grandchild
// holding the pipe open must not hang us.
func (p *Process) waitDrained() {
	select {
	case <-p.drained:
	case <-time.After(200 * time.Millisecond):
		_ = p.errR.Close()
		<-p.drained
	}
}

// Close ends the agent: it closes stdin (codex exits at the end of its input; some ACP agents do
// not), waits up to the grace period, then asks it to stop (SIGTERM to its process group; on
// Windows the job object is ended at once, as Windows has no such request), waits again, then kills
// it (SIGKILL). Whatever the agent started and left running is killed too. The child is reaped
// before Close returns. It returns nil when the agent exited of its own accord or by the stop Close
// sent.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		_ = p.stdin.Close()
		if !p.waitFor(p.grace) {
			p.tree.stop()
			if !p.waitFor(p.grace) {
				p.tree.kill()
				<-p.done
			}
		}
		// Commands the agent started may outlive it in its group or job; they belong to this process too.
		p.tree.kill()
		p.tree.release()
		p.waitDrained()
		_ = p.stdout.Close()
	})
	<-p.done
	if p.tree.endedByClose(p.exitErr) {
		return nil
	}
	return p.exitErr
}

// Kill ends the agent and what it started at once, without Close's grace periods (for an agent that
// never answered: it has nothing to lose). Close must still be called: it reaps the child.
func (p *Process) Kill() { p.tree.kill() }

func (p *Process) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}
