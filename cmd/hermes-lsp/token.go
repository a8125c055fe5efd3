package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// minTokenLen is the shortest token we accept from a file someone wrote by hand: a short one could
// be guessed by a local process trying them one connection at a time.
const minTokenLen = 16

// loadToken returns the token in the file at path, creating the file with a new random token when it
// does not exist (created is then true). An existing file must be a regular file of ours that no
// one else can read, because whoever reads it can run commands as us.
//
//hermes:ownfile the token file named with --token-file
func loadToken(path string) (token string, created bool, err error) {
	if path == "" {
		return "", false, errors.New("--token-file: empty path")
	}
	// Something there (a link, even a dangling one, included) is read, and refused if it is not a
	// private token file; something that appears after this look is read too: another server's.
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		token, err = createToken(path)
		switch {
		case err == nil:
			return token, true, nil
		case !errors.Is(err, fs.ErrExist):
			return "", false, err
		}
	}
	token, err = readToken(path)
	return token, false, err
}

// createToken makes a file at path holding a new random token (32 bytes, hex-encoded), whole or
// not at all: the token is written to a temporary file of mode 0600 in the same directory, which is
// then hard-linked to path. A link never replaces what is at path (fs.ErrExist then says something
// is there, perhaps made by another server starting at the same moment) and never follows a link
// planted there, and whoever reads path sees the whole token, never a half-written file. A rename
// would do the first wrong: it replaces a token file another server has just made and handed out.
//
//hermes:ownfile the token file named with --token-file, and its temporary file beside it
func createToken(path string) (string, error) {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--token-file %s: its directory %s does not exist; create it first (mkdir -m 700 %s)", path, dir, dir)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("--token-file %s: random token: %w", path, err)
	}
	token := hex.EncodeToString(b[:])

	f, err := os.CreateTemp(dir, ".hermes-lsp-token-*.tmp") // 0600, a new file of ours
	if err != nil {
		return "", fmt.Errorf("--token-file %s: create a temporary file beside it: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // once linked, path keeps the file
	_, err = io.WriteString(f, token+"\n")
	if err == nil {
		err = f.Sync() // so that a crash cannot leave path naming an empty file
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("--token-file %s: write: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", err
		}
		return "", fmt.Errorf("--token-file %s: put the new token file in place: %w (its directory must allow hard links)", path, err)
	}
	return token, nil
}

// readToken reads an existing token file after checking that it is private to us. The file is
// checked once by name (so that a FIFO or a link is refused without being opened) and once open (so
// that a file swapped in between is refused too).
//
//hermes:ownfile the token file named with --token-file, not followed through a link
func readToken(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", fmt.Errorf("--token-file %s: %w", path, err)
	}
	if err := checkTokenFile(path, fi); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return "", fmt.Errorf("--token-file %s: open: %w", path, err)
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("--token-file %s: %w", path, err)
	}
	if !os.SameFile(fi, ofi) {
		return "", fmt.Errorf("--token-file %s: the file changed while it was being read; try again", path)
	}
	if err := checkTokenFile(path, ofi); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("--token-file %s: read: %w", path, err)
	}
	token := strings.TrimSpace(string(data))
	if len(token) < minTokenLen {
		return "", fmt.Errorf("--token-file %s: the token is shorter than %d characters; delete the file and a random one is made at the next start", path, minTokenLen)
	}
	return token, nil
}

func checkTokenFile(path string, fi os.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("--token-file %s is a symbolic link; name the file itself", path)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("--token-file %s is not a regular file", path)
	}
	if err := checkPrivate(fi); err != nil {
		return fmt.Errorf("--token-file %s %w; make it yours with mode 600 (chmod 600 %s), or delete it and a new one is made at the next start", path, err, path)
	}
	return nil
}
