package lsp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// This file reads the lines of a user's file that an ask quotes, through the workspace boundary:
// bounded and safe against what a workspace can plant (a FIFO that never answers, a symlink that
// points elsewhere, a file of many gigabytes).

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
