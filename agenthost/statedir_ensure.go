package agenthost

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// The state dir holds the folders' threads and the transcripts of every turn, which quote code,
// commands and their output: only its owner may read it. Before the host writes anything there it
// checks that the dir is a real folder of the current user's, private to them.

// EnsureStateDir makes dir fit to hold hermes-lsp's state: dir and its transcripts folder are created
// with mode 0700 when missing; a folder of the user's that others may read or enter is narrowed to
// 0700, with a warning on the default logger; and a dir that is a symbolic link, not a folder, or
// owned by another user is refused with an error that says what to do. On Windows only the first
// checks apply (see statedir_windows.go).
func EnsureStateDir(dir string) error {
	return ensureStateDir(dir, slog.Default())
}

// EnsurePrivateDir makes path a folder only the current user can use, with the checks of
// EnsureStateDir: it is for folders of the editor layer under the state dir, such as <stateDir>/diffs.
// Missing parents are created with mode 0700 (before the umask).
func EnsurePrivateDir(path string) error {
	return ensurePrivateDir(path, "folder", slog.Default())
}

func ensureStateDir(dir string, log *slog.Logger) error {
	if err := ensurePrivateDir(dir, "state dir", log); err != nil {
		return err
	}
	return ensurePrivateDir(filepath.Join(dir, "transcripts"), "folder", log)
}

// ensurePrivateDir creates path when missing and checks it; what names it in errors ("state dir").
//
//hermes:ownfile the state folder and its own folders (transcripts, diffs, reviews)
func ensurePrivateDir(path, what string, log *slog.Logger) error {
	created := false
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(path, 0o700); err != nil {
			return fmt.Errorf("create %s %s: %w (set hermes.stateDir to a folder you can write)", what, path, err)
		}
		created = true
		fi, err = os.Lstat(path)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w (set hermes.stateDir to a folder you can write)", what, path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// A link could send the transcripts anywhere, including to a folder others can read.
		return fmt.Errorf("%s %s is a symbolic link: set hermes.stateDir to the real folder, one of your own", what, path)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s is not a folder: move it away or set hermes.stateDir to another folder", what, path)
	}
	return makePrivate(path, what, created, log)
}
