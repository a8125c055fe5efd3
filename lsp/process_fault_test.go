package lsp_test

// Fault tests against the built binary and the real pinned codex (on the fake model): codex killed in
// the middle of a turn, and the editor going away without shutdown. They find codex as the server's
// child process (internal/proctest) and end only the processes they started, by pid.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// serverProc is the built server running on pipes, with a fake editor on them.
type serverProc struct {
	t      *testing.T
	env    *codextest.Real
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	ed     *lsptest.Editor
	exited chan struct{}
	log    string
	state  string // the server's stateDir
}

// pipeRWC is the editor's end of the server's stdio.
type pipeRWC struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error                { return errors.Join(p.w.Close(), p.r.Close()) }

// startServerProc runs the binary against the real codex of env with settings (merged over codex's
// and the state dir) and initializes a VS Code editor on it.
func startServerProc(t *testing.T, env *codextest.Real, settings map[string]any) *serverProc {
	t.Helper()
	bin := testbin.HermesLSP(t)
	tmp := t.TempDir()
	stateDir := filepath.Join(tmp, "state")
	init := env.HermesSettings(stateDir)
	maps.Copy(init, settings)
	p := &serverProc{t: t, env: env, exited: make(chan struct{}), log: filepath.Join(tmp, "server.log"), state: stateDir}
	p.cmd = exec.Command(bin, "--log-file", p.log, "--log-level", "debug")
	p.cmd.Env = append(os.Environ(), "HOME="+filepath.Join(tmp, "home"), "XDG_STATE_HOME="+filepath.Join(tmp, "xdg"), "OPENAI_API_KEY=", "CODEX_API_KEY=")
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.stdout, err = p.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		if p.ed != nil {
			_ = p.ed.Close()
		}
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
			t.Errorf("the server (pid %d) did not exit; killing it", p.cmd.Process.Pid)
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		proctest.EndCodex(t, env.CodexHome)
		if t.Failed() {
			if b, err := os.ReadFile(p.log); err == nil {
				t.Logf("server log:\n%s", b)
			}
		}
	})
	ctx := testCtx(t)
	p.ed, err = lsptest.Connect(ctx, pipeRWC{r: p.stdout, w: p.stdin}, lsptest.VSCode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ed.Initialize(ctx, []string{env.Work}, init); err != nil {
		t.Fatal(err)
	}
	return p
}

// codexChild waits until the server has a codex child other than not, and returns its pid.
func (p *serverProc) codexChild(ctx context.Context, not int) int {
	p.t.Helper()
	for {
		for _, pid := range proctest.Children(p.cmd.Process.Pid) {
			if pid != not {
				return pid
			}
		}
		select {
		case <-ctx.Done():
			p.t.Fatalf("no codex child of the server (pid %d) appeared", p.cmd.Process.Pid)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// awaitLog waits until the server's log has a line containing text.
func (p *serverProc) awaitLog(ctx context.Context, text string) {
	p.t.Helper()
	for {
		if b, err := os.ReadFile(p.log); err == nil && bytes.Contains(b, []byte(text)) {
			return
		}
		select {
		case <-ctx.Done():
			p.t.Fatalf("the server never logged %q", text)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestFaultEditorVanishes: the editor goes away without shutdown or exit, while codex idles after a
// prewarm or runs a turn. Within 2 s no codex process is left, and the server exits (code 1).
func TestFaultEditorVanishes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and runs the real codex; skipped with -short")
	}
	t.Parallel()
	cases := []struct {
		name      string
		midTurn   bool
		closeBoth bool // the editor process died: both pipes close, not only the server's stdin
	}{
		{name: "stdin EOF while idle after prewarm"},
		{name: "stdin EOF mid-turn", midTurn: true},
		{name: "editor killed mid-turn", midTurn: true, closeBoth: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := codextest.NewReal(t)
			p := startServerProc(t, env, map[string]any{"prewarm": !tc.midTurn, "turnEvents": true})
			ctx := testCtx(t)
			if tc.midTurn {
				env.Model.Enqueue(fakemodel.Hang())
				if _, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "think forever"}); err != nil {
					t.Fatal(err)
				}
				if err := env.Model.WaitRequests(ctx, 1); err != nil {
					t.Fatal(err)
				}
			}
			pid := p.codexChild(ctx, 0)
			if !tc.midTurn {
				p.awaitLog(ctx, "codex started") // the prewarm is done: codex idles
			}
			gone := time.Now()
			if tc.closeBoth {
				_ = p.ed.Close()
			} else {
				_ = p.stdin.Close()
			}
			if !proctest.WaitGone(pid, 2*time.Second) {
				t.Fatalf("codex (pid %d) still runs 2 s after the editor went away", pid)
			}
			t.Logf("codex gone %v after the editor", time.Since(gone).Round(time.Millisecond))
			select {
			case <-p.exited:
			case <-time.After(3 * time.Second):
				t.Fatal("the server did not exit after the editor went away")
			}
			// Without shutdown the exit code is 1; an editor that died must not kill the server
			// with SIGPIPE (it would skip stopping codex in order and recording the turn).
			if code := p.cmd.ProcessState.ExitCode(); code != 1 {
				t.Errorf("server ended with %v without shutdown, want exit status 1", p.cmd.ProcessState)
			}
			if tc.midTurn {
				// The interrupted turn is recorded in the folder's transcript.
				if !transcriptHas(t, p.state, "think forever") {
					t.Error("the interrupted turn is missing from the transcript")
				}
			}
			if left := proctest.Children(p.cmd.Process.Pid); len(left) != 0 {
				t.Errorf("processes left behind: %v", left)
			}
		})
	}
}

// TestFaultCodexKilledMidTurn: codex dies of SIGKILL in the middle of a turn. The editor's progress
// ends and a warning says codex stopped; the server stays up, and the next ask runs on a new codex
// and completes.
func TestFaultCodexKilledMidTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and runs the real codex; skipped with -short")
	}
	t.Parallel()
	env := codextest.NewReal(t)
	p := startServerProc(t, env, nil)
	ctx := testCtx(t)
	env.Model.Enqueue(fakemodel.Hang())
	if _, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "think forever"}); err != nil {
		t.Fatal(err)
	}
	if err := env.Model.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	pid := p.codexChild(ctx, 0)
	if err := proctest.Kill(pid); err != nil {
		t.Fatal(err)
	}
	if err := p.ed.Await(ctx, lsptest.AllOf(lsptest.AnyProgressEnded(), lsptest.MessageContaining("codex stopped"))); err != nil {
		t.Fatal(err)
	}
	var warned bool
	for _, m := range p.ed.Messages() {
		if strings.Contains(m.Message, "codex stopped") {
			warned = m.Type == protocol.MessageTypeWarning && strings.Contains(m.Message, "signal: killed")
		}
	}
	if !warned {
		t.Errorf("no warning naming the kill: %+v", p.ed.Messages())
	}
	if !proctest.WaitGone(pid, 2*time.Second) {
		t.Fatalf("the killed codex %d was not reaped", pid)
	}

	// The server is up, and the next ask runs on a new codex.
	raw, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdStatus)
	if err != nil {
		t.Fatalf("hermes.status after the kill: %v", err)
	}
	var st struct {
		Folders []hermesproto.FolderStatus `json:"folders"`
	}
	if err := json.Unmarshal(raw, &st); err != nil || len(st.Folders) != 1 || st.Folders[0].Turn == nil || st.Folders[0].Turn.State != "failed" {
		t.Errorf("status after the kill: %s (%v)", raw, err)
	}
	if _, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "say hello"}); err != nil {
		t.Fatalf("ask after the kill: %v", err)
	}
	if err := p.ed.Await(ctx, lsptest.MessageContaining("Hello from the fake model")); err != nil {
		t.Fatal(err)
	}
	if next := p.codexChild(ctx, pid); next == pid {
		t.Error("the next turn ran on the killed codex")
	}

	if err := p.ed.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	_ = p.ed.Exit(ctx)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not exit after shutdown and exit")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after shutdown and exit", code)
	}
}

// TestFaultEditorKilledDuringCommand: the editor dies (both pipes close) while codex runs a command
// the agent started. Within 2 s neither codex nor the command is left.
func TestFaultEditorKilledDuringCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and runs the real codex; skipped with -short")
	}
	t.Parallel()
	env := codextest.NewReal(t)
	const sleeper = "29.517" // an unusual duration names the command's process
	env.Model.Enqueue(fakemodel.Exec("sleep " + sleeper))
	p := startServerProc(t, env, map[string]any{"yolo": true})
	ctx := testCtx(t)
	if _, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "sleep a while"}); err != nil {
		t.Fatal(err)
	}
	codexPID := p.codexChild(ctx, 0)
	var cmdPID int
	for cmdPID == 0 {
		cmdPID = proctest.FindCommand("sleep", sleeper)
		select {
		case <-ctx.Done():
			t.Fatal("codex did not start the command")
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Cleanup(func() {
		if !proctest.Gone(cmdPID) {
			_ = proctest.Kill(cmdPID)
		}
	})
	_ = p.ed.Close()
	if !proctest.WaitGone(codexPID, 2*time.Second) {
		t.Errorf("codex (pid %d) still runs 2 s after the editor died", codexPID)
	}
	if !proctest.WaitGone(cmdPID, 500*time.Millisecond) {
		t.Errorf("the agent's command (pid %d) outlived the editor and codex", cmdPID)
	}
	select {
	case <-p.exited:
	case <-time.After(3 * time.Second):
		t.Fatal("the server did not exit after the editor died")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("server ended with %v, want exit status 1", p.cmd.ProcessState)
	}
}

// transcriptHas reports whether a markdown transcript under stateDir contains text.
func transcriptHas(t *testing.T, stateDir, text string) bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(stateDir, "transcripts", "*.md"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}
