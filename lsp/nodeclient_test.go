package lsp_test

import (
	"go.lsp.dev/protocol"

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
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

// nodeSummary is the JSON line tools/nodeclient/client.mjs prints.
type nodeSummary struct {
	ServerPID int `json:"serverPid"`
	AskResult *struct {
		ThreadID string `json:"threadId"`
		TurnID   string `json:"turnId"`
		Folder   string `json:"folder"`
		Steered  bool   `json:"steered"`
	} `json:"askResult"`
	AskResults []struct {
		ThreadID string `json:"threadId"`
		TurnID   string `json:"turnId"`
	} `json:"askResults"`
	ApplyEdits []nodeApplyEdit `json:"applyEdits"`
	Steps      []struct {
		Kind        string                `json:"kind"`
		Result      json.RawMessage       `json:"result"`
		Diagnostics []protocol.Diagnostic `json:"diagnostics"`
		Ms          int                   `json:"ms"`
	} `json:"steps"`
	UndoResult     *hermesproto.UndoTurnResult `json:"undoResult"`
	ProgressTokens []json.RawMessage           `json:"progressTokens"`
	Progress       []struct {
		Token   json.RawMessage `json:"token"`
		Kind    string          `json:"kind"`
		Title   string          `json:"title"`
		Message string          `json:"message"`
	} `json:"progress"`
	Approvals []struct {
		Message  string   `json:"message"`
		Actions  []string `json:"actions"`
		Answered *string  `json:"answered"`
	} `json:"approvals"`
	TurnEventKinds []string `json:"turnEventKinds"`
	ShowMessages   []struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	} `json:"showMessages"`
	ShowDocuments []struct {
		URI       string `json:"uri"`
		TakeFocus *bool  `json:"takeFocus"`
	} `json:"showDocuments"`
	ExitCode   *int    `json:"exitCode"`
	Signal     *string `json:"signal"`
	Error      *string `json:"error"`
	DurationMs int     `json:"durationMs"`
}

// nodeApplyEdit is a workspace/applyEdit the Node client took.
type nodeApplyEdit struct {
	Label    string `json:"label"`
	Metadata *struct {
		IsRefactoring bool `json:"isRefactoring"`
	} `json:"metadata"`
	Changes []string `json:"changes"` // "edit", "create", "delete", "rename", in order
}

// TestNodeClientApprovalGatedTurn drives the built binary with Microsoft's LSP client libraries
// (vscode-languageserver-protocol, what vscode-languageclient is built on) through a full turn of
// the real pinned codex against the fake model: a command and a patch, each approved "Allow once"
// through window/showMessageRequest, then the final answer.
func TestNodeClientApprovalGatedTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and runs node and the real codex; skipped with -short")
	}
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(
		fakemodel.Exec("echo from-node > node_made.txt"),
		fakemodel.Patch(fakemodel.AddFilePatch("node_patch.txt", "patched\n")),
		fakemodel.Message("All done from node."),
	)
	tmp := t.TempDir()
	file := filepath.Join(env.Work, "notes.txt")
	if err := os.WriteFile(file, []byte("Notes for the Node client test.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := runNodeClient(t, env, tmp, file, "--prompt", "Make node_made.txt with a command, then node_patch.txt with a patch.")
	t.Logf("client session %d ms; approvals %d; progress %d; turn events %d; messages %d",
		sum.DurationMs, len(sum.Approvals), len(sum.Progress), len(sum.TurnEventKinds), len(sum.ShowMessages))

	// hermes.ask answered at once with the turn and its folder.
	if a := sum.AskResult; a == nil || a.ThreadID == "" || a.TurnID == "" || a.Folder != env.Work || a.Steered {
		t.Errorf("hermes.ask result: %+v (folder want %s)", sum.AskResult, env.Work)
	}

	// Two approval prompts, the command then the patch, each answered "Allow once".
	if len(sum.Approvals) != 2 {
		t.Errorf("approval prompts: got %d, want 2: %+v", len(sum.Approvals), sum.Approvals)
	} else {
		for i, want := range []string{"from-node", "node_patch.txt"} {
			a := sum.Approvals[i]
			if !strings.Contains(a.Message, want) {
				t.Errorf("approval %d does not name %q: %q", i, want, a.Message)
			}
			if a.Answered == nil || *a.Answered != "Allow once" || !slices.Contains(a.Actions, "Allow once") {
				t.Errorf("approval %d: actions %v, answered %v", i, a.Actions, a.Answered)
			}
		}
		if !strings.Contains(sum.Approvals[0].Message, "run a command") || !strings.Contains(sum.Approvals[1].Message, "apply a patch") {
			t.Errorf("approval kinds: %q / %q", sum.Approvals[0].Message, sum.Approvals[1].Message)
		}
	}

	// Progress on the token the server created: begin "Hermes", reports, end last.
	if len(sum.ProgressTokens) != 1 {
		t.Errorf("progress tokens created: %d, want 1", len(sum.ProgressTokens))
	}
	var begins, reports, ends int
	for i, p := range sum.Progress {
		switch p.Kind {
		case "begin":
			begins++
			if i != 0 || p.Title != "Hermes" {
				t.Errorf("progress begin at %d with title %q", i, p.Title)
			}
		case "report":
			reports++
		case "end":
			ends++
			if i != len(sum.Progress)-1 {
				t.Errorf("progress end at %d of %d", i, len(sum.Progress))
			}
		}
	}
	if begins != 1 || reports < 1 || ends != 1 {
		t.Errorf("progress: %d begin, %d report, %d end: %+v", begins, reports, ends, sum.Progress)
	}
	if ends == 1 {
		if end := sum.Progress[len(sum.Progress)-1].Message; !strings.HasPrefix(end, "completed") {
			t.Errorf("progress end message: %q", end)
		}
	}

	for _, kind := range []string{"toolStarted", "toolCompleted", "approvalWaiting", "turnCompleted"} {
		if !slices.Contains(sum.TurnEventKinds, kind) {
			t.Errorf("no %s among the turn events %v", kind, sum.TurnEventKinds)
		}
	}

	// What codex wrote in the folder.
	for name, want := range map[string]string{"node_made.txt": "from-node\n", "node_patch.txt": "patched\n"} {
		got, err := os.ReadFile(filepath.Join(env.Work, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	// The final answer, then the transcript opened without focus.
	if n := len(sum.ShowMessages); n == 0 || !strings.Contains(sum.ShowMessages[n-1].Message, "All done from node.") {
		t.Errorf("final showMessage lacks the answer: %+v", sum.ShowMessages)
	}
	// vscode-languageclient keeps the focus unless takeFocus is true; the server means false, but
	// go.lsp.dev/protocol's ShowDocumentParams drops a false takeFocus (omitempty).
	if len(sum.ShowDocuments) != 1 || !strings.HasPrefix(sum.ShowDocuments[0].URI, "file://"+filepath.Join(tmp, "state", "transcripts")+"/") ||
		!strings.HasSuffix(sum.ShowDocuments[0].URI, ".md") || (sum.ShowDocuments[0].TakeFocus != nil && *sum.ShowDocuments[0].TakeFocus) {
		t.Errorf("transcript showDocument: %+v", sum.ShowDocuments)
	}

	// shutdown + exit: the server exited 0 and is gone.
	if sum.ExitCode == nil || *sum.ExitCode != 0 {
		t.Errorf("server exit code %v signal %v, want 0", sum.ExitCode, sum.Signal)
	}
	if sum.ServerPID <= 0 {
		t.Errorf("server pid %d", sum.ServerPID)
	} else if proctest.Exists(sum.ServerPID) {
		t.Errorf("server pid %d still exists after exit", sum.ServerPID)
	}
}

// runNodeClient runs tools/nodeclient/client.mjs against the built server in env's folder with
// file open, the state folder under tmp, and args (--prompt ...) added; it fails the test unless
// the client ran to its end, and logs the client's and the server's output if the test fails.
func runNodeClient(t *testing.T, env *codextest.Real, tmp, file string, args ...string) nodeSummary {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found above the test: %v", err)
	}
	clientDir := filepath.Join(root, "tools", "nodeclient")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the Node client test needs node on PATH (and `make tools`): %v", err)
	}
	if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "vscode-languageserver-protocol", "package.json")); err != nil {
		t.Fatalf("tools/nodeclient/node_modules is missing: run `make tools` (%v)", err)
	}

	bin := testbin.HermesLSP(t)
	settings := env.HermesSettings(filepath.Join(tmp, "state"))
	settings["turnEvents"] = true
	settingsJSON, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(tmp, "hermes-lsp.log")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// node and the server it spawns share a process group: on timeout the whole group is killed.
	cmd := proctest.GroupCommand(ctx, node, append([]string{filepath.Join(clientDir, "client.mjs"),
		"--server", bin,
		"--folder", env.Work,
		"--file", file,
		"--settings", string(settingsJSON),
		"--log-file", logFile,
		"--log-level", "debug",
		"--timeout-ms", "75000",
	}, args...)...)
	cmd.Dir = clientDir
	// The editor side gets a throwaway HOME and XDG folders too, and no real API key.
	editorHome := filepath.Join(tmp, "editor-home")
	cmd.Env = append(os.Environ(),
		"HOME="+editorHome,
		"XDG_CONFIG_HOME="+filepath.Join(editorHome, ".config"),
		"XDG_STATE_HOME="+filepath.Join(editorHome, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(editorHome, ".cache"),
		"OPENAI_API_KEY=", "CODEX_API_KEY=",
	)
	// Anything left in the group (nothing, normally: the client waits for the server) ends with it.
	stdout, stderr, runErr := proctest.RunGroup(t, "node client", cmd)
	t.Cleanup(func() { proctest.EndCodex(t, env.CodexHome) })

	dumpOnFailure := func() {
		if !t.Failed() {
			return
		}
		t.Logf("node client stderr:\n%s", stderr.String())
		t.Logf("node client stdout:\n%s", stdout.String())
		if b, err := os.ReadFile(logFile); err == nil {
			t.Logf("server log (%s):\n%s", logFile, b)
		} else {
			t.Logf("server log: %v", err)
		}
		for i, l := range env.Model.Log() {
			t.Logf("fake model %d: %s", i, l)
		}
	}
	t.Cleanup(dumpOnFailure)

	line := lastLine(stdout.String())
	var sum nodeSummary
	if err := json.Unmarshal([]byte(line), &sum); err != nil {
		t.Fatalf("client printed no JSON summary (%v); run error: %v", err, runErr)
	}
	if sum.Error != nil {
		t.Fatalf("client error: %s", *sum.Error)
	}
	if runErr != nil {
		t.Fatalf("client: %v", runErr)
	}
	return sum
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
