//go:build agents

package lsp_test

// The real ACP agents (internal/agentstest: codex-acp, Gemini CLI, Claude's adapter) through the
// whole server, as an editor runs them: agent.kind "acp" with the agent's program, an ask answered,
// an edit approved in the editor's prompt, hermes.status naming the agent, the edit undone from the
// host's own checkpoint, compaction refused in words. make test-agents runs them.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/agentstest"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

var (
	realHello = agentstest.Turn{Prompt: "Say hello.", Answer: "Hello from the fake model."}
	realEdit  = agentstest.Turn{
		Prompt: "Add a line saying hello to README.md.",
		Edit:   &agentstest.Edit{Path: "README.md", Old: "# project", New: "# project\nhello"},
		Answer: "I added hello to README.md.",
	}
)

// TestAgentsInTheEditor runs each real agent through the server and a fake editor.
func TestAgentsInTheEditor(t *testing.T) {
	for _, name := range agentstest.Names {
		t.Run(name, func(t *testing.T) { agentInTheEditor(t, name) })
	}
}

func agentInTheEditor(t *testing.T, name string) {
	a := agentstest.New(t, name, realHello, realEdit)
	env := map[string]any{}
	for _, kv := range a.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	args := make([]any, len(a.Args))
	for i, arg := range a.Args {
		args[i] = arg
	}
	settings := map[string]any{"agent": map[string]any{"kind": "acp", "command": a.Command, "args": args, "env": env}}
	// VS Code, refusing the undo's edit of a file it does not have open: the server then restores
	// the file on disk, where the test reads it.
	f := startIn(t, a.Work, t.TempDir(), lsp.Options{}, lsptest.VSCode, settings,
		lsptest.WithShowMessageRequestHook(lsptest.ChooseAction(hermesproto.ApprovalActionAllowOnce)),
		lsptest.WithHandler(protocol.MethodWorkspaceApplyEdit, func(context.Context, json.RawMessage) (any, error) {
			return protocol.ApplyWorkspaceEditResponse{Applied: false, FailureReason: "not open"}, nil
		}))
	ctx := testCtx(t)
	readme := filepath.Join(a.Work, "README.md")

	f.ask(ctx, map[string]any{"prompt": realHello.Prompt})
	f.awaitEndN(ctx, 1)
	var st hermesproto.Status
	command(t, f, hermesproto.CmdStatus, nil, &st)
	if st.Agent == nil || st.Agent.Kind != "acp" || st.Agent.Name == "" || st.Agent.Version == "" {
		t.Errorf("hermes.status's agent: %+v", st.Agent)
	}
	t.Logf("%s %s supports %v, lacks %v", st.Agent.Name, st.Agent.Version, st.Agent.Supports, st.Agent.Lacks)

	f.ask(ctx, map[string]any{"prompt": realEdit.Prompt})
	f.awaitEndN(ctx, 2)
	if b, err := os.ReadFile(readme); err != nil || string(b) != "# project\nhello\n" {
		t.Fatalf("README.md after the edit: %q (%v)\n%s", b, err, f.ed.State())
	}
	asked := 0
	for _, r := range f.ed.ShowMessageRequests() {
		if strings.Contains(r.Message, "README.md") {
			asked++
		}
	}
	if asked == 0 {
		t.Errorf("the edit was not asked in the editor: %+v", f.ed.ShowMessageRequests())
	}

	res := undo(t, f, map[string]any{})
	if b, _ := os.ReadFile(readme); string(b) != "# project\n" {
		t.Errorf("README.md after hermes.undoTurn: %q (%+v)", b, res)
	}
	if err := f.ed.Await(ctx, lsptest.MessageContaining("still remembers")); err != nil {
		t.Errorf("no message says the agent still remembers the undone turn: %v %+v", err, f.ed.Messages())
	}
	if _, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdCompact, map[string]any{}); err == nil || !strings.Contains(err.Error(), "cannot compact") {
		t.Errorf("hermes.compact: %v", err)
	}
}
