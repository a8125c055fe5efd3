package agenthost_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

// The question the fakemcp server asks, and the secret the person types for the agent.
const (
	realQuestion = "Which colour should the button be?"
	realSecret   = "s3cret-token-4711"
)

// enqueueQuestions scripts the model to make codex ask each of its questions in one turn: call the
// MCP server's tool (codex asks to run it, then the server asks realQuestion), ask for network
// access, and ask the agent's questions (the second one secret), then answer "All answered.".
func enqueueQuestions(model *fakemodel.Server) {
	ask, _ := json.Marshal(map[string]string{"question": realQuestion})
	model.Enqueue(
		fakemodel.Call(fakemcp.ToolName, string(ask)).WithNamespace(codextest.QuestionNamespace).WithCallID("ask-1"),
		fakemodel.Call("request_permissions", `{"reason":"fetch the docs","permissions":{"network":{"enabled":true}}}`).WithCallID("perm-1"),
		// isSecret is not in the tool's schema, but codex 0.171.0 reads it from the model's arguments.
		fakemodel.Call("request_user_input", `{"questions":[
			{"id":"colour","header":"Colour","question":"Which colour?","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cold"}]},
			{"id":"token","header":"Token","question":"Your token?","isSecret":true,"options":[{"label":"None","description":"no token"}]}
		]}`).WithCallID("input-1"),
		fakemodel.Message("All answered."),
	)
}

// answeringApprover allows every approval once and answers the questions of enqueueQuestions: the
// form "blue", the agent's questions "Blue" and the secret, typed (codex allows any text beside
// every question's options). It records what it was asked.
type answeringApprover struct {
	mu    sync.Mutex
	asked []hermesproto.Approval
}

func (ap *answeringApprover) Approve(ctx context.Context, a hermesproto.Approval) (agenthost.Reply, error) {
	ap.mu.Lock()
	ap.asked = append(ap.asked, a)
	ap.mu.Unlock()
	once := agenthost.Reply{Decision: hermesproto.DecisionOnce}
	switch {
	case a.Kind == hermesproto.ApprovalKindElicitation && len(a.Questions) > 0:
		once.Answers = map[string][]string{fakemcp.Field: {"blue"}}
	case a.Kind == hermesproto.ApprovalKindUserInput:
		once.Answers = map[string][]string{"colour": {"Blue"}, "token": {realSecret}}
	}
	return once, nil
}

// Asked returns the approvals asked so far, in order.
func (ap *answeringApprover) Asked() []hermesproto.Approval {
	ap.mu.Lock()
	defer ap.mu.Unlock()
	return slices.Clone(ap.asked)
}

// wantAnswersDelivered checks that each answer of answeringApprover (or of auto-approval) reached
// whoever asked: the MCP server, which returned it to the model; codex, which told the model what
// it granted; the model.
func wantAnswersDelivered(t *testing.T, model *fakemodel.Server) fakemcp.Result {
	t.Helper()
	outputs := toolOutputs(model)
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
		strings.Join(answers.Answers["token"].Answers, ",") != realSecret {
		t.Errorf("the model got the answers %q", outputs["input-1"])
	}
	return got
}

// TestRealQuestionsReachTheApprover runs one turn of the real codex in which the model makes codex
// ask each of its questions: an MCP server's (the fakemcp server's form, after codex's own
// elicitation that approves calling its tool), wider permissions, and the agent's questions, one of
// them secret. Each reaches the Approver as an approval, its answer reaches whoever asked (the MCP
// server, codex's sandbox grant, the model), and the secret answer is in neither the turn's events
// nor the transcript.
func TestRealQuestionsReachTheApprover(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.EnableQuestions(t)
	enqueueQuestions(env.Model)
	ap := &answeringApprover{}
	h := realHost(t, env, func(c *agenthost.Config) { c.Approver = ap })
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
	asked := ap.Asked()
	if len(asked) != 4 {
		t.Fatalf("%d approvals asked, want 4: %+v", len(asked), asked)
	}
	tool, form, perms, input := asked[0], asked[1], asked[2], asked[3]
	if tool.Kind != hermesproto.ApprovalKindElicitation || tool.Server != codextest.QuestionServer || len(tool.Questions) != 0 ||
		tool.Tool != fakemcp.ToolName || !strings.Contains(tool.Message, `run tool "`+fakemcp.ToolName+`"`) {
		t.Errorf("the tool call's approval: %+v", tool)
	}
	if form.Kind != hermesproto.ApprovalKindElicitation || form.Server != codextest.QuestionServer || form.Message != realQuestion || form.Tool != "" ||
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

	got := wantAnswersDelivered(t, env.Model)

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
	reported, err := json.Marshal(events)
	if err != nil || !strings.Contains(string(reported), "Blue") {
		t.Fatalf("the turn's events lack the answers (%v)", err)
	}
	if strings.Contains(string(reported), realSecret) {
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
		if strings.Contains(string(data), realSecret) {
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

// TestRealQuestionsWithApprovalsOff: with approvals off, auto-approval accepts codex's approval of
// the MCP tool call and grants the permissions for the turn, but the questions (the server's form,
// the agent's) still reach the Approver, and their answers whoever asked.
func TestRealQuestionsWithApprovalsOff(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.EnableQuestions(t)
	enqueueQuestions(env.Model)
	ap := &answeringApprover{}
	h := realHost(t, env, func(c *agenthost.Config) {
		c.Approver = ap
		c.ApprovalsMode = agenthost.ApprovalsOff
	})
	s, err := h.Session(env.Work)
	if err != nil {
		t.Fatal(err)
	}
	res, events := runToEnd(t, s, "ask me everything")
	if !res.Completed || res.FinalText != "All answered." {
		t.Fatalf("result: completed %v text %q error %q", res.Completed, res.FinalText, res.Error)
	}
	asked := ap.Asked()
	if len(asked) != 2 || asked[0].Kind != hermesproto.ApprovalKindElicitation || asked[0].Message != realQuestion ||
		asked[1].Kind != hermesproto.ApprovalKindUserInput {
		t.Fatalf("the Approver was asked %+v, want the server's form and the agent's questions", asked)
	}
	byPolicy := make(map[hermesproto.ApprovalKind]int)
	for _, ev := range events {
		if ev.Kind == hermesproto.EventKindApprovalResolved && ev.Approval != nil && ev.Approval.DecidedBy == "policy" {
			byPolicy[ev.Approval.Kind]++
		}
	}
	if byPolicy[hermesproto.ApprovalKindElicitation] != 1 || byPolicy[hermesproto.ApprovalKindPermissions] != 1 || len(byPolicy) != 2 {
		t.Errorf("decided by policy: %v, want the tool call and the permissions", byPolicy)
	}
	wantAnswersDelivered(t, env.Model)
}
