package agenthost

// This file keeps the diffs an editor shows for patch approvals: files of the state folder, each
// under a random name in its private diffs folder, removed once the approval is decided.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// WriteDiff writes a patch's diff to a new file with a random name in stateDir's private diffs
// folder (made 0700 when missing) and returns its path. It never follows or replaces anything
// planted there: the file is created exclusively, without following a link, with mode 0600.
//
//hermes:ownfile a diff to show, a new file of the state folder, never through a link
func WriteDiff(stateDir string, diff []byte) (string, error) {
	dir := filepath.Join(stateDir, "diffs")
	if err := ensurePrivateDir(dir, "folder", slog.Default()); err != nil {
		return "", err
	}
	var name [12]byte
	if _, err := rand.Read(name[:]); err != nil {
		return "", err
	}
	path := filepath.Join(dir, hex.EncodeToString(name[:])+".diff")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|openNoFollow, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.Write(diff)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", err
	}
	return path, nil
}

// RemoveDiff removes a diff WriteDiff wrote; one already gone is no error.
//
//hermes:ownfile a diff WriteDiff wrote in the state folder
func RemoveDiff(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
