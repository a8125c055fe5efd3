package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hermes-lsp/hermes-lsp/internal/demo"
)

// runDemo is `hermes-lsp demo [flags]`: one agent turn through this binary run as a language server
// (`hermes-lsp --stdio`, a child process), driven over LSP by the terminal client of package demo.
func runDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "hermes-lsp demo:", err)
		return demo.ExitFailed
	}
	// The first Ctrl-C stops the turn over LSP; after it, a second one ends the demo at once.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return demo.Run(ctx, args, demo.Config{
		Stdin:   stdin,
		Stdout:  stdout,
		Stderr:  stderr,
		Version: version,
		Server:  demo.Spawn(exe),
	})
}
