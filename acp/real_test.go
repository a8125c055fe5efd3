package acp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// envCodexACP names the codex-acp binary the real-agent test runs: the one `npm ci` installs in
// bench/acp (node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp on Linux, 0.16.0).
const envCodexACP = "HERMES_CODEX_ACP_BIN"

// TestRealCodexACP runs the real codex-acp offline, against the scripted model: initialize,
// session/new, a prompt answered, the model picked (a configuration option), a patch whose
// permission request is answered (allowed once) and the file then written by codex-acp itself,
// session/list. It skips unless HERMES_CODEX_ACP_BIN names the binary.
func TestRealCodexACP(t *testing.T) {
	bin := os.Getenv(envCodexACP)
	if bin == "" || testing.Short() {
		t.Skipf("set %s to the codex-acp binary (npm ci in bench/acp) to run it", envCodexACP)
	}
	model, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = model.Close() })
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	work := filepath.Join(home, "project")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := model.WriteCodexConfig(codexHome); err != nil {
		t.Fatal(err)
	}

	rec := &recorder{}
	var asked []*acp.RequestPermissionRequest
	rec.permission = func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked = append(asked, req)
		for _, o := range req.Options {
			if o.Kind == acp.PermissionOptionKindAllowOnce {
				return acp.Selected(o.OptionID), nil
			}
		}
		return acp.Cancelled(), nil
	}
	ctx := testContext(t)
	client, err := acp.Start(ctx, acp.Options{
		Name: "codex-acp", Command: bin, Dir: work, Handler: rec,
		Env: []string{"CODEX_HOME=" + codexHome, "HOME=" + home, "OPENAI_API_KEY=", "CODEX_API_KEY="},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	info := client.Info()
	if info.AgentInfo == nil || info.AgentInfo.Name != "codex-acp" {
		t.Errorf("agentInfo %+v", info.AgentInfo)
	}
	caps, _ := json.Marshal(info.AgentCapabilities)
	t.Logf("%s %s advertises %s", info.AgentInfo.Name, info.AgentInfo.Version, caps)

	session, err := client.NewSession(ctx, work, nil)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, client.StderrTail(30))
	}
	var models []string
	for _, o := range session.ConfigOptions {
		if o.Category == acp.SessionConfigOptionCategoryModel && o.SessionConfigSelect != nil {
			models = append(models, o.ID+"="+o.SessionConfigSelect.CurrentValue)
		}
	}
	if session.Modes != nil {
		t.Logf("modes: current %s of %d; model options: %v", session.Modes.CurrentModeID, len(session.Modes.AvailableModes), models)
	}
	if len(models) != 1 {
		t.Errorf("model options %v", models)
	}

	model.Enqueue(fakemodel.Message("Hello from the fake model."))
	res, err := client.Prompt(ctx, session.SessionID, []acp.ContentBlock{acp.TextBlock("say hello")})
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, client.StderrTail(30))
	}
	var answer strings.Builder
	for _, n := range rec.received() {
		if n.Update.Kind == acp.SessionUpdateKindAgentMessageChunk {
			answer.WriteString(text(n.Update.ContentChunk.Content))
		}
	}
	if res.StopReason != acp.StopReasonEndTurn || answer.String() != "Hello from the fake model." {
		t.Errorf("prompt: %s, answer %q, updates %q", res.StopReason, answer.String(), rec.kinds())
	}

	// v1 picks the model through the session's configuration option of category "model".
	if _, err := client.SetConfigOption(ctx, session.SessionID, "model", "gpt-5.4"); err != nil {
		t.Fatal(err)
	}
	// The session starts read-only: the patch asks for permission.
	model.Enqueue(fakemodel.Patch(fakemodel.AddFilePatch("hello.txt", "hi\n")), fakemodel.Message("Wrote it."))
	res, err = client.Prompt(ctx, session.SessionID, []acp.ContentBlock{acp.TextBlock("write hello.txt")})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("%v, %v\nstderr:\n%s", res, err, client.StderrTail(30))
	}
	if requests := model.Requests(); requests[len(requests)-1].Model != "gpt-5.4" {
		t.Errorf("the patch's turn asked model %q", requests[len(requests)-1].Model)
	}
	if len(asked) != 1 {
		t.Fatalf("codex-acp asked for %d permissions", len(asked))
	}
	call := asked[0].ToolCall
	path := filepath.Join(work, "hello.txt")
	if call.Kind != acp.ToolKindEdit || len(call.Content) != 1 || call.Content[0].Diff == nil ||
		call.Content[0].Diff.Path != path || call.Content[0].Diff.NewText != "hi\n" {
		b, _ := json.Marshal(asked[0])
		t.Errorf("the permission request: %s", b)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "hi\n" {
		t.Errorf("hello.txt: %q, %v", got, err)
	}
	kinds := rec.kinds()
	if i := slices.Index(kinds, acp.SessionUpdateKindToolCall); i < 0 || !slices.Contains(kinds[i:], acp.SessionUpdateKindToolCallUpdate) {
		t.Errorf("updates %q", kinds)
	}

	page, err := client.ListSessions(ctx, work, "")
	if err != nil || !slices.ContainsFunc(page.Sessions, func(s acp.SessionInfo) bool { return s.SessionID == session.SessionID }) {
		t.Errorf("session/list: %+v, %v", page, err)
	}
	began := time.Now()
	if err := client.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	t.Logf("close took %v", time.Since(began).Round(time.Millisecond))
}
