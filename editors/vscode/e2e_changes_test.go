package vscode_test

import (
	"slices"
	"strings"
	"testing"
)

// changesSeen is what e2e/changes.mjs's changes() records of the patch's two changes under review:
// each CodeLens row (top to bottom) and the status bar's count before, the multi-file diff its click
// opens (its text, tab and title bar's file actions), after Keep on the first and
// after Revert on the second; the editor's text and whether it is dirty after the revert, and the
// file on disk then.
type changesSeen struct {
	Lenses          []string `json:"lenses"`
	Count           string   `json:"count"`
	Highlighted     int      `json:"highlighted"`
	LensesAfterKeep []string `json:"lensesAfterKeep"`
	CountAfterKeep  string   `json:"countAfterKeep"`
	EditorAfter     string   `json:"editorAfter"`
	DirtyAfter      bool     `json:"dirtyAfter"`
	DiskAfter       string   `json:"diskAfter"`
	LensesAfter     []string `json:"lensesAfter"`
	CountAfter      string   `json:"countAfter"`
	Review          string   `json:"review"`
	ReviewTab       string   `json:"reviewTab"`
	ReviewActions   []string `json:"reviewActions"`
	KeepMs          int      `json:"keepMs"`
	RevertMs        int      `json:"revertMs"`
}

// checkChanges checks the changes under review as VS Code showed them: a CodeLens row above each
// hunk (Keep | Revert | the line it replaced), the added lines highlighted, "2 changes" in the status
// bar; Keep on the first left its text and took its row away; Revert on the second put its old line
// back in the editor, saved (not dirty), and on disk, the kept hunk staying.
func checkChanges(t *testing.T, c *changesSeen, before, lineOld, lineNew, lastOld, lastNew string) {
	t.Helper()
	if c == nil {
		t.Errorf("no changes under review recorded")
		return
	}
	t.Logf("changes under review: lenses %q, count %q, %d highlighted line(s); keep → lens gone %d ms, revert → editor %d ms", c.Lenses, c.Count, c.Highlighted, c.KeepMs, c.RevertMs)
	want := []string{"Keep | Revert | − " + lineOld, "Keep | Revert | − " + lastOld}
	if !slices.Equal(c.Lenses, want) {
		t.Errorf("the CodeLens rows: %q, want %q", c.Lenses, want)
	}
	if !strings.Contains(c.Count, "2 changes") || !strings.Contains(c.CountAfterKeep, "1 change") || c.CountAfter != "" {
		t.Errorf("the status bar's count: %q, after Keep %q, after Revert %q", c.Count, c.CountAfterKeep, c.CountAfter)
	}
	if !strings.HasPrefix(c.ReviewTab, "Hermes: changes under review") || !slices.Contains(c.ReviewActions, "Keep Changes in File") || !slices.Contains(c.ReviewActions, "Revert Changes in File") {
		t.Errorf("the changes' diff from the status bar's count: tab %q, title bar %q, text %q", c.ReviewTab, c.ReviewActions, c.Review)
	}
	if c.Highlighted < 2 {
		t.Errorf("the added lines are not highlighted: %d line decoration(s)", c.Highlighted)
	}
	if !slices.Equal(c.LensesAfterKeep, want[1:]) || len(c.LensesAfter) != 0 {
		t.Errorf("the CodeLens rows after Keep %q, after Revert %q", c.LensesAfterKeep, c.LensesAfter)
	}
	afterRevert := strings.Replace(before, lineOld, lineNew, 1)
	if !strings.Contains(c.EditorAfter, lineNew) || !strings.Contains(c.EditorAfter, lastOld) || strings.Contains(c.EditorAfter, lastNew) || c.DirtyAfter {
		t.Errorf("the editor after Revert (dirty %v):\n%s", c.DirtyAfter, c.EditorAfter)
	}
	if c.DiskAfter != afterRevert {
		t.Errorf("hello.txt after Revert = %q, want %q", c.DiskAfter, afterRevert)
	}
}

// checkLatency logs the median time from a patch on disk to the open editor showing it, over the
// auto-approved patches the e2e ends with (no diff editor opens or closes), against the target of
// 100 ms, and fails past 150 ms. VS Code shows the patch when its file watcher reports the write:
// the watcher batches changes for 75 ms before VS Code reloads the file, so the median sits at
// 92–99 ms in code-server here (docs/benchmarks.md); the test guards against a slower path (a forced
// reload of the editor measured 124–188 ms) without failing on a loaded machine.
func checkLatency(t *testing.T, l *struct {
	DiskToEditorMs []int `json:"diskToEditorMs"`
}) {
	t.Helper()
	if l == nil || len(l.DiskToEditorMs) != latencyRuns {
		t.Errorf("the timed patches: %+v, want %d", l, latencyRuns)
		return
	}
	ms := slices.Clone(l.DiskToEditorMs)
	slices.Sort(ms)
	median := ms[len(ms)/2]
	t.Logf("patch on disk → editor over %d auto-approved patches: median %d ms (target 100), min %d, max %d (%v)", len(ms), median, ms[0], ms[len(ms)-1], l.DiskToEditorMs)
	if median > 150 {
		t.Errorf("patch on disk → editor: median %d ms over %v, want at most 150 (the target is 100)", median, l.DiskToEditorMs)
	}
}
