package codex_test

// The real codex asking its client a question: an MCP server's elicitation, the model's request
// for wider permissions and its questions with options. Each is provoked offline by the fake
// model calling the tool that asks (codextest.Real.EnableQuestions), answered here, and seen to
// reach whoever asked: the MCP server, then the model.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemcp"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// startAsking starts a real codex that can ask every question, with a thread.
func startAsking(t *testing.T) *realSession {
	t.Helper()
	env := codextest.NewReal(t)
	env.EnableQuestions(t)
	s := startReal(t, env)
	s.startThread(t)
	return s
}

// toolOutput returns the output of the tool call callID as the model was sent it.
func toolOutput(t *testing.T, model *fakemodel.Server, callID string) string {
	t.Helper()
	for _, r := range model.Requests() {
		for _, it := range r.Input {
			if it.IsToolOutput() && it.CallID == callID {
				return it.Output
			}
		}
	}
	t.Fatalf("the model was never sent the output of %s", callID)
	return ""
}

func TestRealMcpElicitation(t *testing.T) {
	t.Parallel()
	const question = "Which colour should the button be?"
	tests := []struct {
		name    string
		approve string                     // the answer to codex's approval of the tool call
		form    *codex.ElicitationResponse // the answer to the server's own question
	}{
		{"accepted", codex.ElicitationAccept, &codex.ElicitationResponse{Action: codex.ElicitationAccept, Content: map[string]any{fakemcp.Field: "blue"}}},
		{"form declined", codex.ElicitationAccept, &codex.ElicitationResponse{Action: codex.ElicitationDecline}},
		{"tool call declined", codex.ElicitationDecline, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startAsking(t)
			args, _ := json.Marshal(map[string]string{"question": question})
			s.env.Model.Enqueue(
				fakemodel.Call(fakemcp.ToolName, string(args)).WithNamespace(codextest.QuestionNamespace).WithCallID("ask-1"),
				fakemodel.Message("Noted."),
			)
			var asked []*codex.McpElicitationParams
			s.decide = func(method string, params any) any {
				p, ok := params.(*codex.McpElicitationParams)
				if !ok {
					t.Errorf("unexpected %s", method)
					return nil
				}
				asked = append(asked, p)
				if len(asked) == 1 {
					return codex.ElicitationResponse{Action: tt.approve}
				}
				return tt.form
			}
			run := s.runTurn(t, "ask me")
			wantStatus(t, run, codex.TurnCompleted)

			// First codex asks to run the MCP tool (an elicitation of its own, with no field),
			// then, once allowed, the server asks its question, with its form.
			want := 2
			if tt.form == nil {
				want = 1
			}
			if len(asked) != want {
				t.Fatalf("%d elicitations, want %d (requests %v)", len(asked), want, s.requested)
			}
			for _, p := range asked {
				if p.ServerName != codextest.QuestionServer || p.ThreadID != s.threadID || p.TurnID != run.id || p.Mode != codex.ElicitationForm {
					t.Errorf("elicitation names server %q thread %s turn %s mode %q", p.ServerName, p.ThreadID, p.TurnID, p.Mode)
				}
			}
			if tool, ok := asked[0].ToolCallApproval(); !ok || tool != fakemcp.ToolName || !strings.Contains(asked[0].Message, `run tool "`+fakemcp.ToolName+`"`) {
				t.Errorf("tool approval %q names tool %q (%v), want %s", asked[0].Message, tool, ok, fakemcp.ToolName)
			}
			if len(asked) > 1 {
				if _, ok := asked[1].ToolCallApproval(); ok {
					t.Errorf("the server's own question reads as a tool call approval: %s", asked[1].Meta)
				}
			}
			out := toolOutput(t, s.env.Model, "ask-1")
			if tt.form == nil {
				if !strings.Contains(out, "rejected") {
					t.Errorf("a declined tool call's output %q", out)
				}
				return
			}
			var schema struct {
				Properties map[string]struct{ Type string } `json:"properties"`
				Required   []string                         `json:"required"`
			}
			if asked[1].Message != question || json.Unmarshal(asked[1].RequestedSchema, &schema) != nil ||
				schema.Properties[fakemcp.Field].Type != "string" || len(schema.Required) != 1 {
				t.Errorf("the server's question %q with schema %s", asked[1].Message, asked[1].RequestedSchema)
			}

			// The answer reached the server, which returned it to the model.
			res := serverResult(t, out)
			content, _ := json.Marshal(tt.form.Content)
			if tt.form.Content == nil {
				content = nil
			}
			if res.Action != tt.form.Action || string(res.Content) != string(content) {
				t.Errorf("the server got %s %s, want %s %s (tool output %q)", res.Action, res.Content, tt.form.Action, content, out)
			}
			items := run.items(codex.NotifyItemCompleted, codex.ItemMcpToolCall)
			if len(items) != 1 || items[0].Status != codex.ItemCompleted || items[0].Server != codextest.QuestionServer ||
				items[0].Tool != fakemcp.ToolName || !strings.Contains(string(items[0].Result), res.Action) {
				t.Errorf("mcpToolCall items %+v", items)
			}

			// The server is codex's child: it ends with codex.
			if err := s.client.Close(); err != nil {
				t.Logf("close: %v", err)
			}
			if !proctest.WaitGone(res.Pid, 10*time.Second) {
				t.Errorf("the MCP server (pid %d) outlived codex", res.Pid)
				_ = proctest.Kill(res.Pid)
			}
		})
	}
}

// serverResult reads the fakemcp result out of the tool's output as codex gives it to the model
// ("Wall time: ...\nOutput:" and the server's text).
func serverResult(t *testing.T, out string) fakemcp.Result {
	t.Helper()
	var res fakemcp.Result
	i := strings.Index(out, "{")
	if i < 0 || json.Unmarshal([]byte(out[i:]), &res) != nil || res.Pid == 0 {
		t.Fatalf("the tool's output %q holds no result of the server", out)
	}
	return res
}

func TestRealPermissionsRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer codex.PermissionsResponse
		want   string // in the tool's output
	}{
		{"granted", codex.PermissionsResponse{
			Permissions: codex.GrantedPermissionProfile{Network: codex.AdditionalNetworkPermissions{Enabled: true}},
			Scope:       codex.ScopeTurn,
		}, `"network":{"enabled":true}`},
		{"nothing granted", codex.PermissionsResponse{}, `"network":null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startAsking(t)
			s.env.Model.Enqueue(
				fakemodel.Call("request_permissions", `{"reason":"fetch the docs","permissions":{"network":{"enabled":true}}}`).WithCallID("perm-1"),
				fakemodel.Message("Noted."),
			)
			var asked *codex.PermissionsApprovalParams
			s.decide = func(method string, params any) any {
				asked, _ = params.(*codex.PermissionsApprovalParams)
				return tt.answer
			}
			run := s.runTurn(t, "fetch")
			wantStatus(t, run, codex.TurnCompleted)
			if asked == nil || asked.Reason != "fetch the docs" || !asked.Permissions.Network.Enabled || asked.Cwd != s.env.Work ||
				asked.ItemID != "perm-1" || asked.ThreadID != s.threadID || asked.TurnID != run.id {
				t.Fatalf("permissions request %+v (requests %v)", asked, s.requested)
			}
			if out := toolOutput(t, s.env.Model, "perm-1"); !strings.Contains(out, tt.want) {
				t.Errorf("the model got %q, want it to hold %s", out, tt.want)
			}
		})
	}
}

func TestRealUserInput(t *testing.T) {
	t.Parallel()
	s := startAsking(t)
	// isSecret is not in the tool's schema, but codex 0.171.0 reads it from the model's arguments.
	s.env.Model.Enqueue(
		fakemodel.Call("request_user_input", `{"questions":[
			{"id":"colour","header":"Colour","question":"Which colour?","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cold"}]},
			{"id":"token","header":"Token","question":"Your token?","isSecret":true,"options":[{"label":"None","description":"no token"}]}
		]}`).WithCallID("input-1"),
		fakemodel.Message("Noted."),
	)
	var asked *codex.UserInputParams
	s.decide = func(method string, params any) any {
		asked, _ = params.(*codex.UserInputParams)
		return codex.UserInputResponse{Answers: codex.ToolRequestUserInputResponseAnswers{
			"colour": {Answers: []string{"Blue"}},
			"token":  {Answers: []string{"s3cret-token"}},
		}}
	}
	run := s.runTurn(t, "ask me")
	wantStatus(t, run, codex.TurnCompleted)
	if asked == nil || asked.ItemID != "input-1" || asked.ThreadID != s.threadID || asked.TurnID != run.id || len(asked.Questions) != 2 {
		t.Fatalf("user input request %+v (requests %v)", asked, s.requested)
	}
	colour, token := asked.Questions[0], asked.Questions[1]
	if colour.ID != "colour" || colour.Question != "Which colour?" || colour.IsSecret || len(colour.Options) != 2 || colour.Options[1].Label != "Blue" {
		t.Errorf("first question %+v", colour)
	}
	if token.ID != "token" || !token.IsSecret {
		t.Errorf("second question %+v, want a secret", token)
	}
	out := toolOutput(t, s.env.Model, "input-1")
	var got codex.UserInputResponse
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Answers["colour"].Answers) != 1 ||
		got.Answers["colour"].Answers[0] != "Blue" || got.Answers["token"].Answers[0] != "s3cret-token" {
		t.Errorf("the model got %q", out)
	}
}
