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
func loadToken(path string) (token string, created bool, err error) {
	if path == "" {
		return "", false, errors.New("--token-file: empty path")
	}
	token, err = createToken(path)
	switch {
	case err == nil:
		return token, true, nil
	case !errors.Is(err, fs.ErrExist):
		return "", false, err
	}
	token, err = readToken(path)
	return token, false, err
}

// createToken writes 32 random bytes, hex-encoded, to a new file at path. O_EXCL and O_NOFOLLOW make
// sure we write a file we just made, not one someone planted (or a link to one); fs.ErrExist says
// there is already something at path.
func createToken(path string) (string, error) {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--token-file %s: its directory %s does not exist; create it first (mkdir -m 700 %s)", path, dir, dir)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|oNoFollow, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", err
		}
		return "", fmt.Errorf("--token-file %s: create: %w", path, err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return "", fmt.Errorf("--token-file %s: random token: %w", path, err)
	}
	token := hex.EncodeToString(b[:])
	_, werr := io.WriteString(f, token+"\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("--token-file %s: write: %w", path, werr)
	}
	return token, nil
}

// readToken reads an existing token file after checking that it is private to us. The file is
// checked once by name (so that a FIFO or a link is refused without being opened) and once open (so
// that a file swapped in between is refused too).
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
