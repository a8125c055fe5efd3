// Command hermes-lsp is a language server that puts a coding agent (OpenAI Codex) inside any LSP
// editor. It serves LSP on stdio by default, or on TCP with --listen for remote use and debugging.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/lsp"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout io.Writer, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "demo" {
		return runDemo(args[1:], stdin, stdout, stderr)
	}
	fs := flag.NewFlagSet("hermes-lsp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		stdio    = fs.Bool("stdio", false, "serve LSP on stdin/stdout (the default)")
		listen   = fs.String("listen", "", "serve LSP on TCP at this address (e.g. 127.0.0.1:7777), one client at a time")
		logFile  = fs.String("log-file", "", "write logs to this file instead of stderr")
		logLevel = fs.String("log-level", "info", "log level: debug, info, warn or error")
		codexBin = fs.String("codex", "", "the codex binary (default: the hermes.codex.path setting, else codex on PATH)")
		yolo     = fs.Bool("yolo", false, "accept every command and patch without asking (also HERMES_YOLO_MODE=1)")
		showVer  = fs.Bool("version", false, "print the version and exit")
	)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: hermes-lsp [flags]\n       hermes-lsp demo [flags]   (one turn in a terminal: see hermes-lsp demo -h)\n\nA language server that runs OpenAI Codex agent turns in your editor.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *showVer {
		fmt.Fprintln(stdout, "hermes-lsp", version)
		return 0
	}
	_ = stdio

	logger, closeLog, err := newLogger(*logFile, *logLevel, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-lsp:", err)
		return 2
	}
	defer closeLog()
	agenthost.Version = version

	opts := lsp.Options{
		Logger:    logger,
		CodexPath: *codexBin,
		Yolo:      *yolo || agenthost.YoloFromEnv(),
		Version:   version,
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// An editor that dies closes our stdout: a write to it must fail with EPIPE (the connection then
	// ends and codex is stopped in order) rather than kill the process with SIGPIPE before it can.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	if *listen != "" {
		return serveTCP(ctx, *listen, opts, logger)
	}
	srv := lsp.NewServer(opts)
	logger.Info("hermes-lsp serving on stdio", "version", version, "pid", os.Getpid())
	if err := srv.Serve(ctx, stdioConn{stdin, stdout}); err != nil {
		logger.Error("server stopped", "err", err)
	}
	return srv.ExitCode()
}

// serveTCP serves one client at a time on addr until ctx ends.
func serveTCP(ctx context.Context, addr string, opts lsp.Options, logger *slog.Logger) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		logger.Error("listen", "addr", addr, "err", err)
		return 1
	}
	logger.Info("hermes-lsp listening", "addr", ln.Addr().String())
	go func() {
		<-ctx.Done()
		_ = ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return 0
			}
			logger.Error("accept", "err", err)
			return 1
		}
		logger.Info("client connected", "remote", conn.RemoteAddr().String())
		srv := lsp.NewServer(opts)
		if err := srv.Serve(ctx, conn); err != nil {
			logger.Warn("client session ended", "err", err)
		}
	}
}

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
