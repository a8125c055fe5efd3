// Package vscode_test is the real-editor test of the VS Code extension: code-server 4.139.1 in
// headless Debian chromium (puppeteer-core), the packaged extension, the built hermes-lsp and the real
// pinned codex against the fake model. It runs only with HERMES_E2E_VSCODE=1 (`make e2e-vscode` sets
// it after installing what it needs), so `make test` stays quick.
package vscode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemcp"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

// The fake model's script (e2e/fakemodel/main.go serves the same one for trying it by hand): a
// command, then a patch of hello.txt, which is open in the editor during the turn.
const (
	execCommand = "echo from-vscode > vscode_made.txt"
	finalAnswer = "Done in VS Code."
	lineOld     = "This line is old."
	lineNew     = "This line was patched in VS Code."
	helloBefore = "Hello from the workspace.\n" + lineOld + "\nEnd.\n"
	prompt      = "Make vscode_made.txt with a command, then patch hello.txt."
)

// escapedCommand is the chat's command on a new thread, whose approval dialog Escape answers: it
// must never run.
const escapedCommand = "touch escaped.txt"

// chatCodeAnswer is the chat's first answer: longer than the view, with a Go block (highlighted,
// copied with its button), a table and a task list.
var chatCodeAnswer = func() string {
	var b strings.Builder
	b.WriteString("Here is the code.\n\n```go\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n")
	for i := range 20 {
		fmt.Fprintf(&b, "\tfmt.Println(\"line %d\") // a comment long enough to need the horizontal scroll bar of the code block, %d\n", i, i)
	}
	b.WriteString("}\n```\n\n| step | state |\n|---|---|\n| build | ok |\n| test | ok |\n\n- [x] written\n- [ ] reviewed\n\n")
	for i := range 12 {
		fmt.Fprintf(&b, "Paragraph %d of the explanation.\n\n", i)
	}
	return b.String()
}()

// helloPatch is the model's patch of hello.txt.
var helloPatch = fakemodel.UpdateFilePatch("hello.txt", lineOld, lineNew)

func TestMain(m *testing.M) {
	fakemcp.Main() // started by codex as the MCP server that asks questions (env.EnableQuestions)
	os.Exit(testbin.Main(m))
}

// driveSummary is the JSON line e2e/drive.mjs prints.
type driveSummary struct {
	Steps []struct {
		Name string `json:"name"`
		AtMs int    `json:"atMs"`
	} `json:"steps"`
	Screenshots   []string `json:"screenshots"`
	StatusBar     []string `json:"statusBar"`
	ProgressTexts []string `json:"progressTexts"`
	Dialogs       []string `json:"dialogs"`
	DiffEditor    *struct {
		Tab  string `json:"tab"`
		Text string `json:"text"`
	} `json:"diffEditor"`
	PatchButtons    []string `json:"patchButtons"`
	ActiveAtStartup bool     `json:"activeAtStartup"`
	DialogButtons   []string `json:"dialogButtons"`
	FocusedButton   string   `json:"focusedButton"`
	AnswerSurfaces  *struct {
		AnswerToasts       []string `json:"answerToasts"`
		Tabs               []string `json:"tabs"`
		PanelVisible       bool     `json:"panelVisible"`
		ChatTranscriptLink bool     `json:"chatTranscriptLink"`
	} `json:"answerSurfaces"`
	ApprovalQuickPick []string `json:"approvalQuickPick"`
	Review            *struct {
		OpenDuring      bool    `json:"openDuring"`
		TabDuring       *string `json:"tabDuring"`
		OpenAfter       bool    `json:"openAfter"`
		TabAfter        *string `json:"tabAfter"`
		StatusItemAfter bool    `json:"statusItemAfter"`
	} `json:"review"`
	PatchToEditorMs *int `json:"patchToEditorMs"`
	Undo            *struct {
		EditorMs   int    `json:"editorMs"`
		Toast      string `json:"toast"`
		Dirty      bool   `json:"dirty"`
		ChatMarked bool   `json:"chatMarked"`
	} `json:"undo"`
	Chat *struct {
		InputFocused bool `json:"inputFocused"`
		Highlight    struct {
			Keywords  []string `json:"keywords"`
			Strings   int      `json:"strings"`
			TabSize   string   `json:"tabSize"`
			OverflowX string   `json:"overflowX"`
			Table     bool     `json:"table"`
			Tasks     int      `json:"tasks"`
		} `json:"highlight"`
		Copied        string      `json:"copied"`
		BeforeSend    logPosition `json:"beforeSend"`
		AfterSend     logPosition `json:"afterSend"`
		JumpShown     bool        `json:"jumpShown"`
		AfterJump     logPosition `json:"afterJump"`
		DiffStillOpen bool        `json:"diffStillOpen"`
		Empty         string      `json:"empty"`
		Escaped       string      `json:"escaped"`
		Picker        []string    `json:"picker"`
		First         string      `json:"first"`
		Second        string      `json:"second"`
		Header1       string      `json:"header1"`
		Header2       string      `json:"header2"`
		Header3       string      `json:"header3"`
		Restored      string      `json:"restored"`
		RestoredHasQ3 bool        `json:"restoredHasQ3"`
		RestoredEnds  []string    `json:"restoredEnds"`
		HasUndone     bool        `json:"restoredHasUndone"`
	} `json:"chat"`
	Problems *struct {
		Text string `json:"text"`
		Ms   int    `json:"ms"`
	} `json:"problems"`
	Questions     *questionsSummary `json:"questions"`
	StatusQuick   string            `json:"statusQuickPick"`
	ConsoleErrors []string          `json:"consoleErrors"`
	FailureDOM    json.RawMessage   `json:"failureDom"`
	Error         *string           `json:"error"`
	DurationMs    int               `json:"durationMs"`
}

// logPosition is where the chat's conversation was scrolled (e2e/drive.mjs's logPosition).
type logPosition struct {
	AtEnd     bool `json:"atEnd"`
	Overflows bool `json:"overflows"`
	Jump      bool `json:"jump"`
}

func TestVSCodeExtensionInCodeServer(t *testing.T) {
	if os.Getenv("HERMES_E2E_VSCODE") != "1" {
		t.Skip("the VS Code e2e runs with HERMES_E2E_VSCODE=1: `make e2e-vscode`")
	}
	begin := time.Now()
	extDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(extDir))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found two levels above the test: %v", err)
	}

	// What the test runs: the tools (setup.sh: quick when installed), the .vsix, hermes-lsp.
	tools := setup(t, extDir)
	vsix := filepath.Join(extDir, "hermes-lsp-0.1.0.vsix")
	if v := os.Getenv("HERMES_VSCODE_VSIX"); v != "" {
		vsix = v
	}
	if _, err := os.Stat(vsix); err != nil {
		t.Fatalf("the extension package is missing (`make e2e-vscode` runs `npm run package` first): %v", err)
	}
	// A platform package from `make dist` carries its own server: the extension must run that one,
	// with no hermes.serverPath (its log then names the version dist built it as, not "dev").
	bundled := strings.Contains(filepath.Base(vsix), "-linux-x64-")
	env := codextest.NewReal(t)
	env.EnableQuestions(t)
	env.Model.Enqueue(
		fakemodel.Exec(execCommand),
		fakemodel.Patch(helloPatch),
		fakemodel.Message(finalAnswer),
		// "Hermes: Review Changes" at the end: one finding on hello.txt.
		fakemodel.Review("One nit.", fakemodel.ReviewFinding{
			Title: "[P1] Hello is too short", Body: "Say who the greeting is from.", Priority: 1,
			Path: filepath.Join(env.Work, "hello.txt"), Start: 1, End: 1,
		}),
		// The chat view: a long answer with code, a table and a task list; then one on the same thread
		// that streams slowly enough to be seen growing (and scrolled away from); then, on a new
		// thread, a command whose approval is answered with Escape.
		fakemodel.Message(chatCodeAnswer),
		fakemodel.MessageChunks("Streaming ", "an ", "answer ", "in ", "pieces, ", "to ", "the end.").WithPace(400*time.Millisecond),
		fakemodel.Exec(escapedCommand),
	)
	env.Model.Enqueue(questionReplies...)
	tmp := t.TempDir()
	bin := testbin.HermesLSP(t)

	// The workspace: hello.txt and the repository's settings. The user's settings (below) point the
	// extension at hermes-lsp and codex, with the codex home whose config.toml names the fake model
	// (codextest.NewReal writes it; no codex.args).
	ws := env.Work
	writeFile(t, filepath.Join(ws, "hello.txt"), helloBefore)
	serverLog := filepath.Join(tmp, "hermes-lsp.log")
	// The repository's own settings try to turn approvals off and swap the binaries: trusted settings
	// have machine/application scope, so VS Code ignores them here and the dialogs below must still
	// come. The real ones are the user's (below).
	writeJSON(t, filepath.Join(ws, ".vscode", "settings.json"), map[string]any{
		"hermes.yolo":           true,
		"hermes.approvals.mode": "off",
		"hermes.codex.path":     "/nonexistent/planted-codex",
		"files.exclude":         map[string]bool{"**/.vscode": true},
		"hermes.prewarm":        false,
		// No hermes.openTranscript: by default the transcript must not open (the chat shows the answer).
		"editor.minimap.enabled": false,
	})
	// A git repository with all that committed: the review at the end looks at what the turn left
	// uncommitted (the command's vscode_made.txt).
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "base"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}

	// The editor's own folders and a throwaway HOME.
	home := filepath.Join(tmp, "editor-home")
	userData := filepath.Join(tmp, "user-data")
	exts := filepath.Join(tmp, "extensions")
	userSettings := map[string]any{
		"workbench.startupEditor":                          "none",
		"workbench.tips.enabled":                           false,
		"workbench.secondarySideBar.defaultVisibility":     "hidden",
		"workbench.welcomePage.walkthroughs.openOnInstall": false,
		"telemetry.telemetryLevel":                         "off",
		"security.workspace.trust.enabled":                 false,
		"extensions.autoCheckUpdates":                      false,
		"extensions.autoUpdate":                            false,
		"extensions.ignoreRecommendations":                 true,
		"update.mode":                                      "none",
		"chat.disableAIFeatures":                           true,
		"window.commandCenter":                             false,
		// As in desktop VS Code (the web build saves after a delay): an edit stays unsaved until saved.
		"files.autoSave": "off",
		// Trusted settings (machine/application scope) live in the user's settings.
		"hermes.serverPath": bin,
		"hermes.serverArgs": []string{"--log-file", serverLog, "--log-level", "debug"},
	}
	if bundled {
		delete(userSettings, "hermes.serverPath")
	}
	// The real codex's settings, as VS Code spells them: hermes.codex.path, hermes.stateDir, ...
	for k, v := range env.HermesSettings(filepath.Join(tmp, "state")) {
		if sub, ok := v.(map[string]any); ok {
			for sk, sv := range sub {
				userSettings["hermes."+k+"."+sk] = sv
			}
		} else {
			userSettings["hermes."+k] = v
		}
	}
	writeJSON(t, filepath.Join(userData, "User", "settings.json"), userSettings)
	// code-server's window is a remote one: VS Code reads machine-scoped settings there only from the
	// remote's own user settings (Machine/settings.json), never from User/settings.json.
	writeJSON(t, filepath.Join(userData, "Machine", "settings.json"), userSettings)
	editorEnv := append(os.Environ(),
		"PATH="+filepath.Dir(tools["NODE24"])+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"OPENAI_API_KEY=", "CODEX_API_KEY=",
		// No extension gallery: code-server would look up open-vsx.org.
		"EXTENSIONS_GALLERY={}",
	)

	// Install the .vsix as a person would.
	t0 := time.Now()
	install := exec.Command(tools["CODE_SERVER"], "--user-data-dir", userData, "--extensions-dir", exts, "--install-extension", vsix)
	install.Env = editorEnv
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("code-server --install-extension: %v\n%s", err, out)
	} else {
		t.Logf("installed %s in %v: %s", filepath.Base(vsix), time.Since(t0).Round(time.Millisecond), strings.TrimSpace(string(out)))
	}

	// code-server in a session of its own, so the whole group (helpers, extension host, hermes-lsp,
	// codex) is ended at the end.
	port := freePort(t)
	csLog := filepath.Join(tmp, "code-server.log")
	logf, err := os.Create(csLog)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cs := exec.Command(tools["CODE_SERVER"],
		"--bind-addr", "127.0.0.1:"+strconv.Itoa(port),
		"--auth", "none", "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
		"--disable-getting-started-override",
		"--user-data-dir", userData, "--extensions-dir", exts, ws)
	cs.Env = editorEnv
	cs.Stdout, cs.Stderr = logf, logf
	proctest.NewSession(cs)
	t0 = time.Now()
	if err := cs.Start(); err != nil {
		t.Fatalf("starting code-server: %v", err)
	}
	csDone := make(chan struct{})
	go func() { _ = cs.Wait(); close(csDone) }()
	defer func() {
		stopGroup(t, cs.Process.Pid, csDone)
		proctest.EndCodex(t, env.CodexHome)
	}()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	waitHealthy(t, base, csDone, csLog)
	t.Logf("code-server up in %v on %s", time.Since(t0).Round(time.Millisecond), base)

	// Drive it.
	shots := filepath.Join(root, "artifacts", "vscode")
	if err := os.RemoveAll(shots); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Minute)
	defer cancel()
	drive := proctest.GroupCommand(ctx, tools["NODE24"], filepath.Join(extDir, "e2e", "drive.mjs"))
	drive.Env = append(editorEnv,
		"E2E_URL="+base,
		"E2E_WORKSPACE="+ws,
		"E2E_SHOTS="+shots,
		"E2E_PROMPT="+prompt,
		"E2E_ANSWER="+finalAnswer,
		"E2E_FILE=hello.txt",
		"E2E_BEFORE="+lineOld,
		"E2E_AFTER="+lineNew,
		"E2E_TOOLS_DIR="+tools["TOOLS_DIR"],
		"E2E_CHROMIUM="+tools["CHROMIUM"],
		"E2E_TIMEOUT_MS=360000",
		"E2E_SECRET="+questionSecret,
		"E2E_QUESTIONS_ANSWER="+questionsAnswer,
	)
	// Chromium's helpers left behind, if any, end with the browser session.
	stdout, stderr, runErr := proctest.RunGroup(t, "browser session", drive)

	if bundled {
		// The bundled server logged its start: not the test's build (version "dev").
		if log, err := os.ReadFile(serverLog); err != nil || !strings.Contains(string(log), "hermes-lsp serving on stdio") || strings.Contains(string(log), "version=dev") {
			t.Errorf("the extension did not run the server bundled in %s (log: %v)\n%s", filepath.Base(vsix), err, log)
		} else {
			t.Logf("the extension ran its bundled server (%s)", filepath.Base(vsix))
		}
	}
	defer func() {
		if !t.Failed() {
			return
		}
		t.Logf("driver stderr:\n%s", stderr.String())
		t.Logf("driver stdout:\n%s", stdout.String())
		logTail(t, "code-server log", csLog)
		logTail(t, "hermes-lsp log", serverLog)
		for _, pattern := range []string{"logs/*/window*/exthost/exthost.log", "logs/*/window*/exthost/output_logging_*/*Hermes*.log", "logs/*/remoteexthost.log"} {
			matches, _ := filepath.Glob(filepath.Join(userData, pattern))
			for _, m := range matches {
				logTail(t, m, m)
			}
		}
		for i, l := range env.Model.Log() {
			t.Logf("fake model %d: %s", i, l)
		}
	}()

	var sum driveSummary
	if err := json.Unmarshal([]byte(lastLine(stdout.String())), &sum); err != nil {
		t.Fatalf("the driver printed no JSON summary (%v); run error: %v", err, runErr)
	}
	for _, s := range sum.Steps {
		t.Logf("  +%5.1fs %s", float64(s.AtMs)/1000, s.Name)
	}
	t.Logf("screenshots: %s", strings.Join(sum.Screenshots, ", "))
	if sum.Error != nil {
		t.Fatalf("driver: %s\nDOM at failure: %s", *sum.Error, sum.FailureDOM)
	}
	if runErr != nil {
		t.Fatalf("driver: %v", runErr)
	}

	// What a person saw.
	if len(sum.ProgressTexts) == 0 || !strings.Contains(sum.ProgressTexts[0], "Hermes") {
		t.Errorf("progress notification: %q", sum.ProgressTexts)
	}
	// The command's approval is a modal dialog, the patch's a notification (Deny first) and a status
	// bar item whose quick pick offers the same actions.
	if len(sum.Dialogs) != 2 || !strings.Contains(sum.Dialogs[0], "vscode_made.txt") || !strings.Contains(sum.Dialogs[1], "hello.txt") {
		t.Errorf("approval dialog and notification: %q", sum.Dialogs)
	}
	if !slices.Equal(sum.PatchButtons, []string{"Deny", "Allow once", "Allow for session"}) {
		t.Errorf("the patch notification's buttons: %q", sum.PatchButtons)
	}
	if len(sum.ApprovalQuickPick) < 4 || sum.ApprovalQuickPick[0] != "Deny" || !slices.Contains(sum.ApprovalQuickPick, "Allow once") || !slices.Contains(sum.ApprovalQuickPick, "Stop turn") {
		t.Errorf("the approval status bar item's quick pick: %q", sum.ApprovalQuickPick)
	}
	// One multi-file diff editor during the decision, closed after it.
	if sum.DiffEditor == nil || !strings.HasPrefix(sum.DiffEditor.Tab, "Hermes: patch") || !strings.Contains(sum.DiffEditor.Text, lineNew) {
		t.Errorf("the patch's diff editor: %+v", sum.DiffEditor)
	}
	if r := sum.Review; r == nil || !r.OpenDuring || r.TabDuring == nil || r.OpenAfter || r.TabAfter != nil || r.StatusItemAfter {
		t.Errorf("the diff editor and the approval's status bar item should be open during the decision only: %+v", r)
	}
	// The open file showed the patch by itself.
	if sum.PatchToEditorMs == nil {
		t.Errorf("the open hello.txt never showed the patch")
	} else {
		t.Logf("patch → editor: %d ms (from the click on Allow once to the open hello.txt showing the patched line)", *sum.PatchToEditorMs)
	}
	// The command's modal: exactly its four buttons, Deny focused (Enter denies).
	if !slices.Equal(sortedCopy(sum.DialogButtons), sortedCopy([]string{"Deny", "Allow once", "Allow for session", "Stop turn"})) || sum.FocusedButton != "Deny" {
		t.Errorf("the command approval dialog's buttons %q, focused %q: want exactly Deny, Allow once, Allow for session, Stop turn, Deny focused", sum.DialogButtons, sum.FocusedButton)
	}
	// Each answer once: in the chat (which links the transcript), not in a toast, no transcript
	// opened, no Output panel revealed.
	if a := sum.AnswerSurfaces; a == nil {
		t.Errorf("no answer surfaces recorded")
	} else {
		if len(a.AnswerToasts) != 0 {
			t.Errorf("the answer also showed as a toast: %q", a.AnswerToasts)
		}
		for _, tab := range a.Tabs {
			if strings.HasSuffix(tab, ".md") {
				t.Errorf("a transcript was opened after the turn: tabs %q", a.Tabs)
			}
		}
		if a.PanelVisible {
			t.Errorf("the panel (Output) was revealed during the turn")
		}
		if !a.ChatTranscriptLink {
			t.Errorf("the chat does not link the transcript")
		}
	}
	if sum.ActiveAtStartup {
		t.Errorf("the extension was active at startup, before any Hermes command or view")
	}
	if n := len(sum.StatusBar); n < 3 || !strings.Contains(sum.StatusBar[0], "Hermes") ||
		!strings.Contains(sum.StatusBar[1], "approval needed") || !strings.Contains(sum.StatusBar[n-1], "Hermes: done") || !strings.Contains(sum.StatusBar[n-1], "tok") {
		t.Errorf("status bar: %q", sum.StatusBar)
	}
	if !strings.Contains(sum.StatusQuick, "auto-approve") {
		t.Errorf("status quick pick: %q", sum.StatusQuick)
	}

	// What codex wrote, and the undo: hello.txt back as it was in the editor (unmodified: saved) and on
	// disk; the command's file stays (commands are not undone).
	if u := sum.Undo; u == nil || u.Dirty || !u.ChatMarked || !strings.Contains(u.Toast, "1 file(s) restored") || strings.Contains(u.Toast, "not yet on disk") {
		t.Errorf("undo: %+v", u)
	} else {
		t.Logf("undo → editor: %d ms (from running Hermes: Undo Last Turn); %s", u.EditorMs, u.Toast)
	}
	for name, want := range map[string]string{"vscode_made.txt": "from-vscode\n", "hello.txt": helloBefore} {
		got, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	// The review's finding in the Problems panel.
	if p := sum.Problems; p == nil || !strings.Contains(p.Text, "Hello is too short") || !strings.Contains(p.Text, "hello.txt") {
		t.Errorf("the Problems panel after Hermes: Review Changes: %+v", sum.Problems)
	} else {
		t.Logf("Hermes: Review Changes → the finding in the Problems panel: %d ms", p.Ms)
	}
	// The chat view.
	c := sum.Chat
	if c == nil {
		t.Fatalf("no chat summary")
	}
	if !c.InputFocused {
		t.Errorf("the chat's input did not have the focus when the view opened")
	}
	// Code blocks highlighted, tab size 4, scrolled sideways; a table and a task list; the copy button
	// copies the code.
	if h := c.Highlight; !slices.Contains(h.Keywords, "func") || h.Strings == 0 || h.TabSize != "4" || h.OverflowX != "auto" || !h.Table || h.Tasks != 2 {
		t.Errorf("the chat's code block, table and task list: %+v", h)
	}
	if !strings.Contains(c.Copied, "func main() {") || !strings.Contains(c.Copied, "\tfmt.Println(\"line 19\")") {
		t.Errorf("the copy button copied %q", c.Copied)
	}
	// Scrolled up, a send scrolls to the newest message; scrolled up during the stream, the jump button
	// shows and brings the view back down.
	if !c.BeforeSend.Overflows || c.BeforeSend.AtEnd || !c.AfterSend.AtEnd || !c.JumpShown || !c.AfterJump.AtEnd || c.AfterJump.Jump {
		t.Errorf("the chat's scrolling: before the send %+v, after it %+v, jump shown %v, after the jump %+v", c.BeforeSend, c.AfterSend, c.JumpShown, c.AfterJump)
	}
	// The diff opened in the chat stayed open (the same element) while the answer streamed.
	if !c.DiffStillOpen {
		t.Errorf("the diff opened in the chat was closed or redrawn by the updates")
	}
	// The answer grew between two snapshots; the thread, named by its title, stayed.
	if !strings.Contains(c.First, "Streaming") || strings.Contains(c.First, "the end.") || !strings.Contains(c.Second, "the end.") || len(c.Second) <= len(c.First) {
		t.Errorf("the chat's streamed answer: first %q, second %q", c.First, c.Second)
	}
	thread := func(h string) string { return strings.Split(h, " · ")[0] }
	if !strings.HasPrefix(c.Header1, "Make vscode_made.txt") || thread(c.Header1) != thread(c.Header2) {
		t.Errorf("the chat's header should name the thread by its title, the same for two questions: %q then %q", c.Header1, c.Header2)
	}
	if !strings.Contains(c.Empty, "Ask Hermes") {
		t.Errorf("the empty chat after New Thread: %q", c.Empty)
	}
	if c.Escaped != "stop (user)" {
		t.Errorf("Escape on the approval dialog: %s", c.Escaped)
	}
	if _, err := os.Stat(filepath.Join(ws, "escaped.txt")); err == nil {
		t.Errorf("the command whose approval was answered with Escape ran")
	}
	for _, label := range c.Picker {
		if strings.HasPrefix(strings.TrimPrefix(label, "$(check) "), "019") || strings.HasPrefix(label, "thread ") {
			t.Errorf("the thread picker names a thread by its id: %q", c.Picker)
		}
	}
	if !strings.Contains(c.Restored, "CHAT-Q1") || c.RestoredHasQ3 || !strings.HasPrefix(c.Header3, "Make vscode_made.txt") {
		t.Errorf("the past thread picked in the chat view: %q (has the new thread's question: %v), header %q", c.Restored, c.RestoredHasQ3, c.Header3)
	}
	// Its history is codex's items, from the server (hermes.threadHistory), not the markdown
	// transcript parsed: the turn Undo made codex forget (thread/revert) is gone, though the
	// transcript keeps it, and each turn's last line is the history's ("completed · 0 tool call(s) ·
	// 1.2 s", where the transcript's reads "completed · turn 01a… · 0 tool call(s) · …").
	if c.HasUndone {
		t.Errorf("the past thread's history in the chat view shows the undone turn (codex forgot it): %q", c.Restored)
	}
	if len(c.RestoredEnds) != 2 || !strings.HasPrefix(c.RestoredEnds[0], "completed · 0 tool call(s) · ") || !strings.HasPrefix(c.RestoredEnds[1], "completed · 0 tool call(s) · ") {
		t.Errorf("the past thread's turns in the chat view end with %q, want two lines of its history", c.RestoredEnds)
	}
	checkQuestions(t, sum, env.Model, stdout.String())
	reqs := env.Model.Requests()
	if n := len(reqs); n != 7+len(questionReplies) {
		t.Errorf("fake model requests: %d, want %d (3 for the turn, 1 for the review, 3 from the chat, then the questions' turn)", n, 7+len(questionReplies))
	} else if body := string(reqs[5].Body); !strings.Contains(body, "CHAT-Q1") || !strings.Contains(body, "CHAT-Q2") {
		t.Errorf("the chat's second question did not continue the first's thread")
	}
	t.Logf("e2e total %v (browser %d ms)", time.Since(begin).Round(time.Millisecond), sum.DurationMs)
}

// sortedCopy is s sorted, for comparing sets of button labels.
func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// setup runs e2e/setup.sh and returns the KEY=VALUE lines it prints.
func setup(t *testing.T, extDir string) map[string]string {
	t.Helper()
	t0 := time.Now()
	cmd := exec.Command("bash", filepath.Join(extDir, "e2e", "setup.sh"))
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("e2e/setup.sh: %v", err)
	}
	vals := map[string]string{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			vals[k] = v
		}
	}
	for _, k := range []string{"NODE24", "CODE_SERVER", "TOOLS_DIR", "CHROMIUM"} {
		if vals[k] == "" {
			t.Fatalf("e2e/setup.sh did not say %s: %q", k, out.String())
		}
	}
	t.Logf("tools ready in %v", time.Since(t0).Round(time.Millisecond))
	return vals
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func waitHealthy(t *testing.T, base string, done <-chan struct{}, logPath string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-done:
			logTail(t, "code-server log", logPath)
			t.Fatal("code-server exited before it was up")
		default:
		}
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			logTail(t, "code-server log", logPath)
			t.Fatalf("code-server not up after 60s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stopGroup ends code-server's session: SIGTERM to the group, then SIGKILL to what is left.
func stopGroup(t *testing.T, pgid int, done <-chan struct{}) {
	_ = proctest.TerminateGroup(pgid)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	if !proctest.WaitGroupGone(pgid, 5*time.Second) {
		t.Logf("code-server's group %d outlived SIGTERM; killing it", pgid)
		_ = proctest.KillGroup(pgid)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b)+"\n")
}

func logTail(t *testing.T, name, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Logf("%s: %v", name, err)
		return
	}
	if len(b) > 12000 {
		b = append([]byte("…\n"), b[len(b)-12000:]...)
	}
	t.Logf("%s (%s):\n%s", name, path, b)
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
