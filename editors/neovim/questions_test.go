package neovim_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// questionsSummary is what test/questions.lua writes.
type questionsSummary struct {
	NvimVersion   string `json:"nvimVersion"`
	AsksQuestions bool   `json:"asksQuestions"`
	Asked         []struct {
		How    string   `json:"how"`
		Prompt string   `json:"prompt"`
		Items  []string `json:"items"`
		// Extra is the picker's kind (select) or the default offered (input).
		Extra any `json:"extra"`
	} `json:"asked"`
	// Approves are the commands the plugin sent, their argument as the request's JSON.
	Approves []struct {
		Client  int    `json:"client"`
		Command string `json:"command"`
		JSON    string `json:"json"`
	} `json:"approves"`
	Notifications []struct {
		Message string `json:"message"`
	} `json:"notifications"`
	Messages     string  `json:"messages"`
	HermesBuffer string  `json:"hermesBuffer"`
	Statusline   string  `json:"statusline"`
	Error        *string `json:"error"`
}

func (s *questionsSummary) outcome() (string, *string) { return s.NvimVersion, s.Error }

// TestNeovimQuestions runs test/questions.lua in each Neovim: codex's questions (an MCP server's
// form with every kind of question, the agent's question declined, a page to visit, a form
// without fields stopped, a question dismissed and asked again) and a permissions approval, fed to the plugin's
// hermes/turnEvent handler as approvalWaiting events, answered through vim.ui.select, vim.ui.input
// and vim.fn.inputsecret; it checks the questions asked (Decline first, Stop turn last) and the
// hermes.approve calls, and that the secret answer went nowhere but hermes.approve. No server runs:
// the plugin's own handling, in a real Neovim, is what is tested.
func TestNeovimQuestions(t *testing.T) {
	t.Parallel()
	for _, n := range neovims(t) {
		t.Run(n.name, func(t *testing.T) {
			t.Parallel()
			testQuestions(t, n.path)
		})
	}
}

func testQuestions(t *testing.T, nvim string) {
	const secret = "hunter2-s3cret"
	pluginDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	summaryFile := filepath.Join(tmp, "summary.json")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := nvimScript(ctx, nvim, pluginDir, "questions.lua", tmp, filepath.Join(tmp, "home"), "HERMES_NVIM_SUMMARY="+summaryFile)
	stdout, stderr, runErr := proctest.RunGroup(t, "nvim", cmd)
	defer func() {
		if t.Failed() {
			t.Logf("nvim stderr:\n%s\nnvim stdout:\n%s", stderr.String(), stdout.String())
		}
	}()
	var sum questionsSummary
	readSummary(t, summaryFile, "questions.lua", runErr, &sum)

	if !sum.AsksQuestions {
		t.Errorf("the client does not declare experimental.hermes.asksQuestions")
	}
	var calls []hermesproto.ApproveArgs
	for _, a := range sum.Approves {
		var args hermesproto.ApproveArgs
		dec := json.NewDecoder(strings.NewReader(a.JSON))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&args); err != nil {
			t.Errorf("%s's argument %s: %v", a.Command, a.JSON, err)
		}
		if a.Command != hermesproto.CmdApprove || a.Client != 7 {
			t.Errorf("%s %s went to client %d, want hermes.approve to the client that announced it (7)", a.Command, a.JSON, a.Client)
		}
		calls = append(calls, args)
	}
	want := []hermesproto.ApproveArgs{
		{ApprovalID: "e1", Decision: "once", Answers: map[string][]string{"db": {"Oracle"}, "envs": {"dev", "prod"}, "ok": {"true"}, "n": {"3"}, "token": {secret}}},
		{ApprovalID: "u1", Decision: "deny"},
		{ApprovalID: "e2", Decision: "once"},
		{ApprovalID: "e3", Decision: "stop"},
		{ApprovalID: "u2", Decision: "once", Answers: map[string][]string{"color": {"r"}}},
		{ApprovalID: "p1", Decision: "once"},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("hermes.approve calls:\n got %+v\nwant %+v", calls, want)
	}

	// What was asked, in order (the script in questions.lua answers each).
	if len(sum.Asked) != 15 {
		t.Fatalf("%d questions asked, want 15: %+v", len(sum.Asked), sum.Asked)
	}
	first := sum.Asked[0]
	if !strings.HasPrefix(first.Prompt, `MCP server "db-tools" asks: Set up the database (1/5) Database: Which database?`) || first.Extra != "hermes.question" ||
		!reflect.DeepEqual(first.Items, []string{"Decline", "Postgres — the usual one", "MySQL", "Other…", "Stop turn"}) {
		t.Errorf("the first question: %q %v (kind %v)", first.Prompt, first.Items, first.Extra)
	}
	if multi := sum.Asked[2]; !reflect.DeepEqual(multi.Items, []string{"Decline", "Done choosing (0 picked)", "[ ] Dev", "[ ] Prod", "Stop turn"}) {
		t.Errorf("the multiChoice question: %v", multi.Items)
	}
	if multi := sum.Asked[4]; !reflect.DeepEqual(multi.Items, []string{"Decline", "Done choosing (2 picked)", "[x] Dev", "[x] Prod", "Stop turn"}) {
		t.Errorf("the multiChoice question, two picked: %v", multi.Items)
	}
	if b := sum.Asked[5]; !strings.Contains(b.Prompt, "(3/5) Migrate now?") || !reflect.DeepEqual(b.Items, []string{"Decline", "Yes", "No", "Stop turn"}) {
		t.Errorf("the boolean question: %q %v", b.Prompt, b.Items)
	}
	if n := sum.Asked[6]; n.How != "input" || !strings.Contains(n.Prompt, "How many replicas?") || n.Extra != "2" {
		t.Errorf("the integer question: %+v", n)
	}
	if again := sum.Asked[7]; !strings.Contains(again.Prompt, "(a whole number, like 3)") || strings.Contains(again.Prompt, "2.5") {
		t.Errorf("the wrong number, asked again: %q", again.Prompt)
	}
	if s := sum.Asked[8]; s.How != "secret" || !strings.Contains(s.Prompt, "Your API token") {
		t.Errorf("the secret question: %+v", s)
	}
	if u := sum.Asked[9]; !strings.HasPrefix(u.Prompt, "Hermes asks (1/1) Go on?") || !reflect.DeepEqual(u.Items, []string{"Decline", "Yes, go", "Stop turn"}) {
		t.Errorf("the agent's question: %q %v", u.Prompt, u.Items)
	}
	if u := sum.Asked[10]; !strings.Contains(u.Prompt, `MCP server "auth" asks: Sign in — open https://example.com/login?x=1 yourself`) ||
		!reflect.DeepEqual(u.Items, []string{"Decline", "Done", "Stop turn"}) {
		t.Errorf("the page to visit: %q %v", u.Prompt, u.Items)
	}
	if u := sum.Asked[11]; u.Prompt != `MCP server "auth" asks to run its tool "trust": Trust this folder?` || !reflect.DeepEqual(u.Items, []string{"Decline", "Accept", "Stop turn"}) {
		t.Errorf("the form without fields: %q %v", u.Prompt, u.Items)
	}
	if p := sum.Asked[14]; !strings.Contains(p.Prompt, "Hermes wants network access; read and write /home/u/.cache; read /etc/ssl; write /tmp/out (to fetch the certificates)") ||
		!reflect.DeepEqual(p.Items, []string{"Deny", "Allow once", "Allow for session", "Stop turn"}) || p.Extra != "hermes.approval" {
		t.Errorf("the permissions approval: %q %v (kind %v)", p.Prompt, p.Items, p.Extra)
	}

	var notes []string
	for _, n := range sum.Notifications {
		notes = append(notes, n.Message)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "still waiting, answer with :Hermes approve") {
		t.Errorf("no word that the dismissed question still waits: %q", notes)
	}
	for _, want := range []string{"- approval e1: answered (user)", "- approval u1: declined (user)", "- approval e3: declined, turn stopped (user)"} {
		if !strings.Contains(sum.HermesBuffer, want) {
			t.Errorf("the Hermes buffer lacks %q:\n%s", want, sum.HermesBuffer)
		}
	}
	// The secret went to hermes.approve and nowhere else.
	raw, err := json.Marshal(struct {
		Asked, Notifications   any
		Messages, HermesBuffer string
		Statusline             string
	}{sum.Asked, sum.Notifications, sum.Messages, sum.HermesBuffer, sum.Statusline})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Errorf("the secret answer was shown or kept: %s", raw)
	}
}
