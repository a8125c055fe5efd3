package vscode_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemcp"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// The questions' turn of the chat (e2e/drive.mjs's questions()): the model makes the real codex ask
// each of its questions (codex.EnableQuestions): the MCP server's form, after codex's own approval
// of the call to its tool; wider permissions; the agent's questions, one of them secret.
const (
	questionSecret  = "s3cret-vscode-4711"
	questionsAnswer = "All answered."
)

var questionReplies = []fakemodel.Reply{
	fakemodel.Call(fakemcp.ToolName, `{"question":"Which colour should the button be?"}`).WithNamespace(codextest.QuestionNamespace).WithCallID("ask-1"),
	fakemodel.Call("request_permissions", `{"reason":"fetch the docs","permissions":{"network":{"enabled":true}}}`).WithCallID("perm-1"),
	fakemodel.Call("request_user_input", `{"questions":[
		{"id":"colour","header":"Colour","question":"Which colour?","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cold"}]},
		{"id":"token","header":"Token","question":"Your token?","isSecret":true,"options":[{"label":"None","description":"no token"}]}
	]}`).WithCallID("input-1"),
	fakemodel.Message(questionsAnswer),
}

// questionsSummary is what e2e/drive.mjs's questions() records.
type questionsSummary struct {
	ToolCall          questionState `json:"toolCall"`
	Form              questionState `json:"form"`
	FormError         string        `json:"formError"`
	PermissionsDialog string        `json:"permissionsDialog"`
	UserInput         questionState `json:"userInput"`
	SecretField       string        `json:"secretField"`
	Outcomes          []string      `json:"outcomes"`
	Unanswered        int           `json:"unanswered"`
	SecretInPage      bool          `json:"secretInPage"`
}

// questionState is a question as the chat view showed it.
type questionState struct {
	Text    string   `json:"text"`
	Buttons []string `json:"buttons"`
	Focused bool     `json:"focused"`
}

// checkQuestions checks the questions' turn: each asked inline in the chat view (Decline first, the
// view brought up with the question focused), the form's missing answer said, the permissions in
// the dialog in words, the secret typed in a password field; each answer reached whoever asked (the
// MCP server, then the model), and the secret is nowhere in the page nor in what the driver printed.
func checkQuestions(t *testing.T, sum driveSummary, model *fakemodel.Server, driverOut string) {
	t.Helper()
	q := sum.Questions
	if q == nil {
		t.Errorf("no questions summary")
		return
	}
	if !strings.Contains(q.ToolCall.Text, `asks to run its tool "`+fakemcp.ToolName+`"`) || !slices.Equal(q.ToolCall.Buttons, []string{"Decline", "Accept", "Stop turn"}) || !q.ToolCall.Focused {
		t.Errorf("codex's approval of the tool call in the chat: %+v (want its tool named, Decline, Accept, Stop turn, and the focus)", q.ToolCall)
	}
	if !strings.Contains(q.Form.Text, "Which colour should the button be?") || !slices.Equal(q.Form.Buttons, []string{"Decline", "Submit", "Stop turn"}) || q.FormError != "An answer is needed." {
		t.Errorf("the MCP server's form in the chat: %+v, error on an empty Submit %q", q.Form, q.FormError)
	}
	if !strings.Contains(q.PermissionsDialog, "network access") {
		t.Errorf("the permissions dialog: %q", q.PermissionsDialog)
	}
	if !strings.Contains(q.UserInput.Text, "Hermes asks") || !strings.Contains(q.UserInput.Text, "Which colour?") || q.SecretField != "password" {
		t.Errorf("the agent's questions in the chat: %+v, the secret's field of type %q", q.UserInput, q.SecretField)
	}
	if len(q.Outcomes) != 3 || q.Unanswered != 0 || !slices.ContainsFunc(q.Outcomes, func(o string) bool { return strings.Contains(o, "Colour: Blue") }) {
		t.Errorf("the questions once answered: %q (%d unanswered)", q.Outcomes, q.Unanswered)
	}
	if q.SecretInPage || strings.Contains(driverOut, questionSecret) {
		t.Errorf("the secret answer is in the chat view's page (%v) or the driver's summary", q.SecretInPage)
	}
	outputs := make(map[string]string)
	for _, r := range model.Requests() {
		for _, it := range r.Input {
			if it.IsToolOutput() {
				outputs[it.CallID] = it.Output
			}
		}
	}
	if !strings.Contains(outputs["ask-1"], `"action":"accept","content":{"answer":"blue"}`) {
		t.Errorf("the MCP server's tool returned %q, want the form answered", outputs["ask-1"])
	}
	if !strings.Contains(outputs["perm-1"], `"network":{"enabled":true}`) {
		t.Errorf("the model got the grant %q", outputs["perm-1"])
	}
	if !strings.Contains(outputs["input-1"], `"colour":{"answers":["Blue"]}`) || !strings.Contains(outputs["input-1"], questionSecret) {
		t.Errorf("the model got the answers %q", outputs["input-1"])
	}
}
