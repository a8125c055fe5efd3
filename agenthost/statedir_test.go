//go:build unix

package agenthost

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestStateDirCreatedPrivate: a missing state dir, its missing parents and its transcripts folder are
// created, the dir and transcripts with mode 0700.
func TestStateDirCreatedPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "hermes-lsp")
	if err := EnsureStateDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "transcripts")} {
		if m := mode(t, p); m != 0o700 {
			t.Errorf("%s: mode %#o, want 0700", p, m)
		}
	}
	diffs := filepath.Join(dir, "diffs")
	if err := EnsurePrivateDir(diffs); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, diffs); m != 0o700 {
		t.Errorf("%s: mode %#o, want 0700", diffs, m)
	}
}

// TestStateDirOpenToOthersIsFixed: an existing state dir of the user's that group or others may use
// is made 0700, with a warning; one already private is left alone, silently.
func TestStateDirOpenToOthersIsFixed(t *testing.T) {
	dir := t.TempDir()
	transcripts := filepath.Join(dir, "transcripts")
	if err := os.Mkdir(transcripts, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(transcripts, 0o777); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if _, err := openStore(dir, log); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, transcripts} {
		if m := mode(t, p); m != 0o700 {
			t.Errorf("%s: mode %#o, want 0700", p, m)
		}
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 2 || !strings.Contains(logs.String(), "mode=0755") {
		t.Errorf("want a warning for each folder fixed, got:\n%s", logs.String())
	}

	logs.Reset()
	if err := ensureStateDir(dir, log); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 0 {
		t.Errorf("a private state dir was warned about:\n%s", logs.String())
	}
}

// TestStateDirRefused: a state dir that is a symbolic link, not a folder, or another user's is
// refused, by New too, and the error says what to do.
func TestStateDirRefused(t *testing.T) {
	tmp := t.TempDir()
	real := filepath.Join(tmp, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ dir, want string }{
		"symlink":        {link, "is a symbolic link: set hermes.stateDir"},
		"file":           {file, "is not a folder"},
		"transcripts is": {filepath.Join(tmp, "t"), "is a symbolic link"},
	}
	// transcripts as a link to a folder elsewhere.
	if err := os.Mkdir(filepath.Join(tmp, "t"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(tmp, "t", "transcripts")); err != nil {
		t.Fatal(err)
	}

	// Another user's folder: one we chown away when we are root, else / (root's).
	uid := os.Geteuid()
	other := "/"
	if uid == 0 {
		other = filepath.Join(tmp, "others")
		if err := os.Mkdir(other, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	owner := "0"
	if uid == 0 {
		owner = "65534"
	}
	cases["another user's"] = struct{ dir, want string }{other,
		"is owned by uid " + owner + ", not you (uid " + strconv.Itoa(uid) + "): set hermes.stateDir to a folder of your own"}

	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := EnsureStateDir(c.dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("EnsureStateDir(%s) = %v, want an error with %q", c.dir, err, c.want)
			}
			if _, err := New(Config{StateDir: c.dir}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New on %s = %v, want an error with %q", c.dir, err, c.want)
			}
		})
	}
	if m := mode(t, real); m != 0o700 {
		t.Errorf("the link's target changed mode: %#o", m)
	}
}
