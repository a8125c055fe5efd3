package neovim_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"context"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

// neovim is one Neovim the tests run.
type neovim struct {
	name, path string
}

// neovims lists the Neovims to test: the nvim of PATH (Debian's 0.7.2 in CI), and a 0.11+ one for
// vim.lsp.enable("hermes") and the newer APIs: $HERMES_NVIM11, else tools/neovim/nvim as
// editors/neovim/fetch-nvim.sh makes it (Debian forky's Neovim with its own glibc); and, when there
// is one, a 0.10 (whose inlay hints differ): $HERMES_NVIM010, else tools/neovim-0.10/nvim
// (fetch-nvim.sh trixie tools/neovim-0.10; make test-neovim does).
func neovims(t *testing.T) []neovim {
	t.Helper()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatalf("the Neovim plugin test needs nvim on PATH (Debian: apt-get install -y --no-install-recommends neovim; .ci/run installs it): %v", err)
	}
	newer := neovim{name: "nvim-0.11+"}
	if p := os.Getenv("HERMES_NVIM11"); p != "" {
		newer.path = p
	} else if p, err := filepath.Abs("../../tools/neovim/nvim"); err == nil {
		if _, err := os.Stat(p); err == nil {
			newer.path = p
		}
	}
	if newer.path == "" {
		t.Fatal("the Neovim plugin test needs a Neovim 0.11+ too, for vim.lsp.enable('hermes') and the newer APIs: " +
			"run editors/neovim/fetch-nvim.sh (make test does), which puts Debian forky's in tools/neovim, or set HERMES_NVIM11 to one")
	}
	out := []neovim{{name: "nvim", path: nvim}, newer}
	if p := os.Getenv("HERMES_NVIM010"); p != "" {
		out = append(out, neovim{name: "nvim-0.10", path: p})
	} else if p, err := filepath.Abs("../../tools/neovim-0.10/nvim"); err == nil {
		if _, err := os.Stat(p); err == nil {
			out = append(out, neovim{name: "nvim-0.10", path: p})
		}
	}
	return out
}

func (s *featuresSummary) outcome() (string, *string) { return s.NvimVersion, s.Error }

// featuresSummary is what test/features.lua writes.
type featuresSummary struct {
	NvimVersion       string             `json:"nvimVersion"`
	Enabled           bool               `json:"enabled"`
	ClientName        string             `json:"clientName"`
	RootDir           string             `json:"rootDir"`
	LspAttach         bool               `json:"lspAttach"`
	ShowDocument      bool               `json:"showDocument"`
	TurnEventsSetting bool               `json:"turnEventsSetting"`
	StatusMessage     string             `json:"statusMessage"`
	AgentSettings     string             `json:"agentSettings"`
	EmptyAgent        string             `json:"emptyAgentSettings"`
	AgentLine         string             `json:"agentLine"`
	CodexLine         string             `json:"codexLine"`
	AgentFlags        []string           `json:"agentFlags"`
	Health            string             `json:"health"`
	Help              map[string]*string `json:"help"`
	Completion        map[string][]string
	LoginMethods      []string `json:"loginMethods"`
	LoginMessage      *string  `json:"loginMessage"`
	UTF16             struct {
		Col, Byte, Past    int
		Chars, Line, Empty struct {
			Start struct{ Line, Character int } `json:"start"`
			End   struct{ Line, Character int } `json:"end"`
		}
	} `json:"utf16"`
	ServerStopped bool    `json:"serverStopped"`
	Error         *string `json:"error"`
}

// testFeatures runs test/features.lua in nvim (a subtest of TestNeovimApprovalGatedTurn): :checkhealth
// hermes (the server's doctor through the health API of each version), :help hermes, :Hermes's
// completion and login, the UTF-16 ranges and, on 0.11+ (wantNewer), vim.lsp.enable("hermes")
// through lsp/hermes.lua.
func testFeatures(t *testing.T, nvim string, wantNewer bool) {
	pluginDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	env := codextest.NewReal(t)
	if out, err := exec.Command("git", "init", "-q", env.Work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	file := filepath.Join(env.Work, "notes.txt")
	if err := os.WriteFile(file, []byte("Some notes.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	settingsJSON, err := json.Marshal(env.HermesSettings(filepath.Join(tmp, "state")))
	if err != nil {
		t.Fatal(err)
	}
	// The plugin as installed: a copy of the folder (doc/tags as shipped).
	plugin := filepath.Join(tmp, "plugin")
	if out, err := exec.Command("cp", "-r", pluginDir, plugin).CombinedOutput(); err != nil {
		t.Fatalf("copying the plugin: %v %s", err, out)
	}
	logFile := filepath.Join(tmp, "hermes-lsp.log")
	summaryFile := filepath.Join(tmp, "summary.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := nvimScript(ctx, nvim, plugin, "features.lua", env.Work, filepath.Join(tmp, "editor-home"),
		"SSH_CONNECTION=",
		"HERMES_NVIM_SERVER="+testbin.HermesLSP(t),
		"HERMES_NVIM_SERVER_LOG="+logFile,
		"HERMES_NVIM_SETTINGS="+string(settingsJSON),
		"HERMES_NVIM_FILE="+file,
		"HERMES_NVIM_PLUGIN="+plugin,
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
	var sum featuresSummary
	readSummary(t, summaryFile, "features.lua", runErr, &sum)
	t.Logf("Neovim %s; :checkhealth hermes:\n%s", sum.NvimVersion, sum.Health)

	var major, minor int
	fmt.Sscanf(sum.NvimVersion, "%d.%d", &major, &minor)
	if wantNewer {
		if major == 0 && minor < 11 {
			t.Fatalf("the 0.11+ Neovim (%s) is %s", nvim, sum.NvimVersion)
		}
		if !sum.Enabled || !sum.LspAttach {
			t.Errorf("vim.lsp.enable('hermes'): enabled %v, LspAttach for the plugin's client %v", sum.Enabled, sum.LspAttach)
		}
	}
	if sum.ClientName != "hermes" || sum.RootDir != env.Work || !sum.ShowDocument || !sum.TurnEventsSetting {
		t.Errorf("client %q root %q (want the git root %q), showDocument %v, turnEvents %v", sum.ClientName, sum.RootDir, env.Work, sum.ShowDocument, sum.TurnEventsSetting)
	}
	if !strings.Contains(sum.StatusMessage, env.Work) || !strings.Contains(sum.StatusMessage, "\nHermes agent: codex") {
		t.Errorf(":Hermes status said %q, want the folder and the agent (codex)", sum.StatusMessage)
	}
	checkAgentSettings(t, &sum)
	checkHealth(t, sum.Health, env.Work)
	if !strings.Contains(sum.Health, "hermes: agent") || !strings.Contains(sum.Health, env.Work+": codex") {
		t.Errorf(":checkhealth hermes does not report the agent of the client of %s", env.Work)
	}

	for tag, file := range sum.Help {
		if file == nil || !strings.HasSuffix(*file, filepath.Join("doc", "hermes.txt")) {
			t.Errorf(":help %s opened %v, want doc/hermes.txt", tag, file)
		}
	}
	if len(sum.Help) < 10 {
		t.Errorf("help tags checked: %v", sum.Help)
	}

	for _, sub := range []string{"ask", "stop", "approve", "status", "transcript", "open", "new", "compact", "yolo", "undo", "threads", "model", "review", "login", "health"} {
		if !slices.Contains(sum.Completion["subcommands"], sub) {
			t.Errorf(":Hermes <Tab> lacks %s: %v", sub, sum.Completion["subcommands"])
		}
	}
	for key, want := range map[string][]string{
		"approve": {"once", "session", "deny", "stop"}, "review": {"base", "commit"},
		"prefix": {"threads", "transcript"}, "alias": {"session", "stop"},
	} {
		if !slices.Equal(sum.Completion[key], want) {
			t.Errorf("completion %s: %v, want %v", key, sum.Completion[key], want)
		}
	}

	if !slices.Equal(sum.LoginMethods, []string{"deviceCode"}) || sum.LoginMessage == nil ||
		!strings.Contains(*sum.LoginMessage, "https://auth.example/device") || !strings.Contains(*sum.LoginMessage, "ABCD-1234") {
		t.Errorf(":Hermes login over SSH: methods %v, message %v", sum.LoginMethods, sum.LoginMessage)
	}

	u := sum.UTF16
	if u.Col != 4 || u.Byte != 7 || u.Past != 8 {
		t.Errorf("utf16_col/byte_col: %d %d %d, want 4 7 8", u.Col, u.Byte, u.Past)
	}
	if u.Chars.Start.Character != 1 || u.Chars.End.Character != 4 || u.Line.Start.Character != 0 || u.Line.End.Character != 5 ||
		u.Empty.End.Character != 0 || u.Empty.Start.Line != 1 {
		t.Errorf("range_params: %+v", u)
	}
	if !sum.ServerStopped {
		t.Error("the server did not stop")
	}
}

// checkAgentSettings checks what features.lua found of the agent: its settings as sent (agent.env
// and an empty agent JSON objects, not arrays), how :Hermes status names an ACP agent and codex, and
// the agent flags of a server command that :checkhealth gives the doctor.
func checkAgentSettings(t *testing.T, sum *featuresSummary) {
	t.Helper()
	var agent map[string]any
	if err := json.Unmarshal([]byte(sum.AgentSettings), &agent); err != nil {
		t.Fatalf("the agent settings %q: %v", sum.AgentSettings, err)
	}
	if env, ok := agent["env"].(map[string]any); !ok || len(env) != 0 || agent["kind"] != "acp" || agent["command"] != "gemini" ||
		fmt.Sprint(agent["args"]) != "[--acp]" {
		t.Errorf("the agent settings as sent: %s, want kind acp, command gemini, args [--acp], env {}", sum.AgentSettings)
	}
	if sum.EmptyAgent != "{}" {
		t.Errorf("an empty agent was sent as %s, want {}", sum.EmptyAgent)
	}
	if want := "gemini-cli[2J 0.61.0 (ACP; lacks compact, login)"; sum.AgentLine != want {
		t.Errorf("the ACP agent's line: %q, want %q", sum.AgentLine, want)
	}
	if sum.CodexLine != "codex 0.171.0" {
		t.Errorf("codex's line: %q", sum.CodexLine)
	}
	if want := []string{"--agent", "acp", "--agent-command=gemini", "-agent-arg", "--acp"}; !slices.Equal(sum.AgentFlags, want) {
		t.Errorf("agent_flags: %q, want %q", sum.AgentFlags, want)
	}
}

// checkHealth checks the :checkhealth hermes buffer: the server and codex OK (the doctor names its
// checks hermes-lsp and codex), the sign-in reported (the test's codex is signed out, or its fake
// provider needs no sign-in: either way a login line), the client and the settings.
func checkHealth(t *testing.T, health, root string) {
	t.Helper()
	lines := strings.Split(health, "\n")
	has := func(pred func(string) bool) bool { return slices.ContainsFunc(lines, pred) }
	for _, name := range []string{"hermes-lsp", "codex"} {
		if !has(func(l string) bool { return strings.Contains(l, "OK") && strings.Contains(l, " "+name+": ") }) {
			t.Errorf(":checkhealth hermes has no OK line for %s", name)
		}
	}
	if !has(func(l string) bool {
		return strings.Contains(l, "login: ") && (strings.Contains(l, "ERROR") || strings.Contains(l, "OK") || strings.Contains(l, "WARN"))
	}) {
		t.Error(":checkhealth hermes does not report codex's sign-in")
	}
	if !has(func(l string) bool { return strings.Contains(l, "hermes (id ") && strings.Contains(l, "root "+root) }) {
		t.Errorf(":checkhealth hermes does not list the client of %s", root)
	}
	if !has(func(l string) bool { return strings.Contains(l, "stateDir = ") && strings.Contains(l, "settings file") }) {
		t.Error(":checkhealth hermes does not show the settings with their sources")
	}
}

// TestNeovimHelpTagsCurrent: doc/tags, which the plugin ships so that :help hermes works after a
// runtimepath install (no :helptags), is what :helptags makes of doc/hermes.txt now.
func TestNeovimHelpTagsCurrent(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatalf("the help tags' test needs nvim on PATH (Debian: apt-get install -y --no-install-recommends neovim; make test installs it): %v", err)
	}
	dir := t.TempDir()
	txt, err := os.ReadFile(filepath.Join("doc", "hermes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hermes.txt"), txt, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(nvim, "--headless", "--clean", "-c", "helptags "+dir, "-c", "qa!").CombinedOutput(); err != nil {
		t.Fatalf("helptags: %v %s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(dir, "tags"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join("doc", "tags")); err != nil || string(got) != string(want) {
		t.Errorf("doc/tags is not current (%v): run nvim --headless -c 'helptags editors/neovim/doc' -c q", err)
	}
}
