package acp_test

import (
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/internal/agentproc"
)

// startScript starts this test binary as the agent of the script named.
func startScript(t *testing.T, script string, h acp.Handler) *acp.Client {
	t.Helper()
	command, args, env, err := acptest.Command(script)
	if err != nil {
		t.Fatal(err)
	}
	client, err := acp.Start(testContext(t), acp.Options{Name: "scripted-agent", Command: command, Args: args, Env: env, Dir: t.TempDir(), Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// TestStartProcess: Start spawns the agent, speaks to it over its stdio, and Close ends and reaps
// it.
func TestStartProcess(t *testing.T) {
	rec := &recorder{}
	client := startScript(t, "echo", rec)
	if client.Pid() <= 0 {
		t.Errorf("pid %d", client.Pid())
	}
	if info := client.Info(); info.AgentInfo == nil || info.AgentInfo.Name != "acptest" {
		t.Errorf("agentInfo %+v", info.AgentInfo)
	}
	res, err := client.Prompt(testContext(t), newSession(t, client), []acp.ContentBlock{acp.TextBlock("hello, agent")})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	if u := rec.received(); len(u) != 1 || text(u[0].Update.ContentChunk.Content) != "hello, agent" {
		t.Errorf("updates %+v", u)
	}
	if err := client.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	select {
	case <-client.Done():
	default:
		t.Error("the client has not ended after Close")
	}
}

// TestStartAgentDiesMidPrompt: an agent process that dies in the middle of a prompt makes Prompt
// fail with its exit status and the last lines of its stderr.
func TestStartAgentDiesMidPrompt(t *testing.T) {
	client := startScript(t, "crash", &recorder{})
	_, err := client.Prompt(testContext(t), newSession(t, client), []acp.ContentBlock{acp.TextBlock("go")})
	if err == nil {
		t.Fatal("the prompt succeeded")
	}
	for _, want := range []string{"session/prompt", "scripted-agent stopped (exit status 3)", "its last output:\nerror: the model went away\nfatal: giving up"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	recv(t, client.Done())
	var exit *agentproc.ExitError
	if !errors.As(client.Err(), &exit) || exit.Status != "exit status 3" {
		t.Errorf("Err: %v", client.Err())
	}
}

// TestStartFailures: a command that is not there, and one that never answers initialize (killed
// at the start's bound, not after Close's grace periods).
func TestStartFailures(t *testing.T) {
	_, err := acp.Start(testContext(t), acp.Options{Command: "no-such-agent-anywhere"})
	if err == nil || !strings.Contains(err.Error(), `find no-such-agent-anywhere's command "no-such-agent-anywhere"`) {
		t.Errorf("missing command: %v", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("sh is not on PATH: %v", err)
	}
	began := time.Now()
	_, err = acp.Start(testContext(t), acp.Options{Command: sh, Args: []string{"-c", "exec sleep 60"}, StartTimeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not answer initialize within 300ms") {
		t.Errorf("silent agent: %v", err)
	}
	// Close's first grace period alone is 2s: an agent killed at the bound ends long before.
	if took := time.Since(began); took >= 2*time.Second {
		t.Errorf("the start took %v", took)
	}
}
