// Package demo is hermes-demo (cmd/hermes-demo): one agent turn run by a real hermes-lsp server on the real
// codex, driven over a real LSP connection by a small terminal client, in a temporary copy of the
// example workspace (examples/calc).
//
// Without OpenAI credentials (or with --offline, or without a prompt) the model is an offline
// scripted one on loopback (package fakemodel), which reads a file, runs the example's tests (an
// exec approval) and fixes its bug (a patch approval). With credentials (`codex login`, or
// OPENAI_API_KEY) and a prompt (--prompt or PROMPT) the turn runs on the real model.
//
// The terminal shows a progress line ($/progress), each approval as a prompt
// (window/showMessageRequest), the streamed answer, the diff and the usage (hermes/turnEvent). The
// exit code is 0 only when the turn completed.
package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// ExampleRel is the example workspace, relative to the repository root.
const ExampleRel = "examples/calc"

// DefaultPrompt is the offline turn's prompt (the scripted model plays its script whatever it is).
const DefaultPrompt = "The tests of this package fail. Find the bug, fix it, and run the tests again."

// Exit codes besides 0 (the turn completed).
const (
	ExitFailed      = 1   // the turn did not complete, or the demo could not run it
	ExitUsage       = 2   // bad flags
	ExitInterrupted = 130 // Ctrl-C
)

// Config is what the command gives the demo.
type Config struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Version is the client's and the in-process server's version.
	Version string
	// Server starts the language server; nil runs DefaultServer (or the --server flag's) as a
	// process, or, when there is none, the server in this process.
	Server StartServer
	// DefaultServer is the hermes-lsp binary --server defaults to.
	DefaultServer string
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
	// Interactive asks approvals on Stdin even when it is not a terminal (tests).
	Interactive bool
}

// options are the demo's flags.
type options struct {
	yes       bool
	workspace string
	codexPath string
	offline   bool
	prompt    string
	keep      bool
	timeout   time.Duration
	server    string
}

// Run runs the demo with the arguments after "demo" and returns the exit code. Cancelling ctx (the
// command cancels it on Ctrl-C) stops the turn over LSP (hermes.cancel) and ends the demo.
func Run(ctx context.Context, args []string, cfg Config) int {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Stdin == nil {
		cfg.Stdin = os.Stdin
	}
	fset := flag.NewFlagSet("hermes-demo", flag.ContinueOnError)
	fset.SetOutput(cfg.Stderr)
	var o options
	fset.BoolVar(&o.yes, "yes", false, "answer every approval \"Allow once\" without asking (also when stdin is not a terminal)")
	fset.StringVar(&o.workspace, "workspace", "", "run the turn in this `folder`, in place (default: a temporary copy of "+ExampleRel+")")
	fset.StringVar(&o.codexPath, "codex", "", "the codex `path` (default: the pinned codex that make tools installs, else codex on PATH)")
	fset.BoolVar(&o.offline, "offline", false, "use the offline scripted model even with OpenAI credentials")
	fset.StringVar(&o.prompt, "prompt", "", "the `prompt` for the real model (default: $PROMPT); without credentials the scripted model runs")
	fset.BoolVar(&o.keep, "keep", false, "keep the temporary folder (workspace copy, logs, transcript) after the run")
	fset.DurationVar(&o.timeout, "timeout", 10*time.Minute, "interrupt the turn after this long")
	fset.StringVar(&o.server, "server", cfg.DefaultServer, "the hermes-lsp `binary` to run as the language server")
	fset.Usage = func() {
		fmt.Fprintf(cfg.Stderr, "Usage: hermes-demo [flags]\n\n"+
			"Runs one agent turn through a real hermes-lsp server and the real codex, driven over LSP by a\n"+
			"terminal client, in a temporary copy of %s. Without OpenAI credentials (codex login or\n"+
			"OPENAI_API_KEY) or without a prompt, the model is an offline scripted one on 127.0.0.1.\n"+
			"Approvals: y = allow once, s = allow for the session, n = deny, q = stop the turn.\n\nFlags:\n", ExampleRel)
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return ExitUsage
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(cfg.Stderr, "hermes-demo: unexpected argument %q (the prompt goes in --prompt or PROMPT)\n", fset.Arg(0))
		return ExitUsage
	}
	if o.prompt == "" {
		o.prompt = strings.TrimSpace(cfg.Getenv("PROMPT"))
	}
	if cfg.Server == nil && o.server != "" {
		cfg.Server = Spawn(o.server)
	}
	d := &demo{cfg: cfg, opts: o}
	return d.run(ctx)
}

// demo is one run.
type demo struct {
	cfg  Config
	opts options
	term *terminal
	root string // the temporary folder
}

func (d *demo) fail(format string, args ...any) int {
	d.term.Done()
	fmt.Fprintf(d.cfg.Stderr, "hermes-demo: "+format+"\n", args...)
	return ExitFailed
}

func (d *demo) run(ctx context.Context) (code int) {
	cfg, o := d.cfg, d.opts
	outTTY := isTerminalWriter(cfg.Stdout)
	d.term = &terminal{out: cfg.Stdout, tty: outTTY,
		color: outTTY && cfg.Getenv("NO_COLOR") == "" && cfg.Getenv("TERM") != "dumb"}
	t := d.term
	start := time.Now()

	codexBin, err := findCodex(o.codexPath)
	if err != nil {
		return d.fail("%v", err)
	}
	creds := credentials(cfg.Getenv)
	offline := o.offline || creds == "" || o.prompt == ""
	prompt := o.prompt
	if offline && prompt == "" {
		prompt = DefaultPrompt
	}

	workspace, from := o.workspace, ""
	if workspace == "" {
		if from, err = findExample(); err != nil {
			return d.fail("%v", err)
		}
	} else if workspace, err = filepath.Abs(workspace); err != nil {
		return d.fail("%v", err)
	} else if st, err := os.Stat(workspace); err != nil || !st.IsDir() {
		return d.fail("--workspace %s is not a folder", workspace)
	}

	d.root, err = os.MkdirTemp("", "hermes-demo-")
	if err != nil {
		return d.fail("%v", err)
	}
	serverStarted := false
	defer func() {
		switch {
		case o.keep:
			t.Printf("kept %s (workspace, server log, transcript)", d.root)
		case code != 0 && serverStarted:
			t.Printf("kept %s for a look (server log: %s)", d.root, filepath.Join(d.root, "hermes-lsp.log"))
		case code != 0:
			_ = os.RemoveAll(d.root)
		default:
			_ = os.RemoveAll(d.root)
			t.Println(t.style(styleDim, "removed "+d.root+" (--keep keeps it)"))
		}
	}()
	if from != "" {
		workspace = filepath.Join(d.root, filepath.Base(from))
		if err := copyDir(from, workspace); err != nil {
			return d.fail("copying the example: %v", err)
		}
	}

	// The settings hermes-lsp gets in initializationOptions, as an editor would send them.
	codexSettings := map[string]any{"path": codexBin, "approvalPolicy": "untrusted", "sandbox": "workspace-write"}
	settings := map[string]any{
		"codex":              codexSettings,
		"approvals":          map[string]any{"mode": "manual"},
		"turnEvents":         true,
		"openTranscript":     false,
		"stateDir":           filepath.Join(d.root, "state"),
		"turnTimeoutSeconds": o.timeout.Seconds(),
	}
	var modelLine string
	if offline {
		model, err := fakemodel.Start()
		if err != nil {
			return d.fail("starting the scripted model: %v", err)
		}
		defer model.Close()
		model.SetDefault(scriptReply)
		home := filepath.Join(d.root, "home")
		codexHome := filepath.Join(home, ".codex")
		if err := os.MkdirAll(codexHome, 0o700); err != nil {
			return d.fail("%v", err)
		}
		// The codex configuration goes in the throwaway CODEX_HOME's config.toml, not in codex.args:
		// hermes-lsp takes only an allow-list of -c keys there, and model providers are not on it.
		// No login shell for the commands codex runs: with HOME moved, a login shell's profile would
		// reset PATH and lose the user's go.
		extra := append([]string{"allow_login_shell=false"}, goCacheWritable(cfg.Getenv)...)
		if err := model.WriteCodexConfig(codexHome, extra...); err != nil {
			return d.fail("writing the codex configuration: %v", err)
		}
		codexSettings["home"] = codexHome
		// A throwaway HOME and CODEX_HOME: the user's ~/.codex is never read or written, and no key
		// reaches the loopback model. The Go build cache stays the user's, so `go test` is quick.
		codexSettings["env"] = offlineEnv(home, cfg.Getenv)
		modelLine = t.style(styleBold, fmt.Sprintf("[offline scripted model on %s — no OpenAI account used]", model.Addr()))
		switch {
		case o.offline:
		case creds == "":
			modelLine += "\n             (no OpenAI credentials: `codex login` or OPENAI_API_KEY, with PROMPT=..., run the real model)"
		default:
			modelLine += "\n             (" + creds + " found: set PROMPT=... or --prompt to run the real model)"
		}
	} else {
		modelLine = t.style(styleBold, "[the real model, through codex — credentials: "+creds+"]") +
			"\n             (codex's default model, in a throwaway CODEX_HOME; --offline runs the scripted one)"
		codexHome, err := d.realCodexHome(creds)
		if err != nil {
			return d.fail("preparing codex's home: %v", err)
		}
		codexSettings["home"] = codexHome
	}

	t.Println(t.style(styleBold, "hermes-demo") + ": a real hermes-lsp server, driven over LSP by this terminal client")
	t.Printf("  model:     %s", modelLine)
	t.Printf("  codex:     %s%s", codexBin, codexVersion(codexBin))
	if from != "" {
		t.Printf("  workspace: %s (a copy of %s)", workspace, from)
	} else {
		t.Printf("  workspace: %s (in place)", workspace)
	}
	t.Printf("  prompt:    %s", prompt)
	approvalsLine := "asked here: y = allow once, s = allow for session, n = deny, q = stop the turn"

	// Who answers approvals.
	stop := make(chan struct{})
	ask := &asker{stop: stop}
	stdinTTY := isTerminalReader(cfg.Stdin)
	switch {
	case o.yes:
		ask.auto = "--yes"
	case !stdinTTY && !cfg.Interactive:
		ask.auto = "stdin is not a terminal"
	default:
		ask.lines = readLines(cfg.Stdin)
		ask.echo = !stdinTTY
	}
	if ask.auto != "" {
		approvalsLine = "each answered \"Allow once\" by the demo (" + ask.auto + ")"
	}
	t.Printf("  approvals: %s", approvalsLine)

	// The server and the connection.
	startServer := cfg.Server
	if startServer == nil {
		startServer = InProcess(cfg.Version)
	}
	logFile := filepath.Join(d.root, "hermes-lsp.log")
	srv, err := startServer(ctx, logFile)
	if err != nil {
		return d.fail("%v", err)
	}
	serverStarted = true
	c := newClient(t, ask, workspace)
	if err := c.connect(context.Background(), srv.Conn, cfg.Version); err != nil {
		_ = srv.Wait(5 * time.Second)
		return d.fail("%v", err)
	}
	serverDone := false
	defer func() {
		if !serverDone {
			_ = c.ed.Close()
			_ = srv.Wait(5 * time.Second)
		}
	}()
	t.Printf("  server:    %s, log %s", srv.Describe, logFile)

	callCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	info, err := c.initialize(callCtx, workspace, settings)
	cancel()
	if err != nil {
		return d.fail("%v (server log: %s)", err, logFile)
	}
	t.Println("")
	t.Printf("%s initialize → %s", t.style(styleBold, "lsp"), info)

	// Start the turn, unless Ctrl-C came first, and wait for it; Ctrl-C stops it over LSP.
	interrupted := ctx.Err() != nil
	if !interrupted {
		var ask1 askResult
		callCtx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
		err = c.execute(callCtx, hermesproto.CmdAsk, map[string]any{"prompt": prompt}, &ask1)
		cancel()
		if err != nil {
			return d.fail("%v (server log: %s)", err, logFile)
		}
		t.Printf("%s hermes.ask → thread %s, turn %s", t.style(styleBold, "lsp"), ask1.ThreadID, ask1.TurnID)
		select {
		case <-c.done:
		case <-c.ed.Done():
		case <-ctx.Done():
			interrupted = true
			close(stop) // a prompt on screen answers "Stop turn"
			d.interrupt(c)
		}
	}
	t.Done()
	res := c.turnResult()

	// shutdown, exit, and the server's end.
	callCtx, cancel = context.WithTimeout(context.Background(), 15*time.Second)
	shutdownErr := c.ed.Shutdown(callCtx)
	if shutdownErr == nil {
		shutdownErr = c.ed.Exit(callCtx)
	}
	cancel()
	if shutdownErr == nil {
		select {
		case <-c.ed.Done():
		case <-time.After(10 * time.Second):
		}
	}
	_ = c.ed.Close()
	serverErr := srv.Wait(10 * time.Second)
	serverDone = true

	if res == nil {
		if interrupted {
			t.Println("interrupted before the turn reported its end")
			return ExitInterrupted
		}
		return d.fail("the connection ended before the turn completed (server: %v; log: %s)", serverErr, logFile)
	}
	d.summary(c, res, workspace)
	if shutdownErr != nil || serverErr != nil {
		t.Printf("! the server did not stop cleanly: %v", errors.Join(shutdownErr, serverErr))
	}
	t.Printf("%s · %d approval prompt(s) answered · %s in all", statusWord(t, res), c.promptsAnswered(), time.Since(start).Round(100*time.Millisecond))
	switch {
	case interrupted:
		return ExitInterrupted
	case !res.Completed || res.Status != "completed":
		return ExitFailed
	}
	return 0
}

// interrupt stops the running turn with hermes.cancel and waits a little for its end.
func (d *demo) interrupt(c *client) {
	t := d.term
	t.Println(t.style(styleRed, "■ interrupted:") + " stopping the turn (hermes.cancel)…")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res struct {
		Cancelled int `json:"cancelled"`
	}
	if err := c.execute(ctx, hermesproto.CmdCancel, map[string]any{}, &res); err != nil {
		t.Printf("! %v", err)
	}
	select {
	case <-c.done:
	case <-c.ed.Done():
	case <-time.After(15 * time.Second):
		t.Println("! the turn did not end within 15s of hermes.cancel")
	}
}

// summary prints the end of the turn: its error, the diff and the usage.
func (d *demo) summary(c *client, res *hermesproto.Result, workspace string) {
	t := d.term
	if res.Error != "" {
		t.Println(t.style(styleRed, "! ") + "the turn did not complete: " + strings.TrimPrefix(indent(res.Error, "  "), "  "))
	}
	t.Println("")
	if diff := c.finalDiff(workspace); strings.TrimSpace(diff) != "" {
		t.Println(t.style(styleBold, "diff"))
		t.Diff(diff)
	} else {
		t.Println(t.style(styleBold, "diff") + ": no changes")
	}
	t.Println(t.style(styleBold, "usage") + ": " + usageLine(res))
	if d.opts.keep && res.TranscriptPath != "" {
		t.Printf("%s: %s", t.style(styleBold, "transcript"), res.TranscriptPath)
	}
}

// statusWord is the turn's status, colored.
func statusWord(t *terminal, res *hermesproto.Result) string {
	word := "turn " + res.Status
	if res.Completed {
		return t.style(styleBold+styleGreen, word)
	}
	return t.style(styleBold+styleRed, word)
}

// usageLine says what the turn cost, as hermes-lsp reports it: the tokens of the turn's last model
// request, and how full that left the context window.
func usageLine(res *hermesproto.Result) string {
	u := res.Usage
	line := fmt.Sprintf("%s tokens in the last model request: %s prompt (%s cached) + %s output (%s reasoning)",
		thousands(u.Total), thousands(u.Prompt), thousands(u.CacheRead), thousands(u.Output), thousands(u.Reasoning))
	if u.ContextWindow > 0 && u.LastPrompt > 0 {
		line += fmt.Sprintf(" · context %.1f%% of %s", float64(u.LastPrompt)*100/float64(u.ContextWindow), thousands(u.ContextWindow))
	}
	line += fmt.Sprintf(" · %d tool call(s) · %s", res.ToolIterations, (time.Duration(res.DurationMs) * time.Millisecond).Round(100*time.Millisecond))
	return line
}

// thousands writes n with thousands separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Credentials, as credentials reports them.
const (
	credLogin  = "codex login"
	credAPIKey = "OPENAI_API_KEY"
)

// baseName is the last element of a path.
func baseName(p string) string { return filepath.Base(p) }

// isTerminalWriter and isTerminalReader report whether w or r is a terminal.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isTerminal(f)
}
