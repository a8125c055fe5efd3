//go:build unix

package main

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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

func TestListenUnixModes(t *testing.T) {
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
