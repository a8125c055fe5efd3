package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/conc"
)

// shortTempDir is a temporary directory with a path short enough for a socket in it (t.TempDir can
// be longer than the ~100 bytes a socket path may have).
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "h")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func skipWithoutModes(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix mode bits or owners to check")
	}
}

func TestListenUnixModes(t *testing.T) {
	skipWithoutModes(t)
	path := filepath.Join(shortTempDir(t), "s", "lsp.sock")
	ln, err := listenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.Lstat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if !dir.IsDir() || dir.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %v, want drwx------", dir.Mode())
	}
	sock, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if sock.Mode()&fs.ModeSocket == 0 || sock.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want Srw-------", sock.Mode())
	}
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket file is still there after Close (%v)", err)
	}
}

func TestListenUnixRefusesSharedDirectory(t *testing.T) {
	skipWithoutModes(t)
	base := shortTempDir(t)
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(base, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"group and others can enter", filepath.Join(open, "lsp.sock"), "mode 0755"},
		{"directory is a symlink", filepath.Join(link, "lsp.sock"), "symbolic link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := listenUnix(tc.path)
			if err == nil {
				_ = ln.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("listenUnix(%s): %v; want an error with %q", tc.path, err, tc.want)
			}
		})
	}
}

func TestListenUnixStaleSocket(t *testing.T) {
	skipWithoutModes(t)
	dir := shortTempDir(t)
	path := filepath.Join(dir, "lsp.sock")

	// A socket left behind by a server that died (nothing listens on it) is replaced.
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	_ = old.Close()
	ln, err := listenUnix(path)
	if err != nil {
		t.Fatalf("a stale socket was not replaced: %v", err)
	}

	// A live one is not: another server owns it.
	if again, err := listenUnix(path); err == nil || !strings.Contains(err.Error(), "another server") {
		if err == nil {
			_ = again.Close()
		}
		t.Errorf("listenUnix on a live socket: %v; want a refusal", err)
	}
	_ = ln.Close()

	// Nor is a file that is not a socket.
	if err := os.WriteFile(path, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ln, err := listenUnix(path); err == nil || !strings.Contains(err.Error(), "not a socket") {
		if err == nil {
			_ = ln.Close()
		}
		t.Errorf("listenUnix over a regular file: %v; want a refusal", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "mine" {
		t.Errorf("the regular file was touched: %q", data)
	}
}

// syncBuffer is a bytes.Buffer a logger can write to from another goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestPeerListenerClosesOtherUsers(t *testing.T) {
	if !peerCredChecked {
		t.Skip("no peer credentials on " + runtime.GOOS)
	}
	path := filepath.Join(shortTempDir(t), "lsp.sock")
	for _, tc := range []struct {
		name    string
		uid     int
		allowed bool
	}{
		{"another uid is closed", os.Geteuid() + 1, false},
		{"our uid is served", os.Geteuid(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := listenUnix(path)
			if err != nil {
				t.Fatal(err)
			}
			var logs syncBuffer
			pl := &peerListener{Listener: ln, uid: tc.uid, log: slog.New(slog.NewTextHandler(&logs, nil))}
			var wg conc.WaitGroup
			defer wg.Wait()
			defer pl.Close()
			accepted := make(chan net.Conn, 1)
			wg.Go(func() {
				c, err := pl.Accept()
				if err == nil {
					accepted <- c
				}
				close(accepted)
			})

			client, err := net.Dial("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			if _, err := client.Write([]byte("hello")); err != nil && tc.allowed {
				t.Fatal(err)
			}
			if !tc.allowed {
				// The server closes its end at once: the client reads EOF (or a reset).
				_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
				n, err := client.Read(make([]byte, 1))
				var ne net.Error
				if n != 0 || err == nil || (errors.As(err, &ne) && ne.Timeout()) {
					t.Fatalf("a peer with another uid was not closed: read %d, %v", n, err)
				}
				if !strings.Contains(logs.String(), "another user") {
					t.Errorf("no log line about the refused peer:\n%s", logs.String())
				}
				_ = pl.Close()
				if c, ok := <-accepted; ok {
					_ = c.Close()
					t.Errorf("Accept returned the refused connection")
				}
				return
			}
			c, ok := <-accepted
			if !ok {
				t.Fatalf("Accept failed for a peer with our uid; logs:\n%s", logs.String())
			}
			defer c.Close()
			got := make([]byte, 5)
			if _, err := io.ReadFull(c, got); err != nil || string(got) != "hello" {
				t.Errorf("read %q, %v from our own peer", got, err)
			}
		})
	}
}
