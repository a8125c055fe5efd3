//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTokenFileRefused(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte(strings.Repeat("a", 64)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, _, err := loadToken(good); err != nil || tok != strings.Repeat("a", 64) {
		t.Fatalf("a private token file: %q, %v", tok, err)
	}
	groupReadable := filepath.Join(dir, "group")
	if err := os.WriteFile(groupReadable, []byte(strings.Repeat("b", 64)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(groupReadable, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "target"), dangling); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"group-readable", groupReadable, "mode 0640"},
		{"symlink", link, "symbolic link"},
		{"dangling symlink", dangling, "symbolic link"},
		{"directory", dir, "not a regular file"},
		{"short token", short, "shorter than"},
		{"missing directory", filepath.Join(dir, "nope", "token"), "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, _, err := loadToken(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("loadToken(%s) = %q, %v; want an error with %q", tc.path, tok, err, tc.want)
			}
		})
	}
	// A refused link must not have been followed and written through.
	if data, _ := os.ReadFile(good); string(data) != strings.Repeat("a", 64)+"\n" {
		t.Errorf("the link's target changed: %q", data)
	}
	if _, err := os.Lstat(filepath.Join(dir, "target")); !os.IsNotExist(err) {
		t.Errorf("the dangling link's target was created (%v)", err)
	}
}
