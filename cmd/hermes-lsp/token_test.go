package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sourcegraph/conc"
)

func TestTokenFileCreated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "token")
	token, created, err := loadToken(path)
	if err != nil || !created {
		t.Fatalf("loadToken(missing file) = %q, %v, %v; want a new token", token, created, err)
	}
	if len(token) != 64 {
		t.Errorf("token %q has %d characters, want 64", token, len(token))
	}
	if b, err := hex.DecodeString(token); err != nil || len(b) != 32 {
		t.Errorf("token %q is not 32 bytes in hex: %v", token, err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %04o, want 0600", fi.Mode().Perm())
	}

	// The next start reads the same token back.
	again, created, err := loadToken(path)
	if err != nil || created || again != token {
		t.Errorf("loadToken(existing) = %q, %v, %v; want %q, false, nil", again, created, err, token)
	}
	// Each new file gets a token of its own.
	other, _, err := loadToken(filepath.Join(dir, "token2"))
	if err != nil || other == token {
		t.Errorf("a second token file got %q (%v); want a different random token", other, err)
	}
}

// TestTokenFileConcurrentCreators: servers starting at the same moment on one missing token file
// all end with the same token, one of them having created it; none reads a file half written.
func TestTokenFileConcurrentCreators(t *testing.T) {
	const rounds, creators = 50, 8
	dir := t.TempDir()
	for round := range rounds {
		path := filepath.Join(dir, fmt.Sprintf("token%d", round))
		start := make(chan struct{})
		type result struct {
			token   string
			created bool
			err     error
		}
		results := make([]result, creators)
		var wg conc.WaitGroup
		for i := range creators {
			wg.Go(func() {
				<-start
				token, created, err := loadToken(path)
				results[i] = result{token, created, err}
			})
		}
		close(start)
		wg.Wait()

		made := 0
		for i, r := range results {
			if r.err != nil {
				t.Fatalf("round %d, creator %d: %v", round, i, r.err)
			}
			if r.token != results[0].token {
				t.Fatalf("round %d: creator %d has token %q, creator 0 %q", round, i, r.token, results[0].token)
			}
			if r.created {
				made++
			}
		}
		if made != 1 {
			t.Fatalf("round %d: %d creators say they created the file, want 1", round, made)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != rounds {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %v, want only the %d token files (no temporary files left)", names, rounds)
	}
}
