package lsp

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// This file holds the server's own reads of the user's files and writes of its own: both bounded and
// safe against what a workspace can plant (a FIFO that never answers, a symlink that points
// elsewhere, a file of many gigabytes).

// Bounds on reading context lines from disk.
const (
	maxContextScan  = 16 << 20  // bytes read at most to reach the lines asked for
	maxContextBytes = 256 << 10 // bytes of lines returned at most
)

// linesFromDisk returns lines start..end (0-based, inclusive) of the regular file at path inside
// folder (through the workspace boundary). It reads only up to the last line it needs, at most
// maxContextScan bytes, and returns at most maxContextBytes (cut at a line); it stops when ctx ends.
func linesFromDisk(ctx context.Context, folder, path string, start, end uint32) (string, error) {
	f, err := workspace.OpenRegular(folder, path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, maxContextScan))
	var b strings.Builder
	for line := uint32(0); line <= end; line++ {
		if line%1024 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		text, err := r.ReadString('\n')
		if line >= start {
			if b.Len()+len(text) > maxContextBytes {
				break
			}
			b.WriteString(text)
		}
		if err == io.EOF {
			if line < start {
				return "", fmt.Errorf("%s has fewer than %d lines", filepath.Base(path), start+1)
			}
			break
		}
		if err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// writePrivateFile writes data to a new file with a random name ending in suffix in dir, which must
// already be private to the user. It never follows or replaces anything planted there: the file is
// created exclusively (O_EXCL, O_NOFOLLOW) with mode 0600.
//
//hermes:ownfile a file of the state folder (a diff to show), created new, never through a link
func writePrivateFile(dir, suffix string, data []byte) (string, error) {
	var name [12]byte
	if _, err := rand.Read(name[:]); err != nil {
		return "", err
	}
	path := filepath.Join(dir, hex.EncodeToString(name[:])+suffix)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", err
	}
	return path, nil
}
