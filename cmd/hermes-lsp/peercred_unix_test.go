//go:build linux || darwin

package main

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/conc"
)

func TestPeerListenerClosesOtherUsers(t *testing.T) {
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
