package prompt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// TestLinesFromDisk reads the lines asked for, stops at the last one it needs, and bounds what it
// returns.
func TestLinesFromDisk(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.go")
	if err := os.WriteFile(small, []byte("a\nb\nc\nd"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		start, end uint32
		want       string
		err        bool
	}{
		{0, 0, "a\n", false},
		{1, 2, "b\nc\n", false},
		{2, 99, "c\nd", false},
		{9, 12, "", true},
	} {
		got, err := linesFromDisk(context.Background(), dir, small, tc.start, tc.end)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("lines %d-%d: %q, %v; want %q, err %v", tc.start, tc.end, got, err, tc.want, tc.err)
		}
	}

	// A file of 64 MiB of one line: what comes back is bounded, and reading stops at the scan bound.
	big := filepath.Join(dir, "big.txt")
	fh, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(64 << 20); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	got, err := linesFromDisk(context.Background(), dir, big, 0, 0)
	if err != nil || len(got) > maxContextBytes {
		t.Errorf("big file: %d bytes, %v", len(got), err)
	}

	// A directory is not a regular file.
	if _, err := linesFromDisk(context.Background(), dir, dir, 0, 0); !errors.Is(err, workspace.ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}

	// Cancelled: no work.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := linesFromDisk(ctx, dir, small, 0, 2); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("cancelled read: %v", err)
	}
}
