package agenthost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestConcurrentTranscriptAppends appends turns to one thread from two stores on one state dir (two
// servers on one folder) at once. Records are large, so unlocked appends could interleave: every
// JSONL line must parse, and every turn must be there whole in both files.
func TestConcurrentTranscriptAppends(t *testing.T) {
	dir := t.TempDir()
	stores := []*store{openTestStore(t, dir), openTestStore(t, dir)}
	const perWriter, writers = 10, 4
	big := strings.Repeat("x", 64<<10) // well over PIPE_BUF and a page: a write that could tear

	var wg sync.WaitGroup
	for w := range writers {
		st := stores[w%len(stores)]
		wg.Go(func() {
			for i := range perWriter {
				res := &hermesproto.Result{
					ThreadID: "thread-shared", TurnID: fmt.Sprintf("w%d-t%d", w, i), Status: StatusCompleted,
					Messages: []hermesproto.Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: big}},
				}
				md := mdHeader(Input{Prompt: "q"}, false, time.Now()) + mdAnswer(big) + mdEnd(res)
				if path := st.appendTurn(nil, "/folder", res, false, res.Messages, nil, md); path == "" {
					t.Error("appendTurn wrote nothing")
				}
			}
		})
	}
	wg.Wait()

	jsonlPath, mdPath, err := TranscriptPaths(dir, "thread-shared")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(jsonlPath)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	turns := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		var e transcriptEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d does not parse (%d bytes): %v", line, len(sc.Bytes()), err)
		}
		if e.Kind == "message" && e.Message.Role == "assistant" && e.Message.Content != big {
			t.Fatalf("line %d: the assistant message is torn", line)
		}
		kinds[e.Kind]++
		turns[e.TurnID]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	total := writers * perWriter
	if kinds["result"] != total || kinds["message"] != 2*total || len(turns) != total {
		t.Errorf("records: %v over %d turns, want %d results and %d messages over %d turns", kinds, len(turns), total, 2*total, total)
	}
	// A turn's three records are consecutive: nothing came between them.
	var prev string
	run := 0
	sc = bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e transcriptEntry
		_ = json.Unmarshal(sc.Bytes(), &e)
		if e.TurnID != prev {
			if prev != "" && run != 3 {
				t.Fatalf("turn %s has %d consecutive records before %s's, want 3", prev, run, e.TurnID)
			}
			prev, run = e.TurnID, 0
		}
		run++
	}

	md, err := os.ReadFile(mdPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(md), "\n### You · "); n != total {
		t.Errorf("markdown has %d turns, want %d", n, total)
	}
	if n := strings.Count(string(md), big); n != total {
		t.Errorf("markdown has %d whole answers, want %d", n, total)
	}
}

// TestConcurrentStateSaves saves folders from two stores on one state dir at once: every folder
// either saved ends up in state.json.
func TestConcurrentStateSaves(t *testing.T) {
	dir := t.TempDir()
	stores := []*store{openTestStore(t, dir), openTestStore(t, dir)}
	const perWriter, writers = 10, 4
	var wg sync.WaitGroup
	for w := range writers {
		st := stores[w%len(stores)]
		wg.Go(func() {
			for i := range perWriter {
				st.setFolder(fmt.Sprintf("/w%d/f%d", w, i), folderState{ThreadID: fmt.Sprintf("thread-%d-%d", w, i), Turns: i})
			}
		})
	}
	wg.Wait()

	data, err := os.ReadFile(stores[0].statePath())
	if err != nil {
		t.Fatal(err)
	}
	var f stateFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for w := range writers {
		for i := range perWriter {
			folder := fmt.Sprintf("/w%d/f%d", w, i)
			if got := f.Folders[folder].ThreadID; got != fmt.Sprintf("thread-%d-%d", w, i) {
				t.Errorf("%s: thread %q", folder, got)
			}
		}
	}
	if len(f.Folders) != writers*perWriter {
		t.Errorf("%d folders saved, want %d", len(f.Folders), writers*perWriter)
	}
}

// TestTranscriptRejectsUnsafeThreadID: a thread id that is not a plain name writes no transcript
// anywhere, and TranscriptPaths says why.
func TestTranscriptRejectsUnsafeThreadID(t *testing.T) {
	dir := t.TempDir()
	st := openTestStore(t, dir)
	for _, id := range []string{"", ".", "..", "../../etc/x", "a/b", `a\b`, "a.b", "a b", "a\x00b", "ünïcode", strings.Repeat("a", 129)} {
		if j, m, err := TranscriptPaths(dir, id); err == nil {
			t.Errorf("TranscriptPaths(%q) = %q, %q; want an error", id, j, m)
		}
		res := &hermesproto.Result{ThreadID: id, TurnID: "turn-1", Status: StatusCompleted}
		if path := st.appendTurn(nil, "/folder", res, false, nil, nil, "q"); path != "" {
			t.Errorf("appendTurn on thread %q wrote %s", id, path)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "transcripts"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("transcripts written for unsafe ids: %v", entries)
	}
	for _, id := range []string{"thread-1", "0199a213-81c0-7800-8aa1-bbab2a035a53", "A_b-9", strings.Repeat("a", 128)} {
		j, m, err := TranscriptPaths(dir, id)
		base := filepath.Join(dir, "transcripts", id)
		if err != nil || j != base+".jsonl" || m != base+".md" {
			t.Errorf("TranscriptPaths(%q) = %q, %q, %v", id, j, m, err)
		}
	}
}

func openTestStore(t *testing.T, dir string) *store {
	t.Helper()
	st, err := openStore(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return st
}
