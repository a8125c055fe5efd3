package lsp_test

// Tests of codex's questions through the editor (permissions, MCP elicitations, the agent's
// questions), in each editor's profile: prompted one by one, left to a client that asks them
// itself, or answered through the fallback (code actions, hermes.approve).

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

var (
	choiceQuestions = []map[string]any{
		{"id": "db", "header": "Database", "question": "Which database?", "options": []map[string]any{{"label": "Postgres", "description": "the default"}, {"label": "SQLite", "description": "a file"}}},
		{"id": "env", "header": "Env", "question": "Deploy where?", "options": []map[string]any{{"label": "Dev", "description": ""}, {"label": "Prod", "description": ""}}},
	}
	typedQuestions = []map[string]any{
		{"id": "name", "header": "Name", "question": "Project name?"},
		{"id": "token", "header": "Token", "question": "API token?", "isSecret": true},
	}
)

// pickByMessage answers each prompt with the action titled by the first key its message contains.
func pickByMessage(choices map[string]string) lsptest.ShowMessageRequestHook {
	return func(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		for key, title := range choices {
			if strings.Contains(p.Message, key) {
				return lsptest.ChooseAction(title)(ctx, p)
			}
		}
		return nil, nil
	}
}

// askUserTurn scripts a turn that asks questions and completes; codex's answer comes on the
// returned channel as JSON.
func askUserTurn(f *fixture, questions []map[string]any) <-chan string {
	got := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		res, err := ft.AskUser(questions)
		b, _ := json.Marshal(res)
		if err != nil {
			b = []byte("error: " + err.Error())
		}
		got <- string(b)
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	return got
}

func TestQuestionsPromptedOneByOne(t *testing.T) {
	for _, profile := range []lsptest.Profile{lsptest.Eglot19, lsptest.LspMode8, lsptest.Neovim07, lsptest.VSCode} {
		t.Run(profile.Name, func(t *testing.T) {
			f := start(t, profile, nil, lsptest.WithShowMessageRequestHook(pickByMessage(map[string]string{"Which database?": "SQLite", "Deploy where?": "Prod"})))
			got := askUserTurn(f, choiceQuestions)
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "set it up"})
			if answer := <-got; answer != `{"answers":{"db":{"answers":["SQLite"]},"env":{"answers":["Prod"]}}}` {
				t.Fatalf("codex got %s", answer)
			}
			f.awaitEnd(ctx)
			reqs := f.ed.ShowMessageRequests()
			if len(reqs) != 2 {
				t.Fatalf("%d prompts, want one per question", len(reqs))
			}
			var titles []string
			for _, a := range reqs[0].Actions {
				titles = append(titles, a.Title)
			}
			// Decline first: an editor that pre-selects the first action never answers by accident.
			if strings.Join(titles, ",") != "Decline,Postgres,SQLite,Stop turn" {
				t.Errorf("actions %v", titles)
			}
			if m := reqs[0].Message; !strings.Contains(m, "Hermes asks") || !strings.Contains(m, "Database: Which database?") || !strings.Contains(m, "- SQLite: a file") || !strings.Contains(m, "question 1 of 2") {
				t.Errorf("first prompt: %q", m)
			}
		})
	}
}

func TestQuestionPromptDeclineAndStop(t *testing.T) {
	for _, tc := range []struct {
		title, want string
	}{{hermesproto.QuestionActionDecline, `{"action":"decline"}`}, {hermesproto.ApprovalActionStop, `{"action":"cancel"}`}} {
		t.Run(tc.title, func(t *testing.T) {
			f := start(t, lsptest.Eglot19, nil, lsptest.WithShowMessageRequestHook(lsptest.ChooseAction(tc.title)))
			got := make(chan string, 1)
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				res, err := ft.Elicit("docs", "Pick a color", json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]}}}`), "")
				b, _ := json.Marshal(res)
				if errors.Is(err, codextest.ErrInterrupted) {
					// Stop turn's interrupt reached codex before the answer: the request is
					// withdrawn, nothing granted, the turn stops all the same.
					b = []byte(`{"action":"cancel"}`)
				}
				got <- string(b)
				if res.Action == codex.ElicitationCancel || err != nil {
					<-ft.Interrupted()
					ft.Complete(codex.TurnInterrupted, nil)
					return
				}
				ft.AgentMessage("ok")
				ft.Complete(codex.TurnCompleted, nil)
			})
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "pick"})
			if answer := <-got; answer != tc.want {
				t.Fatalf("codex got %s, want %s", answer, tc.want)
			}
			f.awaitEnd(ctx)
			if reqs := f.ed.ShowMessageRequests(); len(reqs) != 1 || !strings.Contains(reqs[0].Message, "The MCP server docs asks") || !strings.Contains(reqs[0].Message, "Pick a color") {
				t.Errorf("prompts: %+v", reqs)
			}
		})
	}
}

// TestTypedQuestionsInEmacs: questions that need typing are never prompted with actions: Emacs is
// told to run M-x hermes-lsp-approve, which answers with hermes.approve.
func TestTypedQuestionsInEmacs(t *testing.T) {
	f := start(t, lsptest.Eglot19, nil)
	got := askUserTurn(f, typedQuestions)
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "name it"})
	if err := f.ed.Await(ctx, lsptest.MessageContaining("M-x hermes-lsp-approve")); err != nil {
		t.Fatalf("no message: %v\n%s", err, f.ed.State())
	}
	if n := len(f.ed.ShowMessageRequests()); n != 0 {
		t.Errorf("%d prompts for typed questions", n)
	}
	id := pendingID(ctx, t, f)
	const secret = "tok-3141592653"
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdApprove, map[string]any{"approvalId": id, "decision": "once", "answers": map[string]any{"name": []string{"calc"}}}); err == nil {
		t.Error("answers without the token were accepted")
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdApprove, map[string]any{"approvalId": id, "decision": "once", "answers": map[string]any{"name": []string{"calc"}, "token": []string{secret}}}); err != nil {
		t.Fatal(err)
	}
	if answer := <-got; answer != `{"answers":{"name":{"answers":["calc"]},"token":{"answers":["`+secret+`"]}}}` {
		t.Fatalf("codex got %s", answer)
	}
	f.awaitEnd(ctx)
	// The secret went to codex only: no notification to the editor holds it.
	for method, all := range f.ed.State().Notifications {
		for _, raw := range all {
			if strings.Contains(string(raw), secret) {
				t.Errorf("%s carried the secret: %s", method, raw)
			}
		}
	}
}

// pendingID is the folder's one pending approval, from hermes.status, which lists its questions.
func pendingID(ctx context.Context, t *testing.T, f *fixture) string {
	t.Helper()
	raw, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st hermesproto.Status
	_ = json.Unmarshal(raw, &st)
	if len(st.Folders) != 1 || len(st.Folders[0].PendingApprovals) != 1 || len(st.Folders[0].PendingApprovals[0].Questions) == 0 {
		t.Fatalf("status: %s", raw)
	}
	return st.Folders[0].PendingApprovals[0].ApprovalID
}

// TestQuestionFallbackCodeActions: Helix 25.01 cannot prompt; the message says how to answer and
// the code actions answer a single question with options.
func TestQuestionFallbackCodeActions(t *testing.T) {
	f := start(t, lsptest.Helix2501, nil)
	got := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		res, _ := ft.Elicit("docs", "Pick a color", json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]}},"required":["color"]}`), "")
		b, _ := json.Marshal(res)
		got <- string(b)
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	path := f.file("main.go", "package main\n")
	if err := f.ed.OpenFile(ctx, path, "package main\n"); err != nil {
		t.Fatal(err)
	}
	f.ask(ctx, map[string]any{"prompt": "pick", "uri": workspace.URIFromPath(path)})
	if err := f.ed.Await(ctx, lsptest.MessageContaining(`"answers":{"color":["…"]}`)); err != nil {
		t.Fatalf("no fallback message with the way to answer: %v\n%s", err, f.ed.State())
	}
	actions, err := f.ed.CodeActions(ctx, path, protocol.Range{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	var green *protocol.CodeAction
	for i, a := range actions {
		titles = append(titles, a.Title)
		if strings.HasPrefix(a.Title, "Hermes: answer Green: ") {
			green = &actions[i]
		}
	}
	if len(titles) == 0 || titles[0] != hermesproto.CodeActionTitleDecline+"docs: Pick a color" || green == nil {
		t.Fatalf("code actions: %v", titles)
	}
	if _, err := f.ed.ExecuteCommand(ctx, green.Command.Command, green.Command.Arguments...); err != nil {
		t.Fatal(err)
	}
	if answer := <-got; answer != `{"action":"accept","content":{"color":"g"}}` {
		t.Fatalf("codex got %s", answer)
	}
	f.awaitEnd(ctx)
}

// TestClientAsksQuestionsItself: a client with experimental.hermes.asksQuestions gets neither a
// prompt nor a message: it asks from the approvalWaiting event and answers with hermes.approve.
func TestClientAsksQuestionsItself(t *testing.T) {
	for _, base := range []lsptest.Profile{lsptest.VSCode, lsptest.Neovim07} {
		t.Run(base.Name, func(t *testing.T) {
			profile := base.Clone()
			profile.Capabilities.Experimental = map[string]any{"hermes": map[string]any{"asksQuestions": true}}
			f := start(t, profile, nil)
			got := askUserTurn(f, choiceQuestions)
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "set it up"})
			var waiting hermesproto.Approval
			err := f.ed.Await(ctx, func(s *lsptest.State) bool {
				for _, raw := range s.Notifications[hermesproto.MethodTurnEvent] {
					var p hermesproto.TurnEventParams
					if json.Unmarshal(raw, &p) == nil && p.Event.Kind == hermesproto.EventKindApprovalWaiting {
						waiting = *p.Event.Approval
						return true
					}
				}
				return false
			})
			if err != nil || len(waiting.Questions) != 2 || waiting.Questions[0].Options[1].Label != "SQLite" {
				t.Fatalf("approvalWaiting: %+v (%v)", waiting, err)
			}
			if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdApprove, map[string]any{"approvalId": waiting.ID, "decision": "once", "answers": map[string]any{"db": []string{"Postgres"}, "env": []string{"Dev"}}}); err != nil {
				t.Fatal(err)
			}
			if answer := <-got; answer != `{"answers":{"db":{"answers":["Postgres"]},"env":{"answers":["Dev"]}}}` {
				t.Fatalf("codex got %s", answer)
			}
			f.awaitEnd(ctx)
			if n := len(f.ed.ShowMessageRequests()); n != 0 {
				t.Errorf("%d prompts", n)
			}
			for _, m := range f.ed.Messages() {
				if strings.Contains(m.Message, "Which database?") {
					t.Errorf("a message about the question: %q", m.Message)
				}
			}
		})
	}
}

func TestPermissionsPrompt(t *testing.T) {
	f := start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(lsptest.ChooseAction(hermesproto.ApprovalActionAllowSession)))
	got := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		res, _ := ft.RequestPermissions(map[string]any{"network": map[string]any{"enabled": true}, "fileSystem": map[string]any{"write": []string{"/srv/out"}}}, "upload the build")
		b, _ := json.Marshal(res)
		got <- string(b)
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "upload"})
	if answer := <-got; answer != `{"permissions":{"fileSystem":{"write":["/srv/out"]},"network":{"enabled":true}},"scope":"session"}` {
		t.Fatalf("codex got %s", answer)
	}
	f.awaitEnd(ctx)
	reqs := f.ed.ShowMessageRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d prompts", len(reqs))
	}
	m := reqs[0].Message
	for _, want := range []string{"network access", "write access to /srv/out", "OUTSIDE THE WORKSPACE FOLDER: /srv/out", "Reason: upload the build", "for this turn"} {
		if !strings.Contains(m, want) {
			t.Errorf("prompt %q does not say %q", m, want)
		}
	}
}
