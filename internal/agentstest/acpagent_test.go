//go:build agents

package agentstest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/agenthost/acpagent"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/agentstest"
)

// TestAgentsThroughACPAgent runs each real agent as the host runs it, through agenthost/acpagent:
// a thread, a plain answer, then an edit of README.md whose fileChange item starts while the file
// is still as it was (the host's pre-image for undo) and completes once it is written, any
// permission asked answered "accept" by the host's side; every turn completed.
func TestAgentsThroughACPAgent(t *testing.T) {
	for _, name := range agentstest.Names {
		t.Run(name, func(t *testing.T) { throughACPAgent(t, name) })
	}
}

func throughACPAgent(t *testing.T, name string) {
	a := agentstest.New(t, name, hello, edit)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	readme := filepath.Join(a.Work, "README.md")
	var mu sync.Mutex
	var asked []string
	preImage := "<none>"
	opts := codex.Options{
		OnRequest: func(_ context.Context, req *codex.Request) (any, error) {
			mu.Lock()
			asked = append(asked, req.Method)
			mu.Unlock()
			return codex.ApprovalResponse{Decision: codex.DecisionAccept}, nil
		},
		OnNotification: func(ev codex.Event) {
			if v, ok := ev.Value.(*codex.ItemParams); ok && ev.Method == codex.NotifyItemStarted && v.Item.Type == codex.ItemFileChange {
				for _, c := range v.Item.Changes {
					if c.Path == readme {
						b, _ := os.ReadFile(readme)
						mu.Lock()
						if preImage == "<none>" {
							preImage = string(b)
						}
						mu.Unlock()
					}
				}
			}
		},
		StartTimeout: time.Minute,
	}
	env := map[string]string{}
	for _, kv := range a.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	began := time.Now()
	agent, err := acpagent.Start(ctx, agenthost.AgentConfig{Kind: agenthost.AgentACP, Command: a.Command, Args: a.Args, Env: env}, opts, acpagent.Editor{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := agent.Close(); err != nil {
			t.Logf("close: %v", err)
		}
	}()
	info := agent.Info()
	t.Logf("%s %s started in %v; supports %+v", info.Name, info.Version, time.Since(began).Round(time.Millisecond), info.Supports)
	th, err := agent.StartThread(ctx, codex.ThreadStartParams{Cwd: a.Work})
	if err != nil {
		t.Fatal(err)
	}
	if models, err := agent.ListModels(ctx, codex.ModelListParams{}); err == nil {
		var ids []string
		for _, m := range models.Data {
			ids = append(ids, m.ID)
		}
		t.Logf("after session/new: models %v (current %q)", ids, th.Model)
	}
	for _, turn := range []agentstest.Turn{hello, edit} {
		began := time.Now()
		_, st, err := agent.StartTurn(ctx, codex.TurnStartParams{ThreadID: th.Thread.ID, Input: []codex.UserInput{codex.TextInput(turn.Prompt)}})
		if err != nil {
			t.Fatal(err)
		}
		var answer, status string
		var items []string
		for ev := range st.Events() {
			switch v := ev.Value.(type) {
			case *codex.ItemParams:
				if ev.Method == codex.NotifyItemCompleted {
					items = append(items, v.Item.Type+":"+v.Item.Status)
					if v.Item.Type == codex.ItemAgentMessage {
						answer = v.Item.Text
					}
				}
			case *codex.TurnCompletedParams:
				status = v.Turn.Status + " " + v.Turn.Error.Message
			}
		}
		st.Close()
		t.Logf("%q: %s in %v; items %v; answer %q", turn.Prompt, status, time.Since(began).Round(time.Millisecond), items, answer)
		if strings.TrimSpace(status) != codex.TurnCompleted || !strings.Contains(answer, turn.Answer) {
			t.Errorf("%q ended %q with the answer %q", turn.Prompt, status, answer)
		}
	}
	got, _ := os.ReadFile(readme)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("the host was asked %v", asked)
	if string(got) != "# project\nhello\n" || preImage != "# project\n" {
		t.Errorf("README.md: %q after the edit, %q when its fileChange item started; want %q and %q", got, preImage, "# project\nhello\n", "# project\n")
	}
}
