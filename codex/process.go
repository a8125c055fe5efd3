package codex

import (
	"fmt"
	"os/exec"
	"time"

	"github.com/hermes-lsp/hermes-lsp/internal/agentproc"
)

// ProcessOptions say how to start `codex app-server`. Every field may be left zero.
type ProcessOptions struct {
	// Binary is the codex executable: a path, or a name looked up on PATH. Default "codex".
	Binary string
	// Config holds `-c key=value` overrides (without the "-c"); values are TOML, as codex parses them.
	Config []string
	// Args are extra arguments after `app-server` and the overrides.
	Args []string
	// Env holds extra environment entries ("KEY=value") on top of this process's environment.
	Env []string
	// Home, when set, becomes CODEX_HOME: where codex keeps its config, logins and sessions.
	Home string
	// Dir is the working directory of the process; empty means this process's.
	Dir string
	// StderrLines is how many lines of stderr to keep for error messages (default 300).
	StderrLines int
	// Grace bounds each step of Close: the wait after closing stdin, then after SIGTERM (default 2s;
	// on Windows, where there is no SIGTERM, only the first step).
	Grace time.Duration
}

type (
	// Process is a running `codex app-server`, started by internal/agentproc (which package acp
	// shares): its stdout and stdin are for a Conn, its stderr is kept in a bounded Tail, and it is
	// always reaped.
	Process = agentproc.Process
	// ExitError is the error a dead codex leaves behind: its exit status and its last words.
	ExitError = agentproc.ExitError
	// Tail keeps the last lines of codex's stderr, for error messages.
	Tail = agentproc.Tail
)

// NewTail returns a Tail that keeps at most max lines (at least one).
func NewTail(max int) *Tail { return agentproc.NewTail(max) }

// StartProcess spawns `<binary> app-server -c ... [args...]`.
func StartProcess(opts ProcessOptions) (*Process, error) {
	bin := opts.Binary
	if bin == "" {
		bin = "codex"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("find codex binary %q: %w (install it with `npm install -g @openai/codex` or set its path)", bin, err)
	}
	args := []string{"app-server"}
	for _, kv := range opts.Config {
		args = append(args, "-c", kv)
	}
	args = append(args, opts.Args...)
	env := opts.Env
	if opts.Home != "" {
		env = append(env[:len(env):len(env)], "CODEX_HOME="+opts.Home)
	}
	return agentproc.Start(agentproc.Options{
		Name:        "codex app-server",
		Command:     path,
		Args:        args,
		Env:         env,
		Dir:         opts.Dir,
		StderrLines: opts.StderrLines,
		Grace:       opts.Grace,
	})
}
