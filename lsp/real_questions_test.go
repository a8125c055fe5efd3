package lsp_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemcp"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// nextQuestion waits for the next approval with questions to type (an elicitation's form, the
// agent's questions) whose id is not in done, and fails the test if the turn ends first.
func nextQuestion(ctx context.Context, t *testing.T, ed *lsptest.Editor, done map[string]bool) hermesproto.Approval {
	t.Helper()
	var (
		found hermesproto.Approval
		ended bool
	)
	err := ed.Await(ctx, func(s *lsptest.State) bool {
		for _, raw := range s.Notifications[hermesproto.MethodTurnEvent] {
			var ev hermesproto.TurnEventParams
			if json.Unmarshal(raw, &ev) != nil {
				continue
			}
			a := ev.Event.Approval
			switch {
			case ev.Event.Kind == hermesproto.EventKindApprovalWaiting && a != nil && len(a.Questions) > 0 && !done[a.ID]:
				found = *a
				done[a.ID] = true
				return true
			case ev.Event.Kind == hermesproto.EventKindTurnCompleted:
				ended = true
				return true
			}
		}
		return false
	})
	if err != nil || ended {
		t.Fatalf("no question to answer before the turn ended (%v)\n%s", err, ed.State())
	}
	return found
}

// TestRealQuestionsInTheEditor is the whole path on the real codex: the model makes codex ask each
// of its questions (an MCP server's form, after codex's own elicitation that approves calling the
// server's tool; wider permissions; the agent's questions, one of them secret), the server asks a
// Neovim 0.7 editor (a prompt for what can be picked, else the fallback message, answered with
// hermes.approve as the person would), and each answer reaches whoever asked: the MCP server, then
// the model. The secret answer reaches the model only: the editor never sees it again and no
// transcript holds it.
func TestRealQuestionsInTheEditor(t *testing.T) {
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

	srv := lsp.NewServer(lsp.Options{ClientTimeout: 5 * time.Second})
	serverEnd, clientEnd := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	ed, err := lsptest.Connect(ctx, clientEnd, lsptest.Neovim07)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ed.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop after the editor went away")
		}
		proctest.EndCodex(t, env.CodexHome)
	})
	// The person accepts the tool call and allows the network for the turn in the prompts; the
	// agent's questions they dismiss, to type the secret (answered below with hermes.approve).
	ed.OnShowMessageRequest(func(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		switch {
		case strings.Contains(p.Message, `run tool "`+fakemcp.ToolName+`"`):
			return &protocol.MessageActionItem{Title: hermesproto.QuestionActionAccept}, nil
		case strings.Contains(p.Message, "network access"):
			return &protocol.MessageActionItem{Title: hermesproto.ApprovalActionAllowOnce}, nil
		}
		return nil, nil
	})
	state := filepath.Join(env.Home, "state")
	settings := env.HermesSettings(state)
	settings["turnEvents"] = true
	if _, err := ed.Initialize(ctx, []string{env.Work}, settings); err != nil {
		t.Fatal(err)
	}
	if _, err := ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "ask me everything"}); err != nil {
		t.Fatal(err)
	}

	// The server's form has a field to type: no prompt can ask it, the fallback message does. The
	// agent's questions are prompted (dismissed: the secret is typed), then in the fallback message.
	done := make(map[string]bool)
	form := nextQuestion(ctx, t, ed, done)
	if form.Kind != hermesproto.ApprovalKindElicitation || form.Server != codextest.QuestionServer || form.Message != question || form.Questions[0].ID != fakemcp.Field {
		t.Fatalf("the first question to type is not the server's form: %+v", form)
	}
	// approve answers a question with hermes.approve once the fallback message asks for it, as the
	// person who read it would.
	approve := func(id string, answers map[string][]string) {
		t.Helper()
		if err := ed.Await(ctx, func(s *lsptest.State) bool {
			for _, m := range s.ShowMessages {
				if strings.Contains(m.Message, "approval "+id) && strings.Contains(m.Message, hermesproto.CmdApprove) {
					return true
				}
			}
			return false
		}); err != nil {
			t.Fatalf("no fallback message for approval %s: %v\n%s", id, err, ed.State())
		}
		args := hermesproto.ApproveArgs{ApprovalID: id, Decision: string(hermesproto.DecisionOnce), Answers: answers}
		if _, err := ed.ExecuteCommand(ctx, hermesproto.CmdApprove, args); err != nil {
			t.Fatalf("hermes.approve %s: %v", id, err)
		}
	}
	approve(form.ID, map[string][]string{fakemcp.Field: {"blue"}})
	input := nextQuestion(ctx, t, ed, done)
	if input.Kind != hermesproto.ApprovalKindUserInput || len(input.Questions) != 2 || !input.Questions[1].Secret {
		t.Fatalf("the second question to type is not the agent's: %+v", input)
	}
	approve(input.ID, map[string][]string{"colour": {"Blue"}, "token": {secret}})
	if err := ed.Await(ctx, lsptest.Announced(1)); err != nil {
		t.Fatalf("the turn did not end: %v\n%s", err, ed.State())
	}

	// What the person was asked in prompts: the tool call, the permissions, the agent's first question.
	var prompts []string
	for _, r := range ed.ShowMessageRequests() {
		prompts = append(prompts, r.Message)
	}
	all := strings.Join(prompts, "\n---\n")
	for _, want := range []string{`run tool "` + fakemcp.ToolName + `"`, "network access", "Which colour?"} {
		if !strings.Contains(all, want) {
			t.Errorf("no prompt says %q; prompts:\n%s", want, all)
		}
	}

	// Each answer reached whoever asked.
	outputs := toolOutputs(env.Model)
	if !strings.Contains(outputs["ask-1"], `"action":"accept","content":{"answer":"blue"}`) {
		t.Errorf("the MCP server's tool returned %q, want the accepted form", outputs["ask-1"])
	}
	if !strings.Contains(outputs["perm-1"], `"network":{"enabled":true}`) {
		t.Errorf("the model got the grant %q", outputs["perm-1"])
	}
	if !strings.Contains(outputs["input-1"], `"colour":{"answers":["Blue"]}`) || !strings.Contains(outputs["input-1"], secret) {
		t.Errorf("the model got the answers %q", outputs["input-1"])
	}

	// The secret went to codex only: nothing the editor was sent holds it, nor any transcript.
	st := ed.State()
	sent, err := json.Marshal([]any{st.Notifications, st.Requests})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sent), "Which colour?") {
		t.Fatal("the editor's record of what it was sent lacks the questions")
	}
	if strings.Contains(string(sent), secret) {
		t.Error("the editor was sent the secret answer")
	}
	transcripts, err := filepath.Glob(filepath.Join(state, "transcripts", "*"))
	if err != nil || len(transcripts) == 0 {
		t.Fatalf("no transcripts in %s: %v", state, err)
	}
	var blue bool
	for _, path := range transcripts {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret answer", filepath.Base(path))
		}
		blue = blue || strings.Contains(string(data), "Blue")
	}
	if !blue {
		t.Errorf("no transcript records the answer that is not secret: %v", transcripts)
	}
}

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
