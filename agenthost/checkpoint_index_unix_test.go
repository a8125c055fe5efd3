//go:build unix

package agenthost

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigCheckpoints saves n checkpoints of folder, each of one file of size bytes before and after.
func bigCheckpoints(t *testing.T, st *store, folder string, n, size int) {
	t.Helper()
	for i := range n {
		before, after := make([]byte, size), make([]byte, size)
		_, _ = rand.Read(before)
		_, _ = rand.Read(after)
		cp := Checkpoint{
			Folder: folder, ThreadID: "thread", TurnID: fmt.Sprintf("turn-%02d", i),
			StartedAt: time.Unix(int64(1000+i), 0),
			Files:     []FileCheckpoint{{Path: filepath.Join(folder, "big.bin"), Before: newImage(before), After: newImage(after)}},
		}
		if err := st.saveCheckpoint(cp); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckpointListingReadsNoContents: listing a folder's checkpoints (hermes.status, code
// actions and undo each do) reads their summaries, not the files' contents: with 20 checkpoints
// of a 6 MiB file each it allocates well under one checkpoint's content, and the contents come
// back whole when one is loaded to be undone.
func TestCheckpointListingReadsNoContents(t *testing.T) {
	const size = 6 << 20
	st := openTestStore(t, t.TempDir())
	folder := t.TempDir()
	bigCheckpoints(t, st, folder, MaxCheckpoints, size)

	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cps, err := st.checkpoints(folder)
	runtime.ReadMemStats(&m1)
	if err != nil || len(cps) != MaxCheckpoints {
		t.Fatalf("checkpoints: %d, %v", len(cps), err)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 1<<20 {
		t.Errorf("listing %d checkpoints of %d MiB allocated %d KiB: it reads their contents", len(cps), size>>20, alloc>>10)
	}
	if f := cps[0].Files[0]; f.Before.Content != nil || f.After.Size != size || cps[0].TurnID != "turn-19" {
		t.Errorf("newest summary: turn %s, file %+v", cps[0].TurnID, f)
	}
	whole, err := st.loadCheckpoint(folder, "turn-07")
	if err != nil {
		t.Fatal(err)
	}
	if f := whole.Files[0]; len(f.Before.Content) != size || !newImage(f.After.Content).Equal(f.After) {
		t.Errorf("loaded checkpoint: before %d bytes, after matches its sum: %v", len(f.Before.Content), newImage(f.After.Content).Equal(f.After))
	}
}

// TestCheckpointListingSkipsBadEntries: a corrupt, empty, FIFO or directory entry among a folder's
// checkpoints is skipped with a log line, never blocks the listing, and the good ones are listed.
func TestCheckpointListingSkipsBadEntries(t *testing.T) {
	var logged bytes.Buffer
	st, err := openStore(t.TempDir(), slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	folder := t.TempDir()
	bigCheckpoints(t, st, folder, 2, 10)
	dir := st.checkpointDir(folder)
	bad := []string{"00000000000000000001-corrupt", "00000000000000000002-empty", "00000000000000000003-fifo", "00000000000000000004-dir"}
	for _, step := range []error{
		os.WriteFile(filepath.Join(dir, bad[0]+".json"), []byte(`{"folder": "`), 0o600),
		os.WriteFile(filepath.Join(dir, bad[1]+".json"), nil, 0o600),
		syscall.Mkfifo(filepath.Join(dir, bad[2]+".json"), 0o600),
		os.Mkdir(filepath.Join(dir, bad[3]+".json"), 0o700),
	} {
		if step != nil {
			t.Fatal(step)
		}
	}
	// A regular entry swapped for a FIFO after the folder is read: the open must not wait for a
	// writer either.
	swapped := filepath.Join(dir, "00000000000000000005-swapped")
	if err := syscall.Mkfifo(swapped+".json", 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.checkpointSummary(dir, filepath.Base(swapped), folder); err == nil {
		t.Error("a FIFO read as a checkpoint")
	}
	cps, err := st.checkpoints(folder)
	if err != nil || len(cps) != 2 {
		t.Fatalf("checkpoints: %+v, %v; want the two good ones", cps, err)
	}
	for _, name := range []string{bad[0], bad[1]} {
		if !strings.Contains(logged.String(), name) {
			t.Errorf("no log line for %s:\n%s", name, logged.String())
		}
	}
}

// TestLegacyCheckpointIsConverted: a checkpoint kept in the older single file (contents inline) is
// listed, converted into a summary and its contents, and can be undone.
func TestLegacyCheckpointIsConverted(t *testing.T) {
	st := openTestStore(t, t.TempDir())
	folder := t.TempDir()
	dir := st.checkpointDir(folder)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	legacy := fmt.Sprintf(`{"folder":%q,"threadId":"th","turnId":"t1","startedAt":"2026-01-02T03:04:05Z","files":[{"path":%q,"before":{"content":"YmVmb3JlCg=="},"after":{"absent":true}}]}`,
		folder, filepath.Join(folder, "a.txt"))
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000009-t1.json"), []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	cps, err := st.checkpoints(folder)
	if err != nil || len(cps) != 1 || cps[0].TurnID != "t1" || cps[0].Files[0].Before.Size != 7 || !cps[0].Files[0].After.Absent {
		t.Fatalf("legacy checkpoint listed as %+v, %v", cps, err)
	}
	whole, err := st.loadCheckpoint(folder, "t1")
	if err != nil || string(whole.Files[0].Before.Content) != "before\n" {
		t.Fatalf("legacy checkpoint loaded as %+v, %v", whole, err)
	}
}
