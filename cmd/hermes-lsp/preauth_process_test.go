//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sourcegraph/conc"
)

// hugeInitialize is the size of the initialize TestPreAuthMemory's clients send: 60 MB.
const hugeInitialize = 60_000_000

// hugeInitializeFrame returns a framed initialize request of hugeInitialize bytes, padded in its
// params, as a reader that holds none of it.
func hugeInitializeFrame() io.Reader {
	head := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{},"pad":"`
	tail := `"}}`
	pad := hugeInitialize - len(head) - len(tail)
	return io.MultiReader(
		strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", hugeInitialize, head)),
		io.LimitReader(repeatByte('a'), int64(pad)),
		strings.NewReader(tail))
}

// repeatByte is an endless reader of one byte.
type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// peakRSS is the most resident memory the process pid has had (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// TestPreAuthMemory: eight clients that each send a 60 MB initialize before authenticating (no
// token over TCP, none needed on a Unix socket) are closed after the frame's header, unanswered,
// and the server's resident memory stays under 64 MiB (it read them all, about 1 GiB, before).
func TestPreAuthMemory(t *testing.T) {
	const clients = 8
	const limit = 64 << 20
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			args := []string{"--listen", "unix:" + filepath.Join(shortTempDir(t), "s", "lsp.sock")}
			if network == "tcp" {
				args = []string{"--listen", "tcp:127.0.0.1:0", "--token-file", filepath.Join(t.TempDir(), "token")}
			}
			srv := startServer(t, nil, append(args, "--codex", "/nonexistent/codex")...)
			_, address := srv.addr()
			before := peakRSS(t, srv.cmd.Process.Pid)

			results := make([]string, clients)
			var wg conc.WaitGroup
			for i := range clients {
				c := dial(t, network, address)
				wg.Go(func() {
					// The write fails once the server closes: what matters is what it does.
					var writes conc.WaitGroup
					writes.Go(func() { _, _ = io.Copy(c.conn, hugeInitializeFrame()) })
					results[i] = readToEnd(c)
					_ = c.conn.Close()
					writes.Wait()
				})
			}
			wg.Wait()

			peak := peakRSS(t, srv.cmd.Process.Pid)
			t.Logf("server peak RSS %d MiB (%d MiB before the clients) after %d clients sent a %d MB initialize",
				peak>>20, before>>20, clients, hugeInitialize/1_000_000)
			if peak >= limit {
				t.Errorf("the server's peak RSS was %d MiB, want under %d MiB", peak>>20, limit>>20)
			}
			for i, r := range results {
				if r != "" {
					t.Errorf("client %d: %s", i, r)
				}
			}
		})
	}
}
