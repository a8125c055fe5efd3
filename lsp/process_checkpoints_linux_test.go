package lsp_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// writeCheckpoints lays n checkpoints of folder into stateDir as the server keeps them
// (docs/architecture.md, "Where state lives"): a summary NAME.json and the contents NAME.images, each of one file at
// path, size bytes before and after. The newest's after-image is what path holds now.
func writeCheckpoints(t *testing.T, stateDir, folder, path string, n, size int) {
	t.Helper()
	sum := sha256.Sum256([]byte(folder))
	dir := filepath.Join(stateDir, "checkpoints", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	image := func(b []byte) map[string]any {
		s := sha256.Sum256(b)
		return map[string]any{"size": len(b), "sha256": hex.EncodeToString(s[:])}
	}
	for i := range n {
		before := bytes.Repeat([]byte(fmt.Sprintf("turn %02d before\n", i)), size/16)
		after := bytes.Repeat([]byte(fmt.Sprintf("turn %02d after.\n", i)), size/16)
		name := fmt.Sprintf("%020d-turn-%02d", 1000+i, i)
		summary, _ := json.Marshal(map[string]any{
			"folder": folder, "threadId": "an-old-thread", "turnId": fmt.Sprintf("turn-%02d", i),
			"startedAt": time.Unix(int64(1000+i), 0), "version": 2,
			"files": []any{map[string]any{"path": path, "before": image(before), "after": image(after)}},
		})
		if err := os.WriteFile(filepath.Join(dir, name+".images"), append(before, after...), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), summary, 0o600); err != nil {
			t.Fatal(err)
		}
		if i == n-1 {
			if err := os.WriteFile(path, after, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestProcessManyLargeCheckpoints: with 20 checkpoints of a 6 MiB file, hermes.status, code actions
// and hermes.undoTurn answer without decoding every checkpoint, and the server stays under 100 MiB
// (it read all 240 MiB on each answer before: 5 s and 753 MiB).
func TestProcessManyLargeCheckpoints(t *testing.T) {
	env := codextest.NewReal(t) // the real codex: skipped with -short
	stateDir := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(env.Work, "big.txt")
	writeCheckpoints(t, stateDir, env.Work, path, 20, 6<<20)
	p := startServerProc(t, env, map[string]any{"stateDir": stateDir})
	ctx := testCtx(t)

	timed := func(what string, call func() error) {
		t.Helper()
		start := time.Now()
		if err := call(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s answered in %v", what, time.Since(start).Round(100*time.Microsecond))
	}
	var st hermesproto.Status
	timed("hermes.status", func() error {
		raw, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdStatus, nil)
		if err == nil {
			err = json.Unmarshal(raw, &st)
		}
		return err
	})
	if len(st.Folders) != 1 || len(st.Folders[0].UndoableTurns) != 20 {
		t.Fatalf("status: %+v", st.Folders)
	}
	timed("textDocument/codeAction", func() error {
		actions, err := p.ed.CodeActions(ctx, path, protocol.Range{}, nil)
		for _, a := range actions {
			if a.Title == fmt.Sprintf(hermesproto.CodeActionTitleUndoTurn, 1) {
				return err
			}
		}
		return fmt.Errorf("no undo action among %d (%v)", len(actions), err)
	})
	var res hermesproto.UndoTurnResult
	timed("hermes.undoTurn", func() error {
		raw, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdUndoTurn, map[string]any{})
		if err == nil {
			err = json.Unmarshal(raw, &res)
		}
		return err
	})
	if res.TurnID != "turn-19" || len(res.Restored) != 1 {
		t.Errorf("undo: %+v", res)
	}
	if rss := peakRSS(t, p.cmd.Process.Pid); rss > 100<<20 {
		t.Errorf("the server's peak RSS is %d MiB, want under 100", rss>>20)
	} else {
		t.Logf("the server's peak RSS: %d MiB", rss>>20)
	}
}
