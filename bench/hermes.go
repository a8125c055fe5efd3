package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// Hermes is bin/hermes-lsp running on pipes, with a fake editor (lsptest, VS Code's profile) on its
// stdio: what an editor does, measured from the editor's side.
type Hermes struct {
	Ed      *lsptest.Editor
	Log     string
	Spawned time.Time

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	exited chan struct{}
	home   Home
}

type stdio struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (s stdio) Read(b []byte) (int, error)  { return s.r.Read(b) }
func (s stdio) Write(b []byte) (int, error) { return s.w.Write(b) }
func (s stdio) Close() error                { return errors.Join(s.w.Close(), s.r.Close()) }

// EnvServerProfiles names a folder: when it is set, every hermes-lsp a run starts writes its CPU
// profile there (--cpuprofile), for go tool pprof.
const EnvServerProfiles = "HERMES_BENCH_SERVER_PROFILES"

// StartHermes spawns the server with its log in the home, and connects the editor. It does not
// initialize.
func StartHermes(ctx context.Context, bin string, home Home) (*Hermes, error) {
	h := &Hermes{Log: filepath.Join(home.Home, fmt.Sprintf("hermes-%d.log", time.Now().UnixNano())), exited: make(chan struct{}), home: home}
	// The default log level (info); started in the workspace, as editors do (codex inherits it).
	h.cmd = exec.Command(bin, "--log-file", h.Log)
	if dir := os.Getenv(EnvServerProfiles); dir != "" {
		h.cmd.Args = append(h.cmd.Args, "--cpuprofile", filepath.Join(dir, fmt.Sprintf("hermes-%d.pprof", time.Now().UnixNano())))
	}
	h.cmd.Dir = home.Work
	h.cmd.Env = append(os.Environ(), "HOME="+home.Home, "XDG_STATE_HOME="+filepath.Join(home.Home, ".local", "state"),
		"OPENAI_API_KEY=", "CODEX_API_KEY=")
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if h.stdout, err = h.cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	h.Spawned = time.Now()
	if err := h.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		_ = h.cmd.Wait()
		close(h.exited)
	}()
	h.Ed, err = lsptest.Connect(context.WithoutCancel(ctx), stdio{r: h.stdout, w: h.stdin}, lsptest.VSCode)
	if err != nil {
		h.kill()
		return nil, err
	}
	return h, nil
}

// Pid is the server's process id.
func (h *Hermes) Pid() int { return h.cmd.Process.Pid }

// HermesSettings are the initialization options that run codex at codexPath with args, in home. The
// fake model's provider comes from home's config.toml, not args: hermes-lsp only takes -c options
// of its allow-list there (model, reasoning effort and the like).
func HermesSettings(home Home, codexPath string, args []string, extra map[string]any) map[string]any {
	s := map[string]any{
		"codex": map[string]any{
			"path": codexPath,
			"args": args,
			"home": home.CodexHome,
			"env":  home.CodexEnv(),
		},
		"stateDir":       home.State,
		"openTranscript": false,
	}
	for k, v := range extra {
		s[k] = v
	}
	return s
}

// Initialize sends initialize (and initialized) with the home's folder and settings, and returns how
// long the initialize request took to be answered.
func (h *Hermes) Initialize(ctx context.Context, settings map[string]any) (time.Duration, error) {
	began := time.Now()
	_, err := h.Ed.Initialize(ctx, []string{h.home.Work}, settings)
	return time.Since(began), err
}

// TurnTiming is how one turn looked from the client: the first update carrying the answer (or any
// report of progress) and the turn's end, both from the moment the prompt was sent.
type TurnTiming struct {
	First, Total time.Duration
	// Began is when the prompt was sent (hermes.ask; turn/start): the fake model's request time
	// (Env.LastModelRequest) less Began is the client's and codex's part of the turn before the model.
	Began time.Time
}

// Ask runs one turn with hermes.ask and waits for its progress to end. First is the first progress
// report (the server sends one as soon as the agent does something: answers, runs a tool), Total the
// progress end.
func (h *Hermes) Ask(ctx context.Context, prompt string) (TurnTiming, error) {
	h.Ed.Forget() // the measuring editor's waits stay as cheap as on turn one
	created := len(h.Ed.State().CreatedTokens)
	began := time.Now()
	if _, err := h.Ed.ExecuteCommand(ctx, "hermes.ask", map[string]any{"prompt": prompt}); err != nil {
		return TurnTiming{}, err
	}
	return h.timeProgress(ctx, began, func(s *lsptest.State) []lsptest.ProgressEvent {
		if len(s.CreatedTokens) <= created {
			return nil
		}
		return s.Progress[s.CreatedTokens[created]]
	})
}

// AskWithToken is Ask with the editor's own progress token (workDoneToken), as an editor that
// passes one does: the server reports on it without asking the editor to create one.
func (h *Hermes) AskWithToken(ctx context.Context, prompt, name string) (TurnTiming, error) {
	token := *protocol.NewProgressToken(name)
	h.Ed.Forget()
	began := time.Now()
	if _, err := h.Ed.ExecuteCommandWithToken(ctx, "hermes.ask", token, map[string]any{"prompt": prompt}); err != nil {
		return TurnTiming{}, err
	}
	return h.timeProgress(ctx, began, func(s *lsptest.State) []lsptest.ProgressEvent { return s.Progress[token] })
}

// timeProgress waits for the end of the progress progressOf finds and times, from began, its first
// report and its end.
func (h *Hermes) timeProgress(ctx context.Context, began time.Time, progressOf func(*lsptest.State) []lsptest.ProgressEvent) (TurnTiming, error) {
	tt := TurnTiming{Began: began}
	err := h.Ed.Await(ctx, func(s *lsptest.State) bool {
		events := progressOf(s)
		if tt.First == 0 {
			for _, ev := range events {
				if ev.Kind == protocol.WorkDoneProgressKindReport {
					tt.First = time.Since(began)
					break
				}
			}
		}
		if n := len(events); n > 0 && events[n-1].Kind == protocol.WorkDoneProgressKindEnd {
			tt.Total = time.Since(began)
			if tt.First == 0 {
				tt.First = tt.Total
			}
			return true
		}
		return false
	})
	return tt, err
}

// RoundTrip times a request the server answers at once: a hover on a document it does not have.
func (h *Hermes) RoundTrip(ctx context.Context) (time.Duration, error) {
	began := time.Now()
	var result any
	err := h.Ed.Call(ctx, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": "file:///nonexistent/round-trip.txt"},
		"position":     map[string]any{"line": 0, "character": 0},
	}, &result)
	return time.Since(began), err
}

// WaitLog waits until the server's log has a line containing text.
func (h *Hermes) WaitLog(ctx context.Context, text string) error {
	for {
		if b, err := os.ReadFile(h.Log); err == nil && bytes.Contains(b, []byte(text)) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the server never logged %q: %w", text, ctx.Err())
		case <-h.exited:
			return fmt.Errorf("the server exited before logging %q", text)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Close shuts the server down (shutdown, exit) and waits for it; a server that does not exit within
// 5 s is killed, with its children, by pid.
func (h *Hermes) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.Ed.Shutdown(ctx); err == nil {
		_ = h.Ed.Exit(ctx)
	}
	select {
	case <-h.exited:
	case <-ctx.Done():
		h.kill()
	}
	return h.Ed.Close()
}

func (h *Hermes) kill() {
	for _, pid := range proctest.Children(h.Pid()) {
		proctest.Stop(pid, time.Second)
	}
	proctest.Stop(h.Pid(), time.Second)
	<-h.exited
}
