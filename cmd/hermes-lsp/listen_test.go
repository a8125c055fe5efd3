package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseListen(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	cwd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in       string
		network  string
		address  string
		loopback bool // for tcp
		err      string
	}{
		{in: "unix:/p", network: "unix", address: filepath.Clean("/p")},
		{in: "/p", network: "unix", address: filepath.Clean("/p")},
		{in: "unix", network: "unix", address: filepath.Join(runtime, "hermes-lsp", "lsp.sock")},
		{in: "unix:rel.sock", network: "unix", address: filepath.Join(cwd, "rel.sock")},
		{in: "./rel.sock", network: "unix", address: filepath.Join(cwd, "rel.sock")},
		{in: "tcp:127.0.0.1:1", network: "tcp", address: "127.0.0.1:1", loopback: true},
		{in: "127.0.0.1:1", network: "tcp", address: "127.0.0.1:1", loopback: true},
		{in: "127.9.9.9:1", network: "tcp", address: "127.9.9.9:1", loopback: true},
		{in: "[::1]:1", network: "tcp", address: "[::1]:1", loopback: true},
		{in: "localhost:1", network: "tcp", address: "localhost:1", loopback: true},
		{in: "tcp:LocalHost:1", network: "tcp", address: "LocalHost:1", loopback: true},
		{in: "0.0.0.0:1", network: "tcp", address: "0.0.0.0:1"},
		{in: "tcp:0.0.0.0:1", network: "tcp", address: "0.0.0.0:1"},
		{in: ":1", network: "tcp", address: ":1"},
		{in: "[::]:1", network: "tcp", address: "[::]:1"},
		{in: "10.1.2.3:1", network: "tcp", address: "10.1.2.3:1"},
		{in: "example.com:1", network: "tcp", address: "example.com:1"},
		{in: "localhost.example.com:1", network: "tcp", address: "localhost.example.com:1"},
		{in: "unix:", err: "needs a path"},
		{in: "tcp:127.0.0.1", err: "want HOST:PORT"},
		{in: "127.0.0.1:http", err: "port must be a number"},
		{in: "127.0.0.1:70000", err: "port must be a number"},
		{in: "sock", err: "want unix, unix:PATH"},
		{in: "", err: "want unix"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseListen(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("parseListen(%q) = %+v, %v; want an error with %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseListen(%q): %v", tc.in, err)
			}
			if got.network != tc.network || got.address != tc.address {
				t.Errorf("parseListen(%q) = %s; want %s:%s", tc.in, got, tc.network, tc.address)
			}
			if got.network == "tcp" && got.loopback() != tc.loopback {
				t.Errorf("%s: loopback() = %v, want %v", got, got.loopback(), tc.loopback)
			}
		})
	}
}

func TestDefaultSocketPathWithoutRuntimeDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	got := defaultSocketPath()
	if filepath.Base(got) != "lsp.sock" || !strings.HasPrefix(filepath.Base(filepath.Dir(got)), "hermes-lsp") {
		t.Errorf("defaultSocketPath() = %q; want <tmp>/hermes-lsp-<uid>/lsp.sock", got)
	}
}

// TestFlagRefusals checks the refusals that happen before anything listens, in process.
func TestFlagRefusals(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "tcp:127.0.0.1:0"}, "needs --token-file"},
		{[]string{"--listen", "127.0.0.1:0"}, "needs --token-file"},
		{[]string{"--listen", "0.0.0.0:0", "--token-file", tokenFile}, "--listen-insecure"},
		{[]string{"--listen", ":0", "--token-file", tokenFile}, "--listen-insecure"},
		{[]string{"--listen", "[::]:0", "--token-file", tokenFile}, "--listen-insecure"},
		{[]string{"--listen", "example.com:0", "--token-file", tokenFile}, "--listen-insecure"},
		{[]string{"--listen", "unix", "--listen-insecure"}, "--listen-insecure is for --listen tcp"},
		{[]string{"--token-file", tokenFile}, "only apply with --listen"},
		{[]string{"--stdio", "--listen", "unix"}, "choose one"},
		{[]string{"--listen", "tcp:127.0.0.1:0", "--token-file", tokenFile, "--handshake-timeout", "0s"}, "must be positive"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), exitUsage, tc.want)
			}
		})
	}
}
