// Command hermes-lsp is a language server that puts a coding agent (OpenAI Codex) inside any LSP
// editor. It serves LSP on stdio by default. With --listen it serves a socket instead, for editors
// that connect to a running server: a Unix domain socket only we can reach, or TCP on loopback with
// a token each client must send.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/lsp"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], pollable(os.Stdin), pollable(os.Stdout), os.Stderr))
}

func run(args []string, stdin io.Reader, stdout io.Writer, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "demo" {
		// The demo is a program of its own, so that this one links neither it nor its scripted model.
		fmt.Fprintln(stderr, "hermes-lsp: the demo is its own program now: run hermes-demo (make demo builds and runs it)")
		return 2
	}
	if len(args) > 0 && args[0] == "doctor" {
		return doctor(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("hermes-lsp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		stdio     = fs.Bool("stdio", false, "serve LSP on stdin/stdout (the default)")
		listen    = fs.String("listen", "", "serve LSP on a socket instead, several clients at once:\n`ADDR` is unix (a socket at "+defaultSocketPath()+"), unix:PATH or a PATH with a '/',\nor tcp:127.0.0.1:PORT (needs --token-file)")
		tokenFile = fs.String("token-file", "", "the token clients must send as initializationOptions.hermes.token (needed with --listen tcp:...);\n`FILE` is created with a random token when missing, and must be private to you (mode 600)")
		insecure  = fs.Bool("listen-insecure", false, "allow --listen tcp: on an address other machines can reach (not loopback): anyone who\nreaches it and has the token can run commands as you")
		handshake = fs.Duration("handshake-timeout", 10*time.Second, "close a socket client that has not sent a good initialize within this")
		logFile   = fs.String("log-file", "", "write logs to this file instead of stderr")
		logLevel  = fs.String("log-level", "info", "log level: debug, info, warn or error")
		codexBin  = fs.String("codex", "", "the codex binary (default: the hermes.codex.path setting, else codex on PATH)")
		agentKind = fs.String("agent", "", "the agent that runs the turns: codex (the default) or acp (also HERMES_AGENT_KIND;\noverrides hermes.agent.kind)")
		agentCmd  = fs.String("agent-command", "", "the ACP agent's `PROGRAM` (also HERMES_AGENT_COMMAND; overrides hermes.agent.command)")
		agentArgs stringList
		yolo      = fs.Bool("yolo", false, "accept every command and patch without asking (also HERMES_YOLO_MODE=1)")
		showVer   = fs.Bool("version", false, "print the version and exit")
		cpuProf   = fs.String("cpuprofile", "", "write a CPU profile of the server's whole run to `FILE` (for go tool pprof)")
	)
	fs.Var(&agentArgs, "agent-arg", "an argument of the ACP agent, once per argument (overrides hermes.agent.args)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: hermes-lsp [flags]\n       hermes-lsp doctor [flags] [FOLDER]   (checks codex, its sign-in and the state folder)\n\nA language server that runs OpenAI Codex agent turns in your editor.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hermes-lsp: unexpected argument %q; see hermes-lsp -h\n", fs.Arg(0))
		return exitUsage
	}
	if *showVer {
		fmt.Fprintln(stdout, "hermes-lsp", version)
		return 0
	}
	var socket *socketConfig
	switch {
	case *listen != "" && *stdio:
		fmt.Fprintln(stderr, "hermes-lsp: --stdio and --listen are two ways to serve; choose one")
		return exitUsage
	case *listen != "":
		addr, err := parseListen(*listen)
		if err != nil {
			fmt.Fprintln(stderr, "hermes-lsp:", err)
			return exitUsage
		}
		if *insecure && addr.network != "tcp" {
			fmt.Fprintln(stderr, "hermes-lsp: --listen-insecure is for --listen tcp:...; a Unix socket is never reachable from other machines")
			return exitUsage
		}
		socket = &socketConfig{addr: addr, tokenFile: *tokenFile, insecure: *insecure, handshakeTimeout: *handshake}
	case *tokenFile != "" || *insecure:
		fmt.Fprintln(stderr, "hermes-lsp: --token-file and --listen-insecure only apply with --listen; on stdio the editor that started us is the only client")
		return exitUsage
	}

	logger, closeLog, err := newLogger(*logFile, *logLevel, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-lsp:", err)
		return exitUsage
	}
	defer closeLog()
	if *cpuProf != "" {
		stopProfile, err := startCPUProfile(*cpuProf)
		if err != nil {
			fmt.Fprintln(stderr, "hermes-lsp:", err)
			return exitUsage
		}
		defer stopProfile()
	}

	agent, err := agentFromFlags(*agentKind, *agentCmd, agentArgs, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-lsp:", err)
		return exitUsage
	}
	opts := lsp.Options{
		Logger:    logger,
		CodexPath: *codexBin,
		Agent:     agent,
		Yolo:      *yolo,
		Version:   version,
	}
	// HERMES_YOLO_MODE is on only for 1/true/yes/on; anything else stays off, with a warning.
	if !opts.Yolo {
		envYolo, warning := agenthost.YoloFromEnv()
		if warning != "" {
			logger.Warn(warning)
			opts.Warnings = append(opts.Warnings, warning)
		}
		if envYolo {
			opts.Yolo, opts.YoloSource = true, agenthost.SourceEnv
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// An editor that dies closes our stdout: a write to it must fail with EPIPE (the connection then
	// ends and codex is stopped in order) rather than kill the process with SIGPIPE before it can.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	tuneGC()

	if socket != nil {
		return serveSocket(ctx, *socket, opts, logger, stderr)
	}
	srv := lsp.NewServer(opts)
	logger.Info("hermes-lsp serving on stdio", "version", version, "pid", os.Getpid())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, stdioConn{stdin, stdout}) }()
	select {
	case err = <-served:
	case <-srv.Exited():
		// After exit the process ends within exitGrace even if something is still stuck (a
		// codex that ignores SIGTERM): the editor is waiting for us to go.
		select {
		case err = <-served:
		case <-time.After(exitGrace):
			logger.Error("the server did not finish within the exit grace; exiting anyway", "grace", exitGrace)
			return srv.ExitCode()
		}
	}
	if err != nil {
		logger.Error("server stopped", "err", err)
	}
	return srv.ExitCode()
}

// exitGrace bounds the time from the client's exit to the end of the process.
const exitGrace = 1800 * time.Millisecond

// stdioConn joins stdin and stdout into the connection the server reads and writes.
type stdioConn struct {
	in  io.Reader
	out io.Writer
}

func (c stdioConn) Read(p []byte) (int, error)  { return c.in.Read(p) }
func (c stdioConn) Write(p []byte) (int, error) { return c.out.Write(p) }

// Close closes stdin, so that a read blocked on it ends.
func (c stdioConn) Close() error {
	if cl, ok := c.in.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// newLogger logs at level to the file at path (appended to, created 0600), or to stderr when path
// is empty.
//
//hermes:ownfile the log file named with --log-file
func newLogger(path, level string, stderr io.Writer) (*slog.Logger, func(), error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	w, closeFn := stderr, func() {}
	if path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		w, closeFn = f, func() { _ = f.Close() }
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl})), closeFn, nil
}
