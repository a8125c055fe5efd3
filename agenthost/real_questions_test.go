package agenthost_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemcp"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// toolOutputs returns the output of each tool call the model was sent, by call id.
func toolOutputs(model *fakemodel.Server) map[string]string {
	out := make(map[string]string)
	for _, r := range model.Requests() {
		for _, it := range r.Input {
			if it.IsToolOutput() {
				out[it.CallID] = it.Output
			}
		}
	}
	return out
}

// TestRealQuestionsReachTheApprover runs one turn of the real codex in which the model makes codex
// ask each of its questions: an MCP server's (the fakemcp server's form, after codex's own
// elicitation that approves calling its tool), wider permissions, and the agent's questions, one of
// them secret. Each reaches the Approver as an approval, its answer reaches whoever asked (the MCP
// server, codex's sandbox grant, the model), and the secret answer is in neither the turn's events
// nor the transcript.
func TestRealQuestionsReachTheApprover(t *testing.T) {
	t.Parallel()
	const (
		question = "Which colour should the button be?"
		secret   = "s3cret-token-4711"
	)
	env := codextest.NewReal(t)
	env.EnableQuestions(t)
	ask, _ := json.Marshal(map[string]string{"question": question})
	env.Model.Enqueue(
		fakemodel.Call(fakemcp.ToolName, string(ask)).WithNamespace(codextest.QuestionNamespace).WithCallID("ask-1"),
		fakemodel.Call("request_permissions", `{"reason":"fetch the docs","permissions":{"network":{"enabled":true}}}`).WithCallID("perm-1"),
		// isSecret is not in the tool's schema, but codex 0.171.0 reads it from the model's arguments.
		fakemodel.Call("request_user_input", `{"questions":[
			{"id":"colour","header":"Colour","question":"Which colour?","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cold"}]},
			{"id":"token","header":"Token","question":"Your token?","isSecret":true,"options":[{"label":"None","description":"no token"}]}
		]}`).WithCallID("input-1"),
		fakemodel.Message("All answered."),
	)
	var (
		mu    sync.Mutex
		asked []hermesproto.Approval
	)
	h := realHost(t, env, func(c *agenthost.Config) {
		c.Approver = agenthost.ApproverFunc(func(ctx context.Context, a hermesproto.Approval) (agenthost.Reply, error) {
			mu.Lock()
			asked = append(asked, a)
			mu.Unlock()
			once := agenthost.Reply{Decision: hermesproto.DecisionOnce}
			switch {
			case a.Kind == hermesproto.ApprovalKindElicitation && len(a.Questions) > 0:
				once.Answers = map[string][]string{fakemcp.Field: {"blue"}}
			case a.Kind == hermesproto.ApprovalKindUserInput:
				// The secret is typed: "Other" text, which codex allows beside every question's options.
				once.Answers = map[string][]string{"colour": {"Blue"}, "token": {secret}}
			}
			return once, nil
		})
	})
	s, err := h.Session(env.Work)
	if err != nil {
		t.Fatal(err)
	}
	res, events := runToEnd(t, s, "ask me everything")
	if !res.Completed || res.FinalText != "All answered." {
		t.Fatalf("result: completed %v text %q error %q", res.Completed, res.FinalText, res.Error)
	}

	// The editor was asked, in order: codex's approval of the MCP tool call (a form with no field),
	// the server's form, the permissions, the agent's questions.
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 4 {
		t.Fatalf("%d approvals asked, want 4: %+v", len(asked), asked)
	}
	tool, form, perms, input := asked[0], asked[1], asked[2], asked[3]
	if tool.Kind != hermesproto.ApprovalKindElicitation || tool.Server != codextest.QuestionServer || len(tool.Questions) != 0 ||
		!strings.Contains(tool.Message, `run tool "`+fakemcp.ToolName+`"`) {
		t.Errorf("the tool call's approval: %+v", tool)
	}
	if form.Kind != hermesproto.ApprovalKindElicitation || form.Server != codextest.QuestionServer || form.Message != question ||
		len(form.Questions) != 1 || form.Questions[0].ID != fakemcp.Field || form.Questions[0].Type != hermesproto.QuestionTypeText || !form.Questions[0].Required {
		t.Errorf("the server's form: %+v", form)
	}
	if perms.Kind != hermesproto.ApprovalKindPermissions || perms.Permissions == nil || !perms.Permissions.Network ||
		perms.Reason != "fetch the docs" || perms.Cwd != env.Work {
		t.Errorf("the permissions approval: %+v", perms)
	}
	if input.Kind != hermesproto.ApprovalKindUserInput || len(input.Questions) != 2 || input.Questions[0].Type != hermesproto.QuestionTypeChoice ||
		len(input.Questions[0].Options) != 2 || !input.Questions[1].Secret {
		t.Errorf("the agent's questions: %+v", input)
	}
	for _, a := range asked {
		if a.ID == "" || a.TurnID != res.TurnID || a.Folder != env.Work {
			t.Errorf("approval %s of %s names turn %s folder %s, want %s %s", a.ID, a.Kind, a.TurnID, a.Folder, res.TurnID, env.Work)
		}
	}

	// Each answer reached whoever asked: the MCP server (which returned it), the model.
	outputs := toolOutputs(env.Model)
	i := strings.Index(outputs["ask-1"], "{")
	var got fakemcp.Result
	if i < 0 || json.Unmarshal([]byte(outputs["ask-1"][i:]), &got) != nil || got.Action != "accept" || string(got.Content) != `{"answer":"blue"}` {
		t.Errorf("the MCP server's tool returned %q, want the accepted form", outputs["ask-1"])
	}
	if !strings.Contains(outputs["perm-1"], `"network":{"enabled":true}`) || !strings.Contains(outputs["perm-1"], `"scope":"turn"`) {
		t.Errorf("the model got the grant %q, want network for the turn", outputs["perm-1"])
	}
	var answers struct {
		Answers map[string]struct{ Answers []string } `json:"answers"`
	}
	if json.Unmarshal([]byte(outputs["input-1"]), &answers) != nil || strings.Join(answers.Answers["colour"].Answers, ",") != "Blue" ||
		strings.Join(answers.Answers["token"].Answers, ",") != secret {
		t.Errorf("the model got the answers %q", outputs["input-1"])
	}

	// The secret is codex's alone: not in what the host reports, records or writes.
	var resolved int
	for _, ev := range events {
		if ev.Kind == hermesproto.EventKindApprovalResolved {
			resolved++
		}
	}
	if resolved != 4 {
		t.Errorf("%d approvals resolved in the events, want 4", resolved)
	}
	reported, _ := json.Marshal(events)
	if strings.Contains(string(reported), secret) {
		t.Error("the turn's events hold the secret answer")
	}
	jsonl, md, err := agenthost.TranscriptPaths(filepath.Join(env.Home, "state"), res.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{jsonl, md} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret answer", filepath.Base(path))
		}
		// The other answers are recorded: the file is the one the turn wrote.
		if !strings.Contains(string(data), "Blue") || !strings.Contains(string(data), "blue") {
			t.Errorf("%s lacks the answers that are not secret:\n%s", filepath.Base(path), data)
		}
	}

	// The MCP server is codex's child: it ends with codex.
	if err := h.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if got.Pid != 0 && !proctest.WaitGone(got.Pid, 10*time.Second) {
		t.Errorf("the MCP server (pid %d) outlived codex", got.Pid)
		_ = proctest.Kill(got.Pid)
	}
}
