//go:build unix

package agenthost

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestTranscriptNotWrittenThroughSymlink: a symbolic link planted at a transcript's path is not
// followed; the file it points to stays untouched, and the turn's other transcript is still written.
func TestTranscriptNotWrittenThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	st := openTestStore(t, dir)
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	jsonl, md, err := TranscriptPaths(dir, "thread-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, jsonl); err != nil {
		t.Fatal(err)
	}
	res := &hermesproto.Result{ThreadID: "thread-1", TurnID: "turn-1", Status: StatusCompleted, Messages: []hermesproto.Message{{Role: "user", Content: "secret"}}}
	if got := st.appendTurn(nil, "/folder", res, false, res.Messages, nil, mdAnswer("secret")); got != md {
		t.Errorf("appendTurn = %q, want %q", got, md)
	}
	if data, _ := os.ReadFile(target); string(data) != "keep\n" {
		t.Errorf("written through the link: %q", data)
	}
	if fi, err := os.Lstat(jsonl); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if m := mode(t, md); m != 0o600 {
		t.Errorf("%s: mode %#o, want 0600", md, m)
	}
	if m := mode(t, st.statePath()+".lock"); m != 0o600 {
		t.Errorf("state lock: mode %#o, want 0600", m)
	}
	st.setFolder("/folder", folderState{ThreadID: "thread-1"})
	if m := mode(t, st.statePath()); m != 0o600 {
		t.Errorf("state.json: mode %#o, want 0600", m)
	}
}

// TestTranscriptFolderReadsOnlyRegularFiles: the folder a transcript names is read from a regular
// file only: a link planted at the transcript's path is not followed, and a FIFO there is not
// waited on.
func TestTranscriptFolderReadsOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(good, []byte(`{"folder":"/work/project"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if folder, ok := TranscriptFolder(good); !ok || folder != "/work/project" {
		t.Fatalf("TranscriptFolder(good) = %q, %v", folder, ok)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	if folder, ok := TranscriptFolder(link); ok {
		t.Errorf("a link was followed: %q", folder)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // release a blocked open, so that a failure ends
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	if _, ok := TranscriptFolder(fifo); ok {
		t.Error("a FIFO was read as a transcript")
	}
}
