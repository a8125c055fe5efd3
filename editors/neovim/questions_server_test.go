package neovim_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/stdiobridge"
)

// bridgeEnv names the socket the test binary, started as Neovim's language server, connects its
// standard input and output to (see bridge).
const bridgeEnv = "HERMES_NVIM_TEST_BRIDGE"

// serverQuestionsSummary is what test/server_questions.lua writes.
type serverQuestionsSummary struct {
	NvimVersion string `json:"nvimVersion"`
	Asked       []struct {
		How    string   `json:"how"`
		Prompt string   `json:"prompt"`
		Items  []string `json:"items"`
	} `json:"asked"`
	Notifications []struct {
		Message string `json:"message"`
	} `json:"notifications"`
	Messages     string  `json:"messages"`
	HermesBuffer string  `json:"hermesBuffer"`
	Error        *string `json:"error"`
}

func (s *serverQuestionsSummary) outcome() (string, *string) { return s.NvimVersion, s.Error }

// TestNeovimQuestionsFromServer runs test/server_questions.lua in each Neovim against hermes-lsp on
// a fake codex whose turn asks an MCP server's form (a choice, a number typed wrong then right),
// the agent's questions (a secret, a choice) and wider permissions: the plugin asks them itself from
// the turn events, and the test checks what codex got, what was asked, and that the secret went to
// codex and nowhere in Neovim (notifications, :messages, the Hermes buffer).
func TestNeovimQuestionsFromServer(t *testing.T) {
	t.Parallel()
	for _, n := range neovims(t) {
		t.Run(n.name, func(t *testing.T) {
			t.Parallel()
			testQuestionsFromServer(t, n.path)
		})
	}
}

func testQuestionsFromServer(t *testing.T, nvim string) {
	const secret = "hunter2-s3cret"
	pluginDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	if out, err := exec.Command("git", "init", "-q", work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	file := filepath.Join(work, "notes.txt")
	if err := os.WriteFile(file, []byte("Some notes.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := codextest.NewFake(t)
	got := make(chan string, 3) // codex's answers, as JSON
	answer := func(res any, err error) {
		b, _ := json.Marshal(res)
		if err != nil {
			b = []byte("error: " + err.Error())
		}
		got <- string(b)
	}
	fake.OnTurn(func(ft *codextest.FakeTurn) {
		answer(ft.Elicit("db-tools", "Set up the database", json.RawMessage(`{"type":"object","properties":{
			"color":{"type":"string","title":"Colour","enum":["r","g"],"enumNames":["Red","Green"]},
			"replicas":{"type":"integer","title":"Replicas"}},"required":["color","replicas"]}`), ""))
		answer(ft.AskUser([]map[string]any{
			{"id": "token", "header": "Token", "question": "API token?", "isSecret": true},
			{"id": "env", "header": "Env", "question": "Deploy where?", "options": []map[string]any{{"label": "Dev", "description": ""}, {"label": "Prod", "description": ""}}},
		}))
		answer(ft.RequestPermissions(map[string]any{"network": map[string]any{"enabled": true}, "fileSystem": map[string]any{"write": []string{"/srv/out"}}}, "upload the build"))
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	addr := stdiobridge.Serve(t, tmp, fake.Start)
	settings, err := json.Marshal(map[string]any{"stateDir": filepath.Join(tmp, "state")})
	if err != nil {
		t.Fatal(err)
	}
	summaryFile := filepath.Join(tmp, "summary.json")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := nvimScript(ctx, nvim, pluginDir, "server_questions.lua", work, filepath.Join(tmp, "home"),
		bridgeEnv+"="+addr, "HERMES_NVIM_SERVER="+self, "HERMES_NVIM_SETTINGS="+string(settings),
		"HERMES_NVIM_FILE="+file, "HERMES_NVIM_SUMMARY="+summaryFile, "HERMES_NVIM_SECRET="+secret)
	stdout, stderr, runErr := proctest.RunGroup(t, "nvim", cmd)
	defer func() {
		if t.Failed() {
			t.Logf("nvim stderr:\n%s\nnvim stdout:\n%s", stderr.String(), stdout.String())
		}
	}()
	var sum serverQuestionsSummary
	readSummary(t, summaryFile, "server_questions.lua", runErr, &sum)

	want := []string{
		`{"action":"accept","content":{"color":"g","replicas":3}}`,
		`{"answers":{"env":{"answers":["Prod"]},"token":{"answers":["` + secret + `"]}}}`,
		`{"permissions":{"fileSystem":{"write":["/srv/out"]},"network":{"enabled":true}},"scope":"turn"}`,
	}
	for i, w := range want {
		select {
		case g := <-got:
			if g != w {
				t.Errorf("codex's answer %d: %s, want %s", i+1, g, w)
			}
		default:
			t.Fatalf("codex got %d answers, want %d", i, len(want))
		}
	}
	wantAsked := []struct {
		how, prompt string
		items       []string
	}{
		{"select", `MCP server "db-tools" asks: Set up the database (1/2) Colour`, []string{"Decline", "Red", "Green", "Stop turn"}},
		{"input", `MCP server "db-tools" (2/2) Replicas: `, nil},
		{"input", `(2/2) Replicas (a whole number, like 3): `, nil},
		{"secret", `Hermes asks (1/2) Token: API token?: `, nil},
		{"select", `Hermes (2/2) Env: Deploy where?`, []string{"Decline", "Dev", "Prod", "Stop turn"}},
		{"select", `Hermes wants network access; write /srv/out (upload the build)`, []string{"Deny", "Allow once", "Allow for session", "Stop turn"}},
	}
	if len(sum.Asked) != len(wantAsked) {
		t.Fatalf("asked %d times, want %d: %+v", len(sum.Asked), len(wantAsked), sum.Asked)
	}
	for i, w := range wantAsked {
		a := sum.Asked[i]
		if a.How != w.how || !strings.Contains(a.Prompt, w.prompt) || (w.items != nil && !reflect.DeepEqual(a.Items, w.items)) {
			t.Errorf("question %d: %+v, want %s %q %v", i+1, a, w.how, w.prompt, w.items)
		}
	}
	raw, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Errorf("the secret was shown or kept in Neovim: %s", raw)
	}
	for _, want := range []string{"approval a1: answered (user)", "approval a2: answered (user)", "approval a3: once (user)"} {
		if !strings.Contains(sum.HermesBuffer, want) {
			t.Errorf("the Hermes buffer lacks %q:\n%s", want, sum.HermesBuffer)
		}
	}
}
