// Package stdiobridge lets an editor's test run hermes-lsp inside the test process: the editor
// starts the test binary as its language server (on stdio, as it starts hermes-lsp), the binary
// passes its standard input and output through to a Unix socket ([Bridge]), and the test serves
// hermes-lsp on that socket, on a fake codex ([Serve]). A package that uses it calls Bridge from its
// TestMain when the environment names the socket.
package stdiobridge

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/lsp"
)

// Bridge copies standard input to the Unix socket at addr and the socket's output to standard
// output, until either ends; it returns the process's exit code.
func Bridge(addr string) int {
	conn, err := net.Dial("unix", addr)
	if err != nil {
		os.Stderr.WriteString("bridge: " + err.Error() + "\n")
		return 1
	}
	go func() {
		_, _ = io.Copy(conn, os.Stdin)
		_ = conn.(*net.UnixConn).CloseWrite()
	}()
	_, _ = io.Copy(os.Stdout, conn)
	return 0
}

// Serve serves hermes-lsp on a Unix socket in dir, one server per connection, each starting codex
// with start (a fake's), until the test ends: the servers are waited for then. It returns the
// socket's path.
func Serve(t *testing.T, dir string, start func(ctx context.Context, opts codex.Options) (*codex.Client, error)) string {
	t.Helper()
	addr := filepath.Join(dir, "lsp.sock")
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			srv := lsp.NewServer(lsp.Options{StartCodex: start, ClientTimeout: 5 * time.Second})
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := srv.Serve(ctx, conn); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
					t.Logf("server: %v", err)
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		cancel()
		wg.Wait()
	})
	return addr
}
