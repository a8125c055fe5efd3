package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// command runs a hermes command and decodes its result into out.
func command(t *testing.T, f *fixture, name string, args any, out any) {
	t.Helper()
	raw, err := f.ed.ExecuteCommand(testCtx(t), name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, raw)
		}
	}
}

// TestThreadsAndResume: two threads in a folder are listed newest first, titled by their first
// prompt; resuming the first makes the next turn run on it.
func TestThreadsAndResume(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true})
	ctx := testCtx(t)
	var turns []*codextest.FakeTurn
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		turns = append(turns, ft)
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	first := f.ask(ctx, map[string]any{"prompt": "Add a Sum function\nwith tests"})
	f.awaitEndN(ctx, 1)
	command(t, f, hermesproto.CmdNewThread, map[string]any{}, nil)
	second := f.ask(ctx, map[string]any{"prompt": "Document the package"})
	f.awaitEndN(ctx, 2)
	if first.ThreadID == second.ThreadID {
		t.Fatalf("newThread kept thread %s", first.ThreadID)
	}

	// Each new thread is named after its first turn ended.
	if _, err := f.fake.WaitRequest(ctx, "thread/name/set", 2); err != nil {
		t.Fatal(err)
	}
	var threads []hermesproto.ThreadInfo
	command(t, f, hermesproto.CmdThreads, map[string]any{}, &threads)
	if len(threads) != 2 || threads[0].ThreadID != second.ThreadID || threads[1].ThreadID != first.ThreadID {
		t.Fatalf("threads: %+v", threads)
	}
	if threads[0].Title != "Document the package" || threads[1].Title != "Add a Sum function" || !threads[0].Current || threads[1].Current {
		t.Errorf("threads' titles and current: %+v", threads)
	}
	if threads[1].Turns != 1 {
		t.Errorf("turns of the first thread: %d, want 1", threads[1].Turns)
	}

	var resumed hermesproto.ResumeThreadResult
	command(t, f, hermesproto.CmdResumeThread, map[string]any{"threadId": first.ThreadID}, &resumed)
	if resumed.ThreadID != first.ThreadID {
		t.Fatalf("resumed %+v", resumed)
	}
	third := f.ask(ctx, map[string]any{"prompt": "And now?"})
	f.awaitEndN(ctx, 3)
	if third.ThreadID != first.ThreadID || turns[2].ThreadID != first.ThreadID {
		t.Errorf("the turn after resume ran on %s (codex %s), want %s", third.ThreadID, turns[2].ThreadID, first.ThreadID)
	}
	if th := f.fake.Threads()[first.ThreadID]; len(th.Resumes) == 0 {
		t.Errorf("codex was not asked to resume %s", first.ThreadID)
	}
	// A thread of another folder, or no thread at all, is refused.
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdResumeThread, map[string]any{"threadId": "thread-99"}); err == nil || !strings.Contains(err.Error(), "is not one of") {
		t.Errorf("resume of an unknown thread: %v", err)
	}
}

// TestModelsAndEffort: hermes.models lists codex's models with the current one; hermes.setModel's
// model and effort reach turn/start, and hermes.ask's override them for its turn.
func TestModelsAndEffort(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true})
	ctx := testCtx(t)
	var params []codex.TurnStartParams
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		params = append(params, ft.Params)
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	var models []hermesproto.ModelInfo
	command(t, f, hermesproto.CmdModels, map[string]any{}, &models)
	if len(models) != 2 || models[0].ID != codextest.FakeModel || !models[0].Current || models[1].Current ||
		strings.Join(models[1].Efforts, ",") != "minimal,low" || models[0].DefaultEffort != "medium" {
		t.Fatalf("models: %+v", models)
	}
	command(t, f, hermesproto.CmdSetModel, map[string]any{"model": "gpt-5.5-mini", "effort": "low"}, nil)
	f.ask(ctx, map[string]any{"prompt": "one"})
	f.awaitEndN(ctx, 1)
	f.ask(ctx, map[string]any{"prompt": "two", "effort": "minimal"})
	f.awaitEndN(ctx, 2)
	if params[0].Model != "gpt-5.5-mini" || params[0].Effort != "low" || params[1].Model != "gpt-5.5-mini" || params[1].Effort != "minimal" {
		t.Errorf("turn/start model and effort: %q/%q, %q/%q", params[0].Model, params[0].Effort, params[1].Model, params[1].Effort)
	}
	command(t, f, hermesproto.CmdModels, map[string]any{}, &models)
	if models[0].Current || !models[1].Current {
		t.Errorf("current model after setModel: %+v", models)
	}
	var st hermesproto.Status
	command(t, f, hermesproto.CmdStatus, nil, &st)
	if st.Folders[0].Model != "gpt-5.5-mini" || st.Folders[0].Effort != "low" {
		t.Errorf("status model and effort: %+v", st.Folders[0])
	}
	for bad, want := range map[string]string{
		`{"model": "gpt-5.5-mini", "effort": "high"}`: "gpt-5.5-mini has no reasoning effort \"high\"",
		`{"model": "x", "effort": "Max!"}`:            "is not a reasoning effort",
	} {
		var args map[string]any
		_ = json.Unmarshal([]byte(bad), &args)
		if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdSetModel, args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("setModel %s: %v, want %q", bad, err, want)
		}
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "x", "effort": "no such"}); err == nil {
		t.Errorf("ask with a malformed effort was taken")
	}
}

// TestRateLimitsInStatusAndProgress: the account's rate limits show in hermes.status, and a
// window over 80 % used in the progress reports.
func TestRateLimitsInStatusAndProgress(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true})
	ctx := testCtx(t)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		f.fake.SetRateLimits(85, 20)
		ft.Exec("go vet ./...", 0, "")
		ft.AgentMessage("ok")
		ft.Complete(codex.TurnCompleted, nil)
	})
	f.ask(ctx, map[string]any{"prompt": "vet"})
	f.awaitEnd(ctx)
	var st hermesproto.Status
	command(t, f, hermesproto.CmdStatus, nil, &st)
	if rl := st.RateLimits; rl == nil || rl.Primary == nil || rl.Primary.UsedPercent != 85 || rl.Primary.WindowMinutes != 300 || rl.Secondary.UsedPercent != 20 {
		t.Fatalf("status rateLimits: %+v", st.RateLimits)
	}
	var saw bool
	for _, p := range progressOf(f.ed) {
		saw = saw || strings.Contains(p.Message, "rate limit 85% of 5h")
	}
	if !saw {
		t.Errorf("no progress report names the rate limit: %+v", progressOf(f.ed))
	}
}

// TestResumeThreadCodeActions: an editor without a thread picker (Helix) gets a code action per
// past thread; VS Code, which has one, gets none.
func TestResumeThreadCodeActions(t *testing.T) {
	for _, tc := range []struct {
		profile lsptest.Profile
		want    int
	}{{lsptest.Helix2501, 1}, {lsptest.VSCode, 0}} {
		t.Run(tc.profile.Name, func(t *testing.T) {
			f := start(t, tc.profile, map[string]any{"yolo": true})
			ctx := testCtx(t)
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				ft.AgentMessage("ok")
				ft.Complete(codex.TurnCompleted, nil)
			})
			first := f.ask(ctx, map[string]any{"prompt": "First task"})
			f.awaitEndN(ctx, 1)
			command(t, f, hermesproto.CmdNewThread, map[string]any{}, nil)
			f.ask(ctx, map[string]any{"prompt": "Second task"})
			f.awaitEndN(ctx, 2)
			path := f.file("a.go", "package a\n")
			if err := f.ed.OpenFile(ctx, path, "package a\n"); err != nil {
				t.Fatal(err)
			}
			var resume []protocol.CodeAction
			for _, a := range codeActionsAt(t, f, path) {
				if strings.HasPrefix(a.Title, "Hermes: resume a past thread… ") {
					resume = append(resume, a)
				}
			}
			if len(resume) != tc.want {
				t.Fatalf("resume actions: %+v", resume)
			}
			if tc.want == 0 {
				return
			}
			if !strings.Contains(resume[0].Title, "First task") {
				t.Errorf("resume action %q", resume[0].Title)
			}
			raw, _ := json.Marshal(resume[0].Command.Arguments[0])
			var args map[string]any
			_ = json.Unmarshal(raw, &args)
			var res hermesproto.ResumeThreadResult
			command(t, f, resume[0].Command.Command, args, &res)
			if res.ThreadID != first.ThreadID {
				t.Errorf("the action resumed %s, want %s", res.ThreadID, first.ThreadID)
			}
		})
	}
}

// codeActionsAt asks for the code actions at the start of path.
func codeActionsAt(t *testing.T, f *fixture, path string) []protocol.CodeAction {
	t.Helper()
	var actions []protocol.CodeAction
	if err := f.ed.Call(testCtx(t), "textDocument/codeAction", &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	return actions
}

// TestThreadHistoryCommand: hermes.threadHistory answers the folder's thread as codex keeps it
// (empty before the first turn), another of its threads by id, and refuses a thread of no folder;
// codex's text crosses the wire without escape sequences.
func TestThreadHistoryCommand(t *testing.T) {
	f := start(t, lsptest.VSCode, map[string]any{"yolo": true})
	ctx := testCtx(t)
	var empty hermesproto.ThreadHistory
	command(t, f, hermesproto.CmdThreadHistory, map[string]any{}, &empty)
	if empty.ThreadID != "" || empty.Turns == nil || len(empty.Turns) != 0 || empty.Folder != f.folder {
		t.Fatalf("history before any turn: %+v", empty)
	}

	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Exec("go test ./...", 0, "ok\n")
		ft.AgentMessage("Answer to " + ft.Prompt + " \x1b[31mred\x1b[0m")
		ft.Complete(codex.TurnCompleted, nil)
	})
	first := f.ask(ctx, map[string]any{"prompt": "Add a Sum function"})
	f.awaitEndN(ctx, 1)
	f.ask(ctx, map[string]any{"prompt": "Test it"})
	f.awaitEndN(ctx, 2)

	raw, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdThreadHistory, map[string]any{"uri": uri.File(f.folder)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `\u001b`) {
		t.Errorf("an escape sequence reached the client: %s", raw)
	}
	var h hermesproto.ThreadHistory
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	if h.ThreadID != first.ThreadID || len(h.Turns) != 2 || h.Truncated || h.TranscriptPath == "" || !strings.HasSuffix(h.TranscriptPath, first.ThreadID+".md") {
		t.Fatalf("history: %s", raw)
	}
	turn := h.Turns[0]
	if turn.TurnID != first.TurnID || turn.Status != "completed" || len(turn.Items) != 3 {
		t.Fatalf("first turn: %+v", turn)
	}
	if it := turn.Items[0]; it.Kind != hermesproto.HistoryItemKindUser || !strings.HasPrefix(it.Text, "Add a Sum function") {
		t.Errorf("prompt: %+v", it)
	}
	if it := turn.Items[1]; it.Kind != hermesproto.HistoryItemKindTool || it.Name != "exec_command" || it.Preview != "go test ./..." || it.Output != "ok\n" || it.ExitCode == nil {
		t.Errorf("tool: %+v", it)
	}
	if it := turn.Items[2]; it.Kind != hermesproto.HistoryItemKindAnswer || !strings.HasSuffix(it.Text, " red") {
		t.Errorf("answer: %+v", it)
	}

	// Another thread of the folder by id; a thread of no folder is refused.
	command(t, f, hermesproto.CmdNewThread, map[string]any{}, nil)
	f.ask(ctx, map[string]any{"prompt": "Document it"})
	f.awaitEndN(ctx, 3)
	var older hermesproto.ThreadHistory
	command(t, f, hermesproto.CmdThreadHistory, map[string]any{"threadId": first.ThreadID}, &older)
	if older.ThreadID != first.ThreadID || len(older.Turns) != 2 {
		t.Errorf("the older thread's history: %s with %d turns", older.ThreadID, len(older.Turns))
	}
	var current hermesproto.ThreadHistory
	command(t, f, hermesproto.CmdThreadHistory, map[string]any{}, &current)
	if current.ThreadID == first.ThreadID || len(current.Turns) != 1 {
		t.Errorf("the new thread's history: %s with %d turns", current.ThreadID, len(current.Turns))
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdThreadHistory, map[string]any{"threadId": "thread-99"}); err == nil || !strings.Contains(err.Error(), "is not one of") {
		t.Errorf("history of an unknown thread: %v", err)
	}
}

// TestThreadsMarkReviews: hermes.threads marks the thread of a review as one, and the code actions
// of an editor with no thread picker (Helix) do not offer to resume it as a conversation.
func TestThreadsMarkReviews(t *testing.T) {
	f := start(t, lsptest.Helix2501, map[string]any{"yolo": true})
	ctx := testCtx(t)
	onReview(f, rendered("Nothing to say."))
	asked := f.ask(ctx, map[string]any{"prompt": "A conversation"})
	f.awaitEndN(ctx, 1)
	var rev hermesproto.ReviewResult
	command(t, f, hermesproto.CmdReview, map[string]any{}, &rev)
	if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes review of")); err != nil {
		t.Fatal(err)
	}
	command(t, f, hermesproto.CmdNewThread, map[string]any{}, nil)
	f.ask(ctx, map[string]any{"prompt": "Another conversation"})
	f.awaitEndN(ctx, 2)

	var threads []hermesproto.ThreadInfo
	command(t, f, hermesproto.CmdThreads, map[string]any{}, &threads)
	review := map[string]bool{}
	for _, th := range threads {
		review[th.ThreadID] = th.Review
	}
	if len(threads) != 3 || !review[rev.ThreadID] || review[asked.ThreadID] {
		t.Fatalf("threads (review %s, conversation %s): %+v", rev.ThreadID, asked.ThreadID, threads)
	}
	path := f.file("notes.txt", "notes\n")
	actions, err := f.ed.CodeActions(ctx, path, protocol.Range{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var resumes []string
	for _, a := range actions {
		if strings.HasPrefix(a.Title, "Hermes: resume") {
			resumes = append(resumes, a.Title)
		}
	}
	if len(resumes) != 1 || !strings.Contains(resumes[0], "A conversation") {
		t.Errorf("resume code actions: %q", resumes)
	}
}

// TestModelsCurrentFromCodexConfig: with no model chosen in hermes-lsp, hermes.models marks the
// one codex's config.toml names (config/read), not codex's built-in default.
func TestModelsCurrentFromCodexConfig(t *testing.T) {
	f := start(t, lsptest.Helix2501, nil)
	f.fake.SetConfigModel("gpt-5.5-mini")
	var models []hermesproto.ModelInfo
	command(t, f, hermesproto.CmdModels, map[string]any{}, &models)
	if len(models) != 2 || models[0].Current || !models[1].Current {
		t.Errorf("models with gpt-5.5-mini in config.toml: %+v", models)
	}
}
