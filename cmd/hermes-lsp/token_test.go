package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"
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
