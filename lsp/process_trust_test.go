package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestProcessApprovalsNotBypassed: the built binary, on the real codex, with HERMES_YOLO_MODE=disabled
// in its environment and a workspace that pushes yolo and pulls approvals.mode off (answered "Keep
// asking"): the command codex wants to run still gets its approval prompt, and denied, never runs.
func TestProcessApprovalsNotBypassed(t *testing.T) {
	env := codextest.NewReal(t)
	t.Setenv("HERMES_YOLO_MODE", "disabled")
	p := startServerProc(t, env, nil)
	p.ed.OnShowMessageRequest(answers(lsp.ActionKeepAsking, lsp.ActionDeny))
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
	if _, err := p.ed.ExecuteCommand(ctx, lsp.CmdAsk, map[string]any{"prompt": "plant it"}); err != nil {
		t.Fatal(err)
	}
	if err := p.ed.Await(ctx, lsptest.MessageContaining("Transcript:")); err != nil {
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
}
