//go:build unix

package agenthost

import (
	"fmt"
	"log/slog"
	"os"
	"syscall"
)

// makePrivate checks that the folder at path belongs to the current user and gives it mode 0700: a
// folder just created (whatever the umask made of its mode), or one whose group or others have any
// permission (with a warning: someone may have read it already).
//
//hermes:ownfile the state folder and its own folders, opened without following a link
func makePrivate(path, what string, created bool, log *slog.Logger) error {
	// Opened without following links, so the checks and the chmod apply to the folder the caller
	// looked at even if the path is swapped for a link in between.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return fmt.Errorf("open %s %s: %w (set hermes.stateDir to a folder of your own)", what, path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := os.Geteuid(); int64(st.Uid) != int64(uid) {
			return fmt.Errorf("%s %s is owned by uid %d, not you (uid %d): set hermes.stateDir to a folder of your own", what, path, st.Uid, uid)
		}
	}
	perm := fi.Mode().Perm()
	open := perm&0o077 != 0
	if !open && (!created || perm == 0o700) {
		return nil
	}
	if err := f.Chmod(0o700); err != nil {
		return fmt.Errorf("make %s %s private (chmod 0700): %w (set hermes.stateDir to a folder of your own on a disk that keeps unix permissions)", what, path, err)
	}
	if open && !created {
		log.Warn("the state folder was open to other users; it is now private (0700)", "path", path, "mode", fmt.Sprintf("%#o", perm))
	}
	return nil
}
