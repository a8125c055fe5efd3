package lsp_test

// Tests of approvals through the editor: answered, shown as a diff, and the code-action fallback.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

func TestExecApprovalAnswers(t *testing.T) {
	tests := []struct {
		action string
		want   string
	}{
		{hermesproto.ApprovalActionAllowOnce, codex.DecisionAccept},
		{hermesproto.ApprovalActionAllowSession, codex.DecisionAcceptForSession},
		{hermesproto.ApprovalActionDeny, codex.DecisionDecline},
		{hermesproto.ApprovalActionStop, codex.DecisionCancel},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			f := start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(lsptest.ChooseAction(tt.action)))
			decided := make(chan string, 1)
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				d, err := ft.RequestExecApproval("rm -rf build")
				if err != nil {
					decided <- "error: " + err.Error()
					return
				}
				decided <- d
				if d == codex.DecisionCancel {
					ft.Complete(codex.TurnInterrupted, nil)
					return
				}
				ft.AgentMessage("ok")
				ft.Complete(codex.TurnCompleted, nil)
			})
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "clean"})
			if got := <-decided; got != tt.want {
				t.Fatalf("codex got %q, want %q", got, tt.want)
			}
			f.awaitEnd(ctx)
			reqs := f.ed.ShowMessageRequests()
			if len(reqs) != 1 || !strings.Contains(reqs[0].Message, "rm -rf build") || !strings.Contains(reqs[0].Message, f.folder) {
				t.Fatalf("prompt: %+v", reqs)
			}
			var titles []string
			for _, a := range reqs[0].Actions {
				titles = append(titles, a.Title)
			}
			if strings.Join(titles, ",") != "Deny,Allow once,Allow for session,Stop turn" {
				t.Errorf("actions %v", titles)
			}
		})
	}
}

func TestPatchApprovalShowDiff(t *testing.T) {
	answers := []string{hermesproto.ApprovalActionShowDiff, hermesproto.ApprovalActionAllowOnce}
	var f *fixture
	diffText := make(chan string, 1) // the shown diff, read while the person decides
	hook := func(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		title := answers[0]
		answers = answers[1:]
		if title == hermesproto.ApprovalActionAllowOnce {
			if docs := f.ed.ShowDocuments(); len(docs) > 0 {
				path, _ := workspace.PathFromURI(string(docs[0].URI))
				b, err := os.ReadFile(path)
				if err != nil {
					b = []byte(err.Error())
				}
				diffText <- string(b)
			}
		}
		return lsptest.ChooseAction(title)(ctx, p)
	}
	f = start(t, lsptest.VSCode, nil, lsptest.WithShowMessageRequestHook(hook))
	decided := make(chan string, 1)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		var change codex.FileChange
		change.Path = filepath.Join(ft.Cwd, "hello.txt")
		change.Kind.Type = "add"
		change.Diff = "hello\n"
		d, _ := ft.RequestPatchApproval([]codex.FileChange{change}, "make a greeting", "")
		decided <- d
		ft.AgentMessage("patched")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	f.ask(ctx, map[string]any{"prompt": "add hello"})
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("decision %q", got)
	}
	f.awaitEnd(ctx)
	reqs := f.ed.ShowMessageRequests()
	if len(reqs) != 2 || !strings.Contains(reqs[0].Message, "add hello.txt") || !strings.Contains(reqs[0].Message, "make a greeting") {
		t.Fatalf("prompts: %+v", reqs)
	}
	docs := f.ed.ShowDocuments()
	if len(docs) < 1 || !strings.HasSuffix(string(docs[0].URI), ".diff") {
		t.Fatalf("diff not shown: %+v", docs)
	}
	if diff := <-diffText; !strings.Contains(diff, "+hello") {
		t.Fatalf("diff file %q", diff)
	}
	path, _ := workspace.PathFromURI(string(docs[0].URI))
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the diff file outlived the decision: %v", err)
	}
}

// TestDismissedApprovalStaysPending: a prompt closed without a choice (Escape, a stray key: a null
// answer) is no Deny, and never an Allow: the approval stays pending, the person is told in words
// for their editor (no JSON) how to answer it, a code action answers it, and the next approval is
// asked with a prompt again. Each client: VS Code, Neovim 0.7, and the Emacs clients that answer
// prompts without advertising them.
func TestDismissedApprovalStaysPending(t *testing.T) {
	for _, tc := range []struct {
		profile lsptest.Profile
		way     string // how the message says to answer
	}{
		{lsptest.VSCode, "from the code actions, or run hermes.approve"},
		{lsptest.Neovim07, "from the code actions, or run hermes.approve"},
		{lsptest.LspMode8, "from the code actions (`M-x hermes-lsp-approve`)"},
		{lsptest.Eglot19, "from the code actions (`M-x hermes-lsp-approve`)"},
	} {
		t.Run(tc.profile.Name, func(t *testing.T) {
			prompts := make(chan struct{}, 2)
			hook := func(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
				prompts <- struct{}{}
				if len(prompts) == 1 && strings.Contains(p.Message, "make build") {
					return lsptest.Dismiss(ctx, p)
				}
				return lsptest.ChooseAction(hermesproto.ApprovalActionAllowOnce)(ctx, p)
			}
			f := start(t, tc.profile, nil, lsptest.WithShowMessageRequestHook(hook))
			decided := make(chan string, 2)
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				for _, cmd := range []string{"make build", "make install"} {
					d, err := ft.RequestExecApproval(cmd)
					if err != nil {
						d = err.Error()
					}
					decided <- d
				}
				ft.AgentMessage("built")
				ft.Complete(codex.TurnCompleted, nil)
			})
			ctx := testCtx(t)
			path := f.file("Makefile", "all:\n")
			if err := f.ed.OpenFile(ctx, path, "all:\n"); err != nil {
				t.Fatal(err)
			}
			f.ask(ctx, map[string]any{"prompt": "build it", "uri": workspace.URIFromPath(path)})

			want := "Hermes wants to run `make build`"
			if err := f.ed.Await(ctx, lsptest.MessageContaining(want)); err != nil {
				t.Fatalf("no message after the dismissal: %v\n%s", err, f.ed.State())
			}
			var msg string
			for _, m := range f.ed.Messages() {
				if strings.Contains(m.Message, want) {
					msg = m.Message
				}
			}
			if !strings.Contains(msg, ": choose Allow or Deny "+tc.way) || strings.ContainsAny(msg, "{}") {
				t.Errorf("the fallback's words: %q", msg)
			}
			select {
			case d := <-decided:
				t.Fatalf("the dismissed approval was decided %q", d)
			default:
			}
			if st := status(t, f); len(st.PendingApprovals) != 1 {
				t.Fatalf("pending after the dismissal: %+v", st.PendingApprovals)
			}
			actions, err := f.ed.CodeActions(ctx, path, protocol.Range{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var allow *protocol.CodeAction
			for i, a := range actions {
				if a.Title == hermesproto.CodeActionTitleAllowOnce+"make build" {
					allow = &actions[i]
				}
			}
			if allow == nil {
				t.Fatalf("no allow-once code action for the dismissed approval: %+v", actions)
			}
			if _, err := f.ed.ExecuteCommand(ctx, allow.Command.Command, allow.Command.Arguments...); err != nil {
				t.Fatal(err)
			}
			if got := <-decided; got != codex.DecisionAccept {
				t.Fatalf("the dismissed approval, answered by its code action: %q", got)
			}
			// The next approval is asked with a prompt again.
			if got := <-decided; got != codex.DecisionAccept {
				t.Fatalf("the next approval: %q", got)
			}
			f.awaitEnd(ctx)
			if n := len(approvalPrompts(f.ed)); n != 2 {
				t.Errorf("%d prompts, want 2 (the dismissed one, the next one)", n)
			}
		})
	}
}

// TestApprovalAskedWhateverTheCapability: lsp-mode 8 and eglot 1.9 do not advertise
// window.showMessage but answer window/showMessageRequest: their approvals are asked with a prompt.
// eglot 1.9 in batch, whose prompt fails (-32603), gets that approval declined: never granted.
func TestApprovalAskedWhateverTheCapability(t *testing.T) {
	for _, tc := range []struct {
		profile lsptest.Profile
		want    string
	}{{lsptest.LspMode8, codex.DecisionAccept}, {lsptest.Eglot19, codex.DecisionAccept}, {lsptest.Eglot, codex.DecisionDecline}} {
		t.Run(tc.profile.Name, func(t *testing.T) {
			f := start(t, tc.profile, nil, lsptest.WithShowMessageRequestHook(lsptest.ChooseAction(hermesproto.ApprovalActionAllowOnce)))
			decided := make(chan string, 1)
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				d, _ := ft.RequestExecApproval("go test ./...")
				decided <- d
				ft.Complete(codex.TurnCompleted, nil)
			})
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "test"})
			if got := <-decided; got != tc.want {
				t.Fatalf("decision %q, want %q", got, tc.want)
			}
			if reqs := approvalPrompts(f.ed); len(reqs) != 1 || !strings.Contains(reqs[0].Message, "go test ./...") {
				t.Fatalf("prompts: %+v", reqs)
			}
		})
	}
}

// Helix 25.01 answers showMessageRequest with -32601: approvals fall back to a message, code
// actions and hermes.approve.
func TestApprovalFallbackCodeActionsAndApprove(t *testing.T) {
	f := start(t, lsptest.Helix2501, nil)
	decided := make(chan string, 2)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		for _, cmd := range []string{"make build", "make install"} {
			d, err := ft.RequestExecApproval(cmd)
			if err != nil {
				decided <- err.Error()
				return
			}
			decided <- d
		}
		ft.AgentMessage("built")
		ft.Complete(codex.TurnCompleted, nil)
	})
	ctx := testCtx(t)
	path := f.file("Makefile", "all:\n")
	if err := f.ed.OpenFile(ctx, path, "all:\n"); err != nil {
		t.Fatal(err)
	}
	f.ask(ctx, map[string]any{"prompt": "build it", "uri": workspace.URIFromPath(path)})

	// First approval: through the code action.
	if err := f.ed.Await(ctx, lsptest.MessageContaining("hermes.approve")); err != nil {
		t.Fatalf("no fallback message: %v\n%s", err, f.ed.State())
	}
	actions, err := f.ed.CodeActions(ctx, path, protocol.Range{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var allow *protocol.CodeAction
	titles := []string{}
	for i, a := range actions {
		titles = append(titles, a.Title)
		if a.Title == hermesproto.CodeActionTitleAllowOnce+"make build" {
			allow = &actions[i]
		}
	}
	if allow == nil {
		t.Fatalf("no allow-once code action: %v", titles)
	}
	if !contains(titles, hermesproto.CodeActionTitleStopTurn) || !contains(titles, hermesproto.CodeActionTitleDeny+"make build") {
		t.Errorf("code actions: %v", titles)
	}
	// Deny is the first action: an editor that pre-selects it never grants by accident.
	if titles[0] != hermesproto.CodeActionTitleDeny+"make build" {
		t.Errorf("first code action %q, want the deny", titles[0])
	}
	if _, err := f.ed.ExecuteCommand(ctx, allow.Command.Command, allow.Command.Arguments...); err != nil {
		t.Fatal(err)
	}
	if got := <-decided; got != codex.DecisionAccept {
		t.Fatalf("first decision %q", got)
	}

	// Second approval: hermes.approve with the id from hermes.status.
	var id string
	if err := f.ed.Await(ctx, lsptest.MessageContaining("make install")); err != nil {
		t.Fatal(err)
	}
	raw, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdStatus)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Folders []hermesproto.FolderStatus `json:"folders"`
	}
	_ = json.Unmarshal(raw, &st)
	if len(st.Folders) != 1 || len(st.Folders[0].PendingApprovals) != 1 || st.Folders[0].Turn == nil || st.Folders[0].Turn.State != "running" {
		t.Fatalf("status: %s", raw)
	}
	id = st.Folders[0].PendingApprovals[0].ApprovalID
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdApprove, map[string]any{"approvalId": id, "decision": "deny"}); err != nil {
		t.Fatal(err)
	}
	if got := <-decided; got != codex.DecisionDecline {
		t.Fatalf("second decision %q", got)
	}
	f.awaitEnd(ctx)
	// The first approval tried the prompt, which Helix 25.01 answered -32601: never tried again.
	if n := len(f.ed.ShowMessageRequests()); n != 1 {
		t.Errorf("%d prompts, want 1 (answered -32601, then the fallback for the session)", n)
	}
	// A bad decision and an unknown approval are clear errors.
	_, err = f.ed.ExecuteCommand(ctx, hermesproto.CmdApprove, map[string]any{"approvalId": id, "decision": "maybe"})
	if code, _ := lsptest.ErrorCode(err); code != jsonrpc2.InvalidParams {
		t.Errorf("bad decision: %v", err)
	}
	_, err = f.ed.ExecuteCommand(ctx, hermesproto.CmdApprove, map[string]any{"approvalId": id, "decision": "once"})
	if err == nil || !strings.Contains(err.Error(), id) {
		t.Errorf("answering a settled approval: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestApprovalPromptNamesItsApproval: an editor that keeps an action item's own properties (VS
// Code) gets the approval's id in each item, the one hermes.status lists; one that does not
// (Neovim 0.7) gets bare titles.
func TestApprovalPromptNamesItsApproval(t *testing.T) {
	for _, tc := range []struct {
		profile lsptest.Profile
		withID  bool
	}{{lsptest.VSCode, true}, {lsptest.Neovim07, false}} {
		t.Run(tc.profile.Name, func(t *testing.T) {
			f := start(t, tc.profile, nil, lsptest.WithShowMessageRequestHook(lsptest.ChooseAction(hermesproto.ApprovalActionAllowOnce)))
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				_, _ = ft.RequestExecApproval("make")
				ft.AgentMessage("ok")
				ft.Complete(codex.TurnCompleted, nil)
			})
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "build"})
			f.awaitEnd(ctx)
			raws := f.ed.State().Requests[protocol.MethodWindowShowMessageRequest]
			if len(raws) != 1 {
				t.Fatalf("%d prompts, want 1", len(raws))
			}
			var p struct {
				Actions []map[string]any `json:"actions"`
			}
			if err := json.Unmarshal(raws[0], &p); err != nil {
				t.Fatal(err)
			}
			for _, a := range p.Actions {
				id, has := a["approvalId"]
				if has != tc.withID || (tc.withID && id != "a1") {
					t.Errorf("action %v: approvalId %v, want it %v (a1)", a, id, tc.withID)
				}
			}
		})
	}
}
