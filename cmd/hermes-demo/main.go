// Command hermes-demo runs one agent turn in a terminal: a real hermes-lsp server (the hermes-lsp
// binary beside this one, as `make build` puts them, or --server), driven over LSP by a small
// terminal client, on the real codex. Without OpenAI credentials the model is an offline scripted
// one on 127.0.0.1. It is its own program so that the shipped server links neither the demo nor
// its scripted model.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/hermes-lsp/hermes-lsp/internal/demo"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The first Ctrl-C stops the turn over LSP; after it, a second one ends the demo at once.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return demo.Run(ctx, args, demo.Config{
		Stdin:         stdin,
		Stdout:        stdout,
		Stderr:        stderr,
		Version:       version,
		DefaultServer: defaultServer(),
	})
}

// defaultServer is the hermes-lsp binary beside this program, else hermes-lsp on PATH, else "".
func defaultServer() string {
	name := "hermes-lsp"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(exe), name)
		if _, err := os.Stat(beside); err == nil {
			return beside
		}
	}
	if path, err := exec.LookPath(name); err == nil {
		return path
	}
	fmt.Fprintln(os.Stderr, "hermes-demo: no hermes-lsp beside this program or on PATH; pass --server")
	return ""
}
