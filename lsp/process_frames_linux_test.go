package lsp_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

// startRawProc runs the built binary on stdio and returns a raw client on its pipes and the channel
// its exit arrives on (put back after reading it: the cleanup reads it too).
func startRawProc(t *testing.T) (*rawClient, chan error, *exec.Cmd, string) {
	t.Helper()
	bin := testbin.HermesLSP(t)
	tmp := t.TempDir()
	cmd := exec.Command(bin, "--log-file", filepath.Join(tmp, "server.log"))
	cmd.Env = append(os.Environ(), "HOME="+tmp, "XDG_STATE_HOME="+filepath.Join(tmp, "xdg"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case err := <-exited:
			exited <- err
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Error("the server did not exit; killed")
		}
	})
	c := &rawClient{t: t, conn: pipeRWC{r: stdout, w: stdin}, r: bufio.NewReader(stdout)}
	return c, exited, cmd, tmp
}

// shutdownExit sends shutdown and exit and checks the process ends within 2 s with code 0.
func shutdownExit(t *testing.T, c *rawClient, exited chan error) {
	t.Helper()
	c.frame(`{"jsonrpc":"2.0","id":99,"method":"shutdown"}`)
	c.reply()
	c.frame(`{"jsonrpc":"2.0","method":"exit"}`)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Error("the server did not exit within 2s of exit")
	}
}

// TestProcessFIFOAskThenExit: hermes.ask with a range in a FIFO of the workspace answers with an
// error (it never blocks on the FIFO), and the process exits within 2 s of shutdown and exit.
func TestProcessFIFOAskThenExit(t *testing.T) {
	c, exited, _, tmp := startRawProc(t)
	folder := filepath.Join(tmp, "ws")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(folder, "fifo.go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	c.frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":"file://` + folder + `"}}`)
	if msg := c.reply(); msg["result"] == nil {
		t.Fatalf("initialize: %v", msg)
	}
	c.frame(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"hermes.ask","arguments":[{"prompt":"read","uri":"file://` + fifo + `","range":{"start":{"line":0,"character":0},"end":{"line":2,"character":0}}}]}}`)
	msg := c.reply()
	if errorCode(msg) == 0 || !strings.Contains(string(msg["error"]), "not a regular file") {
		t.Fatalf("ask on a FIFO: %v", msg)
	}
	shutdownExit(t, c, exited)
}

// TestProcessSurvivesBadFrames drives the built binary on stdio with invalid JSON, an object id, a
// header line over 8 KiB and a 100 MiB body: it answers each and goes on, its peak RSS stays under
// 200 MiB, and it exits 0 after shutdown and exit.
func TestProcessSurvivesBadFrames(t *testing.T) {
	c, exited, cmd, tmp := startRawProc(t)
	c.frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":"file://` + tmp + `"}}`)
	if msg := c.reply(); msg["result"] == nil {
		t.Fatalf("initialize: %v", msg)
	}
	c.frame(`{"jsonrpc":"2.0","id":2,"method":"x","params":{oops}`)
	if msg := c.reply(); errorCode(msg) != -32700 {
		t.Errorf("invalid JSON: %v", msg)
	}
	c.frame(`{"jsonrpc":"2.0","id":{"x":1},"method":"shutdown"}`)
	if msg := c.reply(); errorCode(msg) != -32600 {
		t.Errorf("object id: %v", msg)
	}
	c.send("X-Junk: " + strings.Repeat("h", 10_000) + "\r\n\r\n")
	if msg := c.reply(); errorCode(msg) != -32600 {
		t.Errorf("long header: %v", msg)
	}
	c.send("Content-Length: 104857600\r\n\r\n")
	chunk := strings.Repeat("x", 1<<20)
	for range 100 {
		c.send(chunk)
	}
	if msg := c.reply(); errorCode(msg) != -32600 {
		t.Errorf("100 MiB body: %v", msg)
	}
	c.frame(`{"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"hermes.status"}}`)
	if msg := c.reply(); string(msg["id"]) != "3" || msg["result"] == nil {
		t.Fatalf("status after the bad frames: %v", msg)
	}
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("peak RSS %d MiB", peak>>20)
	if peak > 200<<20 {
		t.Errorf("peak RSS %d MiB, want under 200 MiB", peak>>20)
	}
	shutdownExit(t, c, exited)
}

// peakRSS reads a process's peak resident set size (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// TestProcessCodexStartBounded: a codex that never answers initialize fails hermes.ask after
// codex.startTimeoutSeconds with an error that says what to check, instead of holding it for the
// turn timeout.
func TestProcessCodexStartBounded(t *testing.T) {
	c, exited, _, tmp := startRawProc(t)
	silent := filepath.Join(tmp, "silent-codex")
	if err := os.WriteFile(silent, []byte("#!/bin/sh\nexec sleep 600\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(tmp, "ws")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	c.frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":"file://` + folder +
		`","initializationOptions":{"codex":{"path":"` + silent + `","startTimeoutSeconds":0.5}}}}`)
	if msg := c.reply(); msg["result"] == nil {
		t.Fatalf("initialize: %v", msg)
	}
	began := time.Now()
	c.frame(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"hermes.ask","arguments":[{"prompt":"hi"}]}}`)
	msg := c.reply()
	took := time.Since(began)
	t.Logf("hermes.ask failed after %v", took)
	if errorCode(msg) == 0 || !strings.Contains(string(msg["error"]), "did not answer initialize") || !strings.Contains(string(msg["error"]), "startTimeoutSeconds") {
		t.Fatalf("ask on a silent codex: %v", msg)
	}
	if took > 10*time.Second {
		t.Errorf("hermes.ask took %v with a 0.5 s start timeout", took)
	}
	shutdownExit(t, c, exited)
}
