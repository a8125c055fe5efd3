// Package neovim_test runs the Neovim plugin (editors/neovim) in a real headless Neovim against the
// built hermes-lsp, the real pinned codex and the fake model.
package neovim_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/stdiobridge"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(bridgeEnv); addr != "" {
		os.Exit(stdiobridge.Bridge(addr)) // started by Neovim as its language server (TestNeovimQuestionsFromServer)
	}
	os.Exit(testbin.Main(m))
}

func (s *summary) outcome() (string, *string) { return s.NvimVersion, s.Error }

// nvimScript is headless nvim running the plugin's test/<script> in work, with the plugin in front
// of the runtimepath, a home of its own (XDG folders included), no API key, and env added. Neovim
// and the server it starts share a process group: when ctx ends the whole group is killed.
func nvimScript(ctx context.Context, nvim, plugin, script, work, home string, env ...string) *exec.Cmd {
	cmd := proctest.GroupCommand(ctx, nvim, "--headless", "--clean", "-i", "NONE", "-n",
		"--cmd", "set rtp^="+plugin,
		"-c", "luafile "+filepath.Join(plugin, "test", script))
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"OPENAI_API_KEY=", "CODEX_API_KEY=")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// luaSummary is the JSON summary a test script writes: the Neovim it ran in, and its error if it
// failed.
type luaSummary interface {
	outcome() (nvimVersion string, err *string)
}

// readSummary reads the summary script wrote to file into sum, failing t when the script or nvim
// (runErr) failed.
func readSummary(t *testing.T, file, script string, runErr error, sum luaSummary) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%s wrote no summary (%v); nvim: %v", script, err, runErr)
	}
	if err := json.Unmarshal(raw, sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, raw)
	}
	if version, failure := sum.outcome(); failure != nil {
		t.Fatalf("%s (Neovim %s) failed: %s", script, version, *failure)
	}
	if runErr != nil {
		t.Fatalf("nvim: %v", runErr)
	}
}

// summary is what test/e2e.lua writes.
type summary struct {
	NvimVersion string `json:"nvimVersion"`
	ServerPID   int    `json:"serverPid"`
	RootDir     string `json:"rootDir"`
	Selects     []struct {
		Prompt   string   `json:"prompt"`
		Kind     string   `json:"kind"`
		Items    []string `json:"items"`
		Answered *string  `json:"answered"`
		Mode     string   `json:"mode"`
	} `json:"selects"`
	Notifications []struct {
		Message string `json:"message"`
		Level   any    `json:"level"`
		// Fits: one line no wider than the command line (no hit-enter prompt).
		Fits bool `json:"fits"`
	} `json:"notifications"`
	DiffShown      bool     `json:"diffShown"`
	DiffClosed     bool     `json:"diffClosed"`
	HintLabel      string   `json:"hintLabel"`
	HintScreenLine string   `json:"hintScreenLine"`
	Statuslines    []string `json:"statuslines"`
	TurnEventKinds []string `json:"turnEventKinds"`
	TurnResults    []struct {
		Status    string `json:"status"`
		FinalText string `json:"finalText"`
		ThreadID  string `json:"threadId"`
	} `json:"turnResults"`
	AnswerBuffer      string `json:"answerBuffer"`
	DiffText          string `json:"diffText"`
	StatusMessage     string `json:"statusMessage"`
	TranscriptWindow  string `json:"transcriptWindow"`
	TranscriptFocused bool   `json:"transcriptFocused"`
	TranscriptText    string `json:"transcriptText"`
	ServerStopped     bool   `json:"serverStopped"`
	// The patch turn and :HermesUndo.
	PatchToBufferMs    int    `json:"patchToBufferMs"`
	PatchedModified    bool   `json:"patchedModified"`
	DirtyLine          string `json:"dirtyLine"`
	DirtyModified      bool   `json:"dirtyModified"`
	UndoSkipped        string `json:"undoSkipped"`
	UndoneText         string `json:"undoneText"`
	DirtyLineAfterUndo string `json:"dirtyLineAfterUndo"`
	// K and the Hermes buffer's input area.
	HoverText           string `json:"hoverText"`
	HermesBufferFocused bool   `json:"hermesBufferFocused"`
	InputAreaAfter      string `json:"inputAreaAfter"`
	HermesBufferText    string `json:"hermesBufferText"`
	ReviewDiagnostic    *struct {
		Message  string `json:"message"`
		Lnum     int    `json:"lnum"`
		Severity int    `json:"severity"`
		Code     any    `json:"code"`
	} `json:"reviewDiagnostic"`
	Error      *string `json:"error"`
	DurationMs int     `json:"durationMs"`
}

// TestNeovimApprovalGatedTurn runs hermes.nvim in Neovim (Debian's 0.7.2 in CI) headless, through
// the plugin's own setup and commands: :'<,'>HermesAsk with a visual selection; a command approval
// answered "Allow once" in the vim.ui.select picker; a patch approval whose picker shows the diff and
// is then dismissed, answered with :HermesApprove once; the answer streamed into the Hermes buffer;
// :HermesStatus; :HermesTranscript (the plugin's window/showDocument); a second turn that patches
// a file open in a clean buffer (it shows the new text, unmodified) and one in a modified buffer
// (the user's text stays), then :HermesUndo; a third turn stopped with :HermesStop; the server
// stopped with Neovim's client.
// It runs on the nvim of PATH and, as the subtest nvim-0.11+, on a newer Neovim (see neovims);
// beside it, on each, the plugin's other features (testFeatures, test/features.lua).
func TestNeovimApprovalGatedTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and runs Neovim and the real codex; skipped with -short")
	}
	t.Parallel()
	for _, n := range neovims(t) {
		t.Run(n.name, func(t *testing.T) {
			t.Parallel()
			testApprovalGatedTurn(t, n.path)
		})
		t.Run("features/"+n.name, func(t *testing.T) {
			t.Parallel()
			testFeatures(t, n.path, n.name == "nvim-0.11+")
		})
	}
}

func testApprovalGatedTurn(t *testing.T, nvim string) {
	pluginDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}

	env := codextest.NewReal(t)
	env.Model.Enqueue(
		fakemodel.Exec("echo from-neovim > nvim_made.txt"),
		fakemodel.Patch(fakemodel.AddFilePatch("nvim_patch.txt", "patched in neovim\n")),
		fakemodel.Message("Done in Neovim."),
		fakemodel.Patch(fakemodel.UpdateFilePatch("notes.txt", "Third line.", "Third line, patched by the agent.")),
		fakemodel.Patch(fakemodel.UpdateFilePatch("dirty.txt", "Dirty line.", "The agent's line.")),
		fakemodel.Message("Patched both."),
		fakemodel.Message("Answered from the input area."),
		fakemodel.Review("The notes need work.", fakemodel.ReviewFinding{
			Title: "[P1] Third line is vague", Body: "Say what the third line is for.", Priority: 1,
			Path: filepath.Join(env.Work, "notes.txt"), Start: 3, End: 3,
		}),
		fakemodel.Hang(),
	)

	tmp := t.TempDir()
	bin := testbin.HermesLSP(t)

	// The workspace is a git root (the plugin's root detection), with a file to select from.
	// A git repository: the plugin's root detection, and the review's uncommitted changes.
	if out, err := exec.Command("git", "init", "-q", env.Work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	file := filepath.Join(env.Work, "notes.txt")
	if err := os.WriteFile(file, []byte("First line of the notes.\nSecond line, selected too.\nThird line.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// dirty.txt gets unsaved edits in its buffer before the agent patches it.
	dirty := filepath.Join(env.Work, "dirty.txt")
	if err := os.WriteFile(dirty, []byte("Dirty line.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(tmp, "state")
	settingsJSON, err := json.Marshal(env.HermesSettings(stateDir))
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(tmp, "hermes-lsp.log")
	summaryFile := filepath.Join(tmp, "summary.json")
	// The fourth turn's model request (the ninth, after the review's) hangs: e2e.lua stops the turn once this file exists.
	// An interrupt sent before codex made that request is lost (codex accepts it, the turn goes on).
	hangSignal := filepath.Join(tmp, "model-hanging")

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	go func() {
		if env.Model.WaitRequests(ctx, 9) == nil {
			_ = os.WriteFile(hangSignal, nil, 0o644)
		}
	}()
	cmd := nvimScript(ctx, nvim, pluginDir, "e2e.lua", env.Work, filepath.Join(tmp, "editor-home"),
		"HERMES_NVIM_SERVER="+bin,
		"HERMES_NVIM_SERVER_LOG="+logFile,
		"HERMES_NVIM_SETTINGS="+string(settingsJSON),
		"HERMES_NVIM_FILE="+file,
		"HERMES_NVIM_DIRTY_FILE="+dirty,
		"HERMES_NVIM_PROMPT=Make nvim_made.txt with a command, then nvim_patch.txt with a patch.",
		"HERMES_NVIM_SUMMARY="+summaryFile,
		"HERMES_NVIM_HANG_SIGNAL="+hangSignal,
	)
	stdout, stderr, runErr := proctest.RunGroup(t, "nvim", cmd)
	t.Cleanup(func() { proctest.EndCodex(t, env.CodexHome) })

	defer func() {
		if !t.Failed() {
			return
		}
		t.Logf("nvim stderr:\n%s", stderr.String())
		t.Logf("nvim stdout:\n%s", stdout.String())
		if b, err := os.ReadFile(logFile); err == nil {
			t.Logf("server log (%s):\n%s", logFile, b)
		}
		for i, l := range env.Model.Log() {
			t.Logf("fake model %d: %s", i, l)
		}
	}()

	var sum summary
	readSummary(t, summaryFile, "e2e.lua", runErr, &sum)
	t.Logf("Neovim %s: session %d ms; %d picker prompts, %d notifications, turn events %v",
		sum.NvimVersion, sum.DurationMs, len(sum.Selects), len(sum.Notifications), sum.TurnEventKinds)

	t.Logf("the Hermes buffer:\n%s", sum.AnswerBuffer)
	t.Logf("statusline values: %q", sum.Statuslines)
	if sum.RootDir != env.Work {
		t.Errorf("root dir %q, want the git root %q", sum.RootDir, env.Work)
	}

	// The picker: the command (Allow once), the patch twice (Show diff, then dismissed).
	var prompts []string
	for _, s := range sum.Selects {
		prompts = append(prompts, s.Prompt)
		if s.Kind != "hermes.approval" {
			t.Errorf("picker kind %q for %q", s.Kind, s.Prompt)
		}
		if !slices.Contains(s.Items, "Allow once") || !slices.Contains(s.Items, "Stop turn") {
			t.Errorf("picker items %v", s.Items)
		}
		// Deny first: the picker highlights it, and an accidental <CR> must never grant.
		if len(s.Items) == 0 || s.Items[0] != "Deny" {
			t.Errorf("first picker item %v, want Deny", s.Items)
		}
	}
	if len(sum.Selects) != 5 {
		t.Fatalf("picker prompts: got %d, want 5: %q", len(sum.Selects), prompts)
	}
	if s := sum.Selects[0]; !strings.Contains(s.Prompt, "echo from-neovim > nvim_made.txt") || s.Answered == nil || *s.Answered != "Allow once" {
		t.Errorf("first picker: %q answered %v", s.Prompt, s.Answered)
	}
	for i, want := range []string{"Show diff", ""} {
		s := sum.Selects[1+i]
		if !strings.Contains(s.Prompt, "nvim_patch.txt") || !slices.Contains(s.Items, "Show diff") {
			t.Errorf("patch picker %d: %q %v", i, s.Prompt, s.Items)
		}
		if got := ""; s.Answered != nil {
			got = *s.Answered
			if got != want {
				t.Errorf("patch picker %d answered %q, want %q", i, got, want)
			}
		} else if want != "" {
			t.Errorf("patch picker %d not answered, want %q", i, want)
		}
	}
	if !sum.DiffShown || !strings.Contains(sum.DiffText, "nvim_patch.txt") || !strings.Contains(sum.DiffText, "patched in neovim") {
		t.Errorf("Show diff buffer (shown %v): %q", sum.DiffShown, sum.DiffText)
	}
	if !sum.DiffClosed {
		t.Errorf("the diff stayed open after the decision")
	}
	// 0.10+: the inlay hint of the line asked from, on screen once the turn ended.
	if strings.HasPrefix(sum.NvimVersion, "0.7") {
		if sum.HintLabel != "" {
			t.Errorf("inlay hints on Neovim %s: %q", sum.NvimVersion, sum.HintLabel)
		}
	} else if !strings.Contains(sum.HintScreenLine, sum.HintLabel) || !strings.Contains(sum.HintLabel, "✓ done") ||
		strings.ContainsAny(sum.HintScreenLine, "⋯⏸") {
		t.Errorf("the hint %q of the ended turn is not what the screen shows: %q", sum.HintLabel, sum.HintScreenLine)
	}

	// The answer streamed into the Hermes buffer, with the tool calls and the approvals.
	for _, want := range []string{"## You", "Make nvim_made.txt", "Second line, selected too.", "`exec_command`", "approval", ": once (user)", "Done in Neovim.", "completed"} {
		if !strings.Contains(sum.AnswerBuffer, want) {
			t.Errorf("the Hermes buffer lacks %q:\n%s", want, sum.AnswerBuffer)
		}
	}
	if strings.Contains(sum.AnswerBuffer, "Third line.") {
		t.Errorf("the prompt holds more than the selection:\n%s", sum.AnswerBuffer)
	}
	for _, kind := range []string{"turnStarted", "toolStarted", "toolCompleted", "approvalWaiting", "approvalResolved", "answerDelta", "turnCompleted"} {
		if !slices.Contains(sum.TurnEventKinds, kind) {
			t.Errorf("no %s among the turn events %v", kind, sum.TurnEventKinds)
		}
	}
	if len(sum.TurnResults) != 5 || sum.TurnResults[0].Status != "completed" || sum.TurnResults[0].FinalText != "Done in Neovim." ||
		sum.TurnResults[1].FinalText != "Patched both." || sum.TurnResults[2].FinalText != "Answered from the input area." ||
		sum.TurnResults[3].Status != "completed" {
		t.Errorf("turn results: %+v", sum.TurnResults)
	} else if sum.TurnResults[4].Status == "completed" {
		t.Errorf("the turn stopped with :HermesStop ended %q", sum.TurnResults[4].Status)
	} else if sum.TurnResults[2].ThreadID != sum.TurnResults[0].ThreadID {
		t.Errorf("the input area's turn ran on thread %s, want the folder's %s", sum.TurnResults[2].ThreadID, sum.TurnResults[0].ThreadID)
	}
	if !strings.Contains(sum.HoverText, "Done in Neovim.") || !strings.Contains(sum.HoverText, "done") {
		t.Errorf("K on the first turn's line showed:\n%s", sum.HoverText)
	}
	if d := sum.ReviewDiagnostic; d == nil || d.Lnum != 2 || d.Severity != 1 || d.Code != "P1" || !strings.HasPrefix(d.Message, "Third line is vague\n\nSay what") {
		t.Errorf(":HermesReview's finding in vim.diagnostic: %+v", sum.ReviewDiagnostic)
	}
	if !sum.HermesBufferFocused || sum.InputAreaAfter != "" || !strings.Contains(sum.HermesBufferText, "INPUT-AREA-MARKER") ||
		!strings.Contains(sum.HermesBufferText, "Answered from the input area.") {
		t.Errorf("the input area: focused %v, left %q, buffer:\n%s", sum.HermesBufferFocused, sum.InputAreaAfter, sum.HermesBufferText)
	}
	checkBuffersFollowTheDisk(t, sum, file, dirty)

	// Progress: the statusline followed the turn; vim.notify at its start and end.
	// The command shows in the statusline, as the tool step or its approval: progress is coalesced to
	// about ten reports a second, so which of the two lines survives depends on timing.
	if !slices.ContainsFunc(sum.Statuslines, func(s string) bool { return strings.Contains(s, "echo from-neovim > nvim_made.txt") }) ||
		!slices.ContainsFunc(sum.Statuslines, func(s string) bool { return strings.Contains(s, "waiting for approval") }) {
		t.Errorf("statusline values: %q", sum.Statuslines)
	}
	var notes []string
	for _, n := range sum.Notifications {
		notes = append(notes, n.Message)
	}
	t.Logf("notifications: %q", notes)
	if !slices.ContainsFunc(notes, func(s string) bool { return strings.HasPrefix(s, "Hermes: completed") }) ||
		!slices.ContainsFunc(notes, func(s string) bool { return strings.HasPrefix(s, "Hermes: Make nvim_made.txt") }) {
		t.Errorf("progress notifications: %q", notes)
	}
	if !slices.ContainsFunc(notes, func(s string) bool { return strings.Contains(s, "still waiting") }) {
		t.Errorf("no notification that the dismissed approval still waits: %q", notes)
	}
	if slices.ContainsFunc(notes, func(s string) bool { return strings.Contains(s, "hermes.approve") }) {
		t.Errorf("the server's fallback instructions reached the user: %q", notes)
	}
	if !slices.ContainsFunc(notes, func(s string) bool { return strings.Contains(s, "Done in Neovim.") }) {
		t.Errorf("the final answer was not notified: %q", notes)
	}
	// No hit-enter prompt on the main path: every notification but :HermesStatus's (asked for, whole)
	// and errors is one line that fits the command line.
	for _, n := range sum.Notifications {
		if !n.Fits && n.Message != sum.StatusMessage && n.Level != float64(4) {
			t.Errorf("a notification would stop at the hit-enter prompt: %q", n.Message)
		}
	}

	// The thread by its title (its first prompt), never by its id.
	if !strings.Contains(sum.StatusMessage, env.Work) || !strings.Contains(sum.StatusMessage, `thread "Make nvim_made.txt with a command`) ||
		len(sum.TurnResults) == 0 || sum.TurnResults[0].ThreadID == "" || strings.Contains(sum.StatusMessage, sum.TurnResults[0].ThreadID) {
		t.Errorf(":HermesStatus said %q", sum.StatusMessage)
	}
	if !strings.HasPrefix(sum.TranscriptWindow, filepath.Join(stateDir, "transcripts")+"/") || !sum.TranscriptFocused ||
		!strings.Contains(sum.TranscriptText, "Done in Neovim.") {
		t.Errorf(":HermesTranscript opened %q (focused %v)", sum.TranscriptWindow, sum.TranscriptFocused)
	}

	// What codex wrote in the folder.
	for name, want := range map[string]string{"nvim_made.txt": "from-neovim\n", "nvim_patch.txt": "patched in neovim\n"} {
		got, err := os.ReadFile(filepath.Join(env.Work, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	// The server exited when the plugin stopped it.
	if !sum.ServerStopped || sum.ServerPID <= 0 {
		t.Errorf("server stopped %v, pid %d", sum.ServerStopped, sum.ServerPID)
	} else if proctest.Exists(sum.ServerPID) {
		t.Errorf("server pid %d still exists", sum.ServerPID)
	}
}

// checkBuffersFollowTheDisk checks the patch turn: the clean buffer of file showed the agent's patch
// without being modified, the modified buffer of dirty kept the user's text (and its approval said
// so), and :HermesUndo restored file on disk and in its buffer, leaving dirty as it was.
func checkBuffersFollowTheDisk(t *testing.T, sum summary, file, dirty string) {
	t.Helper()
	t.Logf("patch → buffer: notes.txt's buffer showed the patch %d ms after the approval", sum.PatchToBufferMs)
	if sum.PatchedModified {
		t.Errorf("the reloaded buffer of %s is modified", file)
	}
	notesPrompt, dirtyPrompt := sum.Selects[3].Prompt, sum.Selects[4].Prompt
	if !strings.Contains(notesPrompt, "notes.txt") || strings.Contains(notesPrompt, "unsaved changes") {
		t.Errorf("the patch approval of the clean buffer: %q", notesPrompt)
	}
	if !strings.Contains(dirtyPrompt, "dirty.txt has unsaved changes in your editor: applying this patch will conflict with them") {
		t.Errorf("the patch approval of the modified buffer does not warn: %q", dirtyPrompt)
	}
	if sum.DirtyLine != "The user's unsaved line." || !sum.DirtyModified {
		t.Errorf("the modified buffer lost the user's text: %q (modified %v)", sum.DirtyLine, sum.DirtyModified)
	}
	if got, _ := os.ReadFile(dirty); string(got) != "The agent's line.\n" {
		t.Errorf("dirty.txt on disk: %q, want the agent's patch", got)
	}

	const original = "First line of the notes.\nSecond line, selected too.\nThird line.\n"
	if sum.UndoneText+"\n" != original {
		t.Errorf("notes.txt's buffer after :HermesUndo: %q", sum.UndoneText)
	}
	if got, _ := os.ReadFile(file); string(got) != original {
		t.Errorf("notes.txt on disk after :HermesUndo: %q, want %q", got, original)
	}
	if !strings.Contains(sum.UndoSkipped, "dirty.txt left as it is: unsaved changes in your editor") || sum.DirtyLineAfterUndo != "The user's unsaved line." {
		t.Errorf(":HermesUndo and the modified buffer: %q, buffer %q", sum.UndoSkipped, sum.DirtyLineAfterUndo)
	}
}
