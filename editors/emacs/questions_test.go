package emacs_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/stdiobridge"
)

// bridgeEnv names the socket the test binary, started as Emacs's language server, connects its
// standard input and output to (see bridge).
const bridgeEnv = "HERMES_EMACS_TEST_BRIDGE"

// TestQuestions runs test/questions.el under eglot and lsp-mode against hermes-lsp on a fake codex
// whose turn asks, in order: an MCP server's form with a number (typed wrong, then right) and a
// text, and the agent's questions with a secret and a choice, both answered with
// hermes-lsp-approve (the server says to, since they need typing); wider permissions, prompted
// with Deny first and the access in words; and two questions with options, prompted one by one.
// It checks what codex got, what was asked, and that the secret went to codex and nowhere in Emacs
// (messages, prompts, the client's log of its messages).
func TestQuestions(t *testing.T) {
	emacs := needEmacs(t)
	const secret = "hunter2-s3cret"
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, client := range []string{"eglot", "lsp-mode"} {
		t.Run(client, func(t *testing.T) {
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
			got := make(chan string, 4) // codex's answers, as JSON
			answer := func(res any, err error) {
				b, _ := json.Marshal(res)
				if err != nil {
					b = []byte("error: " + err.Error())
				}
				got <- string(b)
			}
			fake.OnTurn(func(ft *codextest.FakeTurn) {
				answer(ft.Elicit("db-tools", "Set up the database", json.RawMessage(`{"type":"object","properties":{
					"replicas":{"type":"integer","title":"Replicas"},"name":{"type":"string","title":"Service name"}},"required":["replicas"]}`), ""))
				answer(ft.AskUser([]map[string]any{
					{"id": "token", "header": "Token", "question": "API token?", "isSecret": true},
					{"id": "env", "header": "Env", "question": "Deploy where?", "options": []map[string]any{{"label": "Dev", "description": "the test bed"}, {"label": "Prod", "description": ""}}},
				}))
				answer(ft.RequestPermissions(map[string]any{"network": map[string]any{"enabled": true}, "fileSystem": map[string]any{"write": []string{"/srv/out"}}}, "upload the build"))
				answer(ft.AskUser([]map[string]any{
					{"id": "db", "header": "Database", "question": "Which database?", "options": []map[string]any{{"label": "Postgres", "description": "the default"}, {"label": "SQLite", "description": "a file"}}},
				}))
				ft.AgentMessage("ok")
				ft.Complete(codex.TurnCompleted, nil)
			})
			addr := stdiobridge.Serve(t, tmp, fake.Start)
			settings, err := json.Marshal(map[string]any{"stateDir": filepath.Join(tmp, "state"), "turnEvents": true})
			if err != nil {
				t.Fatal(err)
			}
			summaryPath := filepath.Join(tmp, "summary.json")
			out, err := emacsRun(t, emacs, []string{
				"HOME=" + tmp, "HERMES_EMACS_CLIENT=" + client, "HERMES_EMACS_ELPA=" + elpa, "HERMES_EMACS_PLUGIN=" + plugin,
				"HERMES_EMACS_SERVER=" + self, bridgeEnv + "=" + addr, "HERMES_EMACS_SETTINGS=" + string(settings),
				"HERMES_EMACS_FILE=" + file, "HERMES_EMACS_TMP=" + tmp, "HERMES_EMACS_SUMMARY=" + summaryPath,
				"HERMES_EMACS_SECRET=" + secret,
			}, "-l", filepath.Join(plugin, "test", "questions.el"))
			raw, rerr := os.ReadFile(summaryPath)
			if err != nil || rerr != nil {
				t.Fatalf("emacs: %v (summary: %v)\n%s\n%s", err, rerr, raw, out)
			}
			var s struct {
				Asked    [][]string `json:"asked"` // [how, prompt, the approval buffer shown meanwhile]
				Messages []string   `json:"messages"`
				Log      string     `json:"log"`
				Error    string     `json:"error"`
			}
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("summary %s: %v", raw, err)
			}
			if s.Error != "" {
				t.Fatalf("questions.el: %s\n%s", s.Error, out)
			}
			want := []string{
				`{"action":"accept","content":{"name":"svc","replicas":3}}`,
				`{"answers":{"env":{"answers":["Prod"]},"token":{"answers":["` + secret + `"]}}}`,
				`{"permissions":{"fileSystem":{"write":["/srv/out"]},"network":{"enabled":true}},"scope":"turn"}`,
				`{"answers":{"db":{"answers":["SQLite"]}}}`,
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

			// What was asked, in order: how, the prompt, the approval's buffer shown meanwhile.
			wantAsked := []struct{ how, prompt, buffer string }{
				{"completing-read", "The MCP server db-tools asks: Set up the database [Decline]", "- Replicas (required)"},
				{"read-string", "(1/2) Replicas", ""},
				{"read-string", "(1/2) Replicas (a whole number, like 3)", ""},
				{"read-string", "(2/2) Service name", ""},
				{"completing-read", "Hermes asks [Decline]", "- Token: API token? (required) (secret)"},
				{"read-passwd", "(1/2) Token: API token?", ""},
				{"completing-read", "(2/2) Env: Deploy where? [Decline]", "Dev — the test bed"},
				{"completing-read", "Hermes wants network access; write access to /srv/out (approval", "⚠ OUTSIDE THE WORKSPACE FOLDER: /srv/out"},
				{"completing-read", "Hermes asks (approval a4) Database: Which database? [Decline]", "Postgres"},
			}
			if len(s.Asked) != len(wantAsked) {
				t.Fatalf("asked %d times, want %d: %q", len(s.Asked), len(wantAsked), s.Asked)
			}
			for i, w := range wantAsked {
				a := s.Asked[i]
				if a[0] != w.how || !strings.Contains(a[1], w.prompt) || !strings.Contains(a[2], w.buffer) {
					t.Errorf("question %d: %q, want %s with %q (buffer with %q)", i+1, a, w.how, w.prompt, w.buffer)
				}
			}
			if !strings.Contains(strings.Join(s.Messages, "\n"), "hermes-lsp-approve") {
				t.Errorf("no word of how to answer the typed questions: %q", s.Messages)
			}
			// The secret went to codex and nowhere in Emacs.
			asked, _ := json.Marshal(s.Asked)
			for _, where := range []struct {
				name, text string
			}{{"messages", strings.Join(s.Messages, "\n")}, {"the questions asked", string(asked)}, {"the client's message log", s.Log}} {
				if strings.Contains(where.text, secret) {
					t.Errorf("the secret is in %s", where.name)
				}
			}
		})
	}
}
