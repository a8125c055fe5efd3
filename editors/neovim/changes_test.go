package neovim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

// changesRuns is how many patches test/changes.lua times from the disk to the buffer.
const changesRuns = 5

// changesSummary is what test/changes.lua writes.
type changesSummary struct {
	NvimVersion         string `json:"nvimVersion"`
	PatchDiskToBufferMs int    `json:"patchDiskToBufferMs"`
	Diagnostics         []struct {
		Lnum     int    `json:"lnum"`
		Message  string `json:"message"`
		Severity int    `json:"severity"`
	} `json:"diagnostics"`
	NextDiagnosticLine int `json:"nextDiagnosticLine"`
	Quickfix           []struct {
		Lnum int    `json:"lnum"`
		Text string `json:"text"`
		File string `json:"file"`
	} `json:"quickfix"`
	QuickfixTitle   string   `json:"quickfixTitle"`
	Preview         []string `json:"preview"`
	PreviewFiletype string   `json:"previewFiletype"`
	CodeActions     []string `json:"codeActions"`
	AfterRevert     string   `json:"afterRevert"`
	AfterKeep       string   `json:"afterKeep"`
	CommandRevert   string   `json:"commandRevertLine"`
	DiskToBufferMs  []int    `json:"diskToBufferMs"`
	ServerStopped   bool     `json:"serverStopped"`
	Notifications   []struct {
		Message string `json:"message"`
	} `json:"notifications"`
	Error *string `json:"error"`
}

func (s *changesSummary) outcome() (string, *string) { return s.NvimVersion, s.Error }

// TestNeovimChanges runs test/changes.lua in each Neovim: the agent's patch of two hunks of an open
// file becomes two changes under review (Hint diagnostics of source hermes and code change, ]d),
// :Hermes changes lists them in the quickfix list, :Hermes preview shows the first's old text, the
// code action "Hermes: revert this change" reverts the second (in the buffer, saved, and on disk),
// :Hermes keep keeps the first; the next turn's request to the model tells of the revert; and the
// median time from a patch on disk to the buffer showing it, over changesRuns patches, is at most
// 100 ms.
func TestNeovimChanges(t *testing.T) {
	for _, n := range neovims(t) {
		t.Run(n.name, func(t *testing.T) { testChanges(t, n.path) })
	}
}

func testChanges(t *testing.T, nvim string) {
	const before = "First line.\nSecond line.\nThird line.\nFourth line.\nFifth line.\nSixth line.\n"
	patch := "*** Begin Patch\n*** Update File: notes.txt\n@@\n-Second line.\n+Second line, patched.\n@@\n-Fifth line.\n+Fifth line, patched.\n*** End Patch\n"
	env := codextest.NewReal(t)
	env.Model.Enqueue(fakemodel.Patch(patch), fakemodel.Message("Patched."), fakemodel.Message("Nothing else."))
	prev := "First line."
	for i := 1; i <= changesRuns; i++ {
		next := fmt.Sprintf("Latency run %d.", i)
		// The answer after the patch comes slowly: the turn's end (when the plugin runs :checktime
		// too) is far from the patch, so only the reload at the patch's completion is quick.
		env.Model.Enqueue(fakemodel.Patch(fakemodel.UpdateFilePatch("notes.txt", prev, next)), fakemodel.Message("Done.").WithPace(100*time.Millisecond))
		prev = next
	}
	file := filepath.Join(env.Work, "notes.txt")
	if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(env.Work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	pluginDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	settingsJSON, err := json.Marshal(env.HermesSettings(filepath.Join(tmp, "state")))
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(tmp, "hermes-lsp.log")
	summaryFile := filepath.Join(tmp, "summary.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := nvimScript(ctx, nvim, pluginDir, "changes.lua", env.Work, filepath.Join(tmp, "home"),
		"HERMES_NVIM_SERVER="+testbin.HermesLSP(t),
		"HERMES_NVIM_SERVER_LOG="+logFile,
		"HERMES_NVIM_SETTINGS="+string(settingsJSON),
		"HERMES_NVIM_FILE="+file,
		"HERMES_NVIM_RUNS="+strconv.Itoa(changesRuns),
		"HERMES_NVIM_SUMMARY="+summaryFile,
	)
	stdout, stderr, runErr := proctest.RunGroup(t, "nvim", cmd)
	t.Cleanup(func() { proctest.EndCodex(t, env.CodexHome) })
	defer func() {
		if t.Failed() {
			t.Logf("nvim stderr:\n%s\nnvim stdout:\n%s", stderr.String(), stdout.String())
			if b, err := os.ReadFile(logFile); err == nil {
				t.Logf("server log:\n%s", b)
			}
		}
	}()
	var sum changesSummary
	readSummary(t, summaryFile, "changes.lua", runErr, &sum)

	const hint = 4 // vim.diagnostic.severity.HINT
	if len(sum.Diagnostics) != 2 || sum.Diagnostics[0].Lnum != 1 || sum.Diagnostics[1].Lnum != 4 {
		t.Errorf("the changes' diagnostics: %+v, want lines 1 and 4", sum.Diagnostics)
	}
	for _, d := range sum.Diagnostics {
		if d.Message != "Hermes changed this (+1 −1): keep or revert" || d.Severity != hint {
			t.Errorf("a change's diagnostic: %+v", d)
		}
	}
	if sum.NextDiagnosticLine != 2 {
		t.Errorf("]d from the top went to line %d, want 2", sum.NextDiagnosticLine)
	}
	if len(sum.Quickfix) != 2 || sum.Quickfix[0].Lnum != 2 || sum.Quickfix[1].Lnum != 5 || sum.Quickfix[0].File != file ||
		sum.Quickfix[0].Text != "Hermes changed this (+1 −1): keep or revert" || sum.QuickfixTitle != "Hermes: changes under review" {
		t.Errorf(":Hermes changes' quickfix list %q: %+v", sum.QuickfixTitle, sum.Quickfix)
	}
	if !slices.Contains(sum.Preview, "-Second line.") || !slices.Contains(sum.Preview, "+Second line, patched.") || sum.PreviewFiletype != "diff" {
		t.Errorf(":Hermes preview (%s): %q", sum.PreviewFiletype, sum.Preview)
	}
	for _, want := range []string{"Hermes: keep this change", "Hermes: revert this change", "Hermes: revert all changes in this file"} {
		if !slices.Contains(sum.CodeActions, want) {
			t.Errorf("the code actions on a change lack %q: %q", want, sum.CodeActions)
		}
	}
	afterRevert := strings.Replace(before, "Second line.", "Second line, patched.", 1)
	if sum.AfterRevert+"\n" != afterRevert || sum.AfterKeep+"\n" != afterRevert {
		t.Errorf("the buffer after the revert %q, after the keep %q, want %q", sum.AfterRevert, sum.AfterKeep, afterRevert)
	}
	// The revert reached the disk (the plugin saved it) before the timed patches; the model heard
	// of it in the next turn.
	reqs := env.Model.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d model requests, want the patch turn's two and the next turn's", len(reqs))
	}
	if body := string(reqs[2].Body); !strings.Contains(body, "notes.txt") || !strings.Contains(body, "Fifth line, patched.") {
		t.Errorf("the turn after the revert did not tell the model of it: %.2000s", body)
	}

	ms := slices.Clone(sum.DiskToBufferMs)
	if len(ms) != changesRuns {
		t.Fatalf("timed patches: %v", ms)
	}
	slices.Sort(ms)
	median := ms[len(ms)/2]
	t.Logf("Neovim %s: patch on disk → buffer: the two-hunk patch %d ms; over %d patches median %d ms (min %d, max %d)",
		sum.NvimVersion, sum.PatchDiskToBufferMs, len(ms), median, ms[0], ms[len(ms)-1])
	if median > 100 {
		t.Errorf("patch on disk → buffer: median %d ms over %v, want at most 100", median, sum.DiskToBufferMs)
	}
	// :Hermes revert put back the line the last timed patch replaced, in the buffer and on disk.
	beforeLast := fmt.Sprintf("Latency run %d.", changesRuns-1)
	if sum.CommandRevert != beforeLast {
		t.Errorf(":Hermes revert left line 1 %q, want %q", sum.CommandRevert, beforeLast)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(b), beforeLast+"\n") {
		t.Errorf("notes.txt after :Hermes revert: %q (%v), want it to start with %q", b, err, beforeLast)
	}
	if !sum.ServerStopped {
		t.Error("the server did not stop")
	}
}
