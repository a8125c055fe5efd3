package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestProcessApprovalsNotBypassed: the built binary, on the real codex, with HERMES_YOLO_MODE=disabled
// in its environment and a workspace that pushes yolo and pulls approvals.mode off (answered "Keep
// asking"): the command codex wants to run still gets its approval prompt, and denied, never runs.
func TestProcessApprovalsNotBypassed(t *testing.T) {
	env := codextest.NewReal(t)
	t.Setenv("HERMES_YOLO_MODE", "disabled")
	p := startServerProc(t, env, nil)
	p.ed.OnShowMessageRequest(answers(hermesproto.TrustActionKeepAsking, hermesproto.ApprovalActionDeny))
	ctx := testCtx(t)

	if err := p.ed.ChangeConfiguration(ctx, map[string]any{"hermes": map[string]any{"yolo": true}}); err != nil {
		t.Fatal(err)
	}
	p.ed.SetConfiguration("hermes", map[string]any{"approvals": map[string]any{"mode": "off"}})
	if err := p.ed.ChangeConfiguration(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.ed.Await(ctx, func(s *lsptest.State) bool {
		n := 0
		for _, m := range s.ShowMessages {
			if strings.Contains(m.Message, "Hermes kept hermes.") {
				n++
			}
		}
		return n >= 2
	}); err != nil {
		t.Fatalf("the workspace's yolo and approvals.mode were not both kept: %v\n%s", err, p.ed.State())
	}

	planted := filepath.Join(env.Work, "planted")
	env.Model.Enqueue(fakemodel.Exec("touch "+planted), fakemodel.Message("done"))
	if _, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "plant it"}); err != nil {
		t.Fatal(err)
	}
	if err := p.ed.Await(ctx, lsptest.Announced(1)); err != nil {
		t.Fatalf("the turn did not end: %v", err)
	}
	if n := len(approvalPrompts(p.ed)); n == 0 {
		t.Fatalf("no approval prompt: %+v", p.ed.ShowMessageRequests())
	}
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Fatalf("the denied command ran: %v", err)
	}
	log, _ := os.ReadFile(p.log)
	if !strings.Contains(string(log), "HERMES_YOLO_MODE") {
		t.Errorf("no warning about HERMES_YOLO_MODE in the log")
	}
	if !hasMessage(p.ed, `HERMES_YOLO_MODE="disabled"`) {
		t.Errorf("the editor was not told HERMES_YOLO_MODE is not understood: %+v", p.ed.Messages())
	}
}

// TestProcessTwoServersShareStateDir: two servers (two editor windows) on one stateDir, each with its
// own folder, each run a turn; state.json keeps both folders, and a third server started later
// resumes each folder's thread.
func TestProcessTwoServersShareStateDir(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "state")
	envs := []*codextest.Real{codextest.NewReal(t), codextest.NewReal(t)}
	threads := make([]string, 2)
	// Both start (and read the empty state) before either saves.
	procs := []*serverProc{
		startServerProc(t, envs[0], map[string]any{"stateDir": shared}),
		startServerProc(t, envs[1], map[string]any{"stateDir": shared}),
	}
	for i, p := range procs {
		ctx := testCtx(t)
		raw, err := p.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "say hello"})
		if err != nil {
			t.Fatal(err)
		}
		var res hermesproto.AskResult
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		threads[i] = res.ThreadID
		if err := p.ed.Await(ctx, lsptest.Announced(1)); err != nil {
			t.Fatalf("server %d: the turn did not end: %v", i, err)
		}
	}
	var state struct {
		Folders map[string]struct {
			ThreadID string `json:"threadId"`
		} `json:"folders"`
	}
	b, err := os.ReadFile(filepath.Join(shared, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &state); err != nil {
		t.Fatal(err)
	}
	for i, env := range envs {
		if got := state.Folders[env.Work].ThreadID; got == "" || got != threads[i] {
			t.Errorf("state.json for %s: thread %q, want %q\n%s", env.Work, got, threads[i], b)
		}
	}
	// A later server resumes the first folder's thread.
	p := startServerProc(t, envs[0], map[string]any{"stateDir": shared})
	raw, err := p.ed.ExecuteCommand(testCtx(t), hermesproto.CmdStatus)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), threads[0]) {
		t.Errorf("a new server does not resume %s: %s", threads[0], raw)
	}
}
