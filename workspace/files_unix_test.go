//go:build unix

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// wsTree makes a folder ws with sub/a.txt inside and out/secret.txt beside it, both under a temp dir.
func wsTree(t *testing.T) (ws, out string) {
	t.Helper()
	dir := t.TempDir()
	ws, out = filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	for _, d := range []string{filepath.Join(ws, "sub"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(ws, "sub", "a.txt"), []byte("inside\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(out, "secret.txt"), []byte("secret\n"), 0o644))
	return ws, out
}

func TestInsideReasons(t *testing.T) {
	ws, out := wsTree(t)
	must(t, os.Symlink(out, filepath.Join(ws, "link")))
	must(t, os.Symlink(filepath.Join(out, "secret.txt"), filepath.Join(ws, "o.txt")))
	must(t, os.Symlink(filepath.Join(ws, "sub"), filepath.Join(ws, "abs"))) // absolute, but inside
	for _, c := range []struct {
		path, rel, reason string
	}{
		{filepath.Join(ws, "sub", "a.txt"), "sub/a.txt", ""},
		{filepath.Join(ws, "sub", "new.txt"), "sub/new.txt", ""},
		{filepath.Join(ws, "abs", "a.txt"), "sub/a.txt", ""},
		{filepath.Join(ws, "link", "secret.txt"), "", "link/ is now a link outside the folder"},
		{filepath.Join(ws, "o.txt"), "", "o.txt is now a link outside the folder"},
		{filepath.Join(out, "secret.txt"), "", "is outside the folder"},
		{filepath.Join(ws, "sub", "..", "..", "out"), "", "is outside the folder"},
	} {
		rel, err := Inside(ws, c.path)
		if c.reason == "" {
			if err != nil || filepath.ToSlash(rel) != c.rel {
				t.Errorf("Inside(%s) = %q, %v; want %q", c.path, rel, err, c.rel)
			}
			continue
		}
		if !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("Inside(%s) = %q, %v; want ErrOutside saying %q", c.path, rel, err, c.reason)
		}
	}
}

func TestReadFileRefusesWhatIsNotARegularFileInside(t *testing.T) {
	ws, out := wsTree(t)
	ctx := context.Background()
	if b, err := ReadFile(ctx, ws, filepath.Join(ws, "sub", "a.txt"), 100); err != nil || string(b) != "inside\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(ctx, ws, filepath.Join(ws, "sub", "a.txt"), 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v, want ErrTooLarge", err)
	}
	must(t, os.Symlink(filepath.Join(out, "secret.txt"), filepath.Join(ws, "o.txt")))
	must(t, os.Symlink("/proc/self/fd/0", filepath.Join(ws, "stdin")))
	must(t, os.Symlink("/etc", filepath.Join(ws, "etc")))
	for _, name := range []string{"o.txt", "stdin", "etc/passwd"} {
		if b, err := ReadFile(ctx, ws, filepath.Join(ws, name), 1<<20); !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%s) = %q, %v; want ErrOutside", name, b, err)
		}
	}
	fifo := filepath.Join(ws, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan error, 1)
	go func() { _, err := ReadFile(ctx, ws, fifo, 1<<20); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(fifo) = %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFile blocked on a FIFO") // a bound on a hang, not a wait for an event
	}
	if _, err := ReadFile(ctx, ws, filepath.Join(ws, "sub"), 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(dir) = %v, want ErrNotRegular", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ReadFile(cancelled, ws, filepath.Join(ws, "sub", "a.txt"), 100); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile with its context ended = %v", err)
	}
}

func TestWriteFileNeverWritesThroughALink(t *testing.T) {
	ws, out := wsTree(t)
	secret := filepath.Join(out, "secret.txt")
	// A file that is a link, outside or inside, is not written through.
	must(t, os.Symlink(secret, filepath.Join(ws, "o.txt")))
	must(t, os.Symlink("sub/a.txt", filepath.Join(ws, "in.txt")))
	if err := WriteFile(ws, filepath.Join(ws, "o.txt"), []byte("pwned"), 0o644); !errors.Is(err, ErrLink) {
		t.Errorf("WriteFile(link outside) = %v, want ErrLink", err)
	}
	if err := WriteFile(ws, filepath.Join(ws, "in.txt"), []byte("x"), 0o644); !errors.Is(err, ErrLink) {
		t.Errorf("WriteFile(link inside) = %v, want ErrLink", err)
	}
	// A parent that is a link outside is refused with its reason.
	must(t, os.Symlink(out, filepath.Join(ws, "link")))
	err := WriteFile(ws, filepath.Join(ws, "link", "secret.txt"), []byte("pwned"), 0o644)
	if !errors.Is(err, ErrOutside) || err.Error() != "link/ is now a link outside the folder" {
		t.Errorf("WriteFile(through a parent link) = %v", err)
	}
	if err := WriteFile(ws, filepath.Join(ws, "link", "new.txt"), []byte("pwned"), 0o644); !errors.Is(err, ErrOutside) {
		t.Errorf("WriteFile(new file under a parent link) = %v", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret\n" {
		t.Fatalf("the file outside was written: %q", b)
	}
	if _, err := os.Stat(filepath.Join(out, "new.txt")); err == nil {
		t.Fatal("a file was created outside")
	}
	// Regular files are written, new ones created with their parents, the mode kept.
	must(t, os.Chmod(filepath.Join(ws, "sub", "a.txt"), 0o600))
	must(t, WriteFile(ws, filepath.Join(ws, "sub", "a.txt"), []byte("new"), 0o644))
	if b, _ := os.ReadFile(filepath.Join(ws, "sub", "a.txt")); string(b) != "new" {
		t.Errorf("content = %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(ws, "sub", "a.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 kept", fi.Mode().Perm())
	}
	must(t, WriteFile(ws, filepath.Join(ws, "d", "e", "f.txt"), []byte("f"), 0o640))
	if fi, err := os.Stat(filepath.Join(ws, "d", "e", "f.txt")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("created: %v, %v", fi, err)
	}
	fifo := filepath.Join(ws, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o600))
	if err := WriteFile(ws, fifo, []byte("x"), 0o644); !errors.Is(err, ErrNotRegular) {
		t.Errorf("WriteFile(fifo) = %v", err)
	}
	if err := WriteFile(ws, ws, []byte("x"), 0o644); !errors.Is(err, ErrOutside) {
		t.Errorf("WriteFile(the folder itself) = %v", err)
	}
}

func TestRemoveStaysInside(t *testing.T) {
	ws, out := wsTree(t)
	secret := filepath.Join(out, "secret.txt")
	must(t, os.Symlink(out, filepath.Join(ws, "link")))
	if err := Remove(ws, filepath.Join(ws, "link", "secret.txt")); !errors.Is(err, ErrOutside) {
		t.Errorf("Remove(through a parent link) = %v", err)
	}
	must(t, os.Symlink(secret, filepath.Join(ws, "o.txt")))
	must(t, Remove(ws, filepath.Join(ws, "o.txt"))) // the link itself goes
	if _, err := os.Lstat(filepath.Join(ws, "o.txt")); err == nil {
		t.Error("the link is still there")
	}
	if _, err := os.Stat(secret); err != nil {
		t.Fatalf("the file outside was removed: %v", err)
	}
	must(t, Remove(ws, filepath.Join(ws, "sub", "a.txt")))
	must(t, Remove(ws, filepath.Join(ws, "sub", "a.txt"))) // missing: not an error
	if err := Remove(ws, secret); !errors.Is(err, ErrOutside) {
		t.Errorf("Remove(outside) = %v", err)
	}
}

func TestReadAnywhereReadsOnlyRegularFilesBounded(t *testing.T) {
	_, out := wsTree(t) // outside the folder: ReadAnywhere is contained in none
	ctx := context.Background()
	secret := filepath.Join(out, "secret.txt")
	if b, err := ReadAnywhere(ctx, secret, 100); err != nil || string(b) != "secret\n" {
		t.Fatalf("ReadAnywhere = %q, %v", b, err)
	}
	if _, err := ReadAnywhere(ctx, secret, 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v, want ErrTooLarge", err)
	}
	fifo := filepath.Join(out, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan error, 1)
	go func() { _, err := ReadAnywhere(ctx, fifo, 1<<20); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadAnywhere(fifo) = %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadAnywhere blocked on a FIFO") // a bound on a hang, not a wait for an event
	}
	if _, err := ReadAnywhere(ctx, out, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadAnywhere(dir) = %v, want ErrNotRegular", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ReadAnywhere(cancelled, secret, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAnywhere with its context ended = %v", err)
	}
}
