package agenthost_test

// End-to-end tests of the host against the real pinned codex and the fake Responses API.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
)

// realHost is a host on the real codex, with its fake model.
func realHost(t *testing.T, env *codextest.Real, mutate func(*agenthost.Config)) *agenthost.Host {
	t.Helper()
	cfg := agenthost.Config{
		CodexPath: env.Binary,
		CodexHome: env.CodexHome,
		CodexEnv:  env.CodexEnv(),
		StateDir:  filepath.Join(env.Home, "state"),
	}
	for _, kv := range env.Model.CodexConfig() {
		cfg.CodexArgs = append(cfg.CodexArgs, "-c", kv)
	}
	if mutate != nil {
		mutate(&cfg)
	}
	h, err := agenthost.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

func runToEnd(t *testing.T, s *agenthost.Session, prompt string) (*hermesproto.Result, []hermesproto.Event) {
	t.Helper()
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	var events []hermesproto.Event
	for ev := range turn.Events() {
		events = append(events, ev)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := turn.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res, events
}

func TestRealApprovalGatedTurn(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(
		fakemodel.Exec("echo from-the-test > exec_made.txt"),
		fakemodel.Patch(fakemodel.AddFilePatch("patched.txt", "patched by codex\n")),
		fakemodel.Message("All done."),
	)
	var asked []hermesproto.Approval
	h := realHost(t, env, func(c *agenthost.Config) {
		c.Approver = agenthost.ApproverFunc(func(ctx context.Context, a hermesproto.Approval) (agenthost.Reply, error) {
			asked = append(asked, a)
			return agenthost.Reply{Decision: hermesproto.DecisionOnce}, nil
		})
	})
	s, err := h.Session(env.Work)
	if err != nil {
		t.Fatal(err)
	}
	configBefore, _ := os.ReadFile(filepath.Join(env.CodexHome, "config.toml"))
	res, events := runToEnd(t, s, "make two files")
	if !res.Completed || res.FinalText != "All done." || res.ToolIterations != 2 {
		t.Fatalf("result: completed %v text %q iterations %d error %q", res.Completed, res.FinalText, res.ToolIterations, res.Error)
	}
	if len(asked) != 2 || asked[0].Kind != hermesproto.ApprovalKindExec || asked[1].Kind != hermesproto.ApprovalKindPatch {
		t.Fatalf("approvals asked: %+v", asked)
	}
	if asked[0].Cwd != env.Work || !strings.Contains(asked[0].Command, "from-the-test") {
		t.Errorf("exec approval: %+v", asked[0])
	}
	if len(asked[1].Changes) != 1 || !strings.HasSuffix(asked[1].Changes[0].Path, "patched.txt") {
		t.Errorf("patch approval lacks its changes: %+v", asked[1])
	}
	for _, f := range []string{"exec_made.txt", "patched.txt"} {
		if _, err := os.Stat(filepath.Join(env.Work, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	kinds := map[hermesproto.EventKind]int{}
	for _, ev := range events {
		kinds[ev.Kind]++
	}
	if kinds[hermesproto.EventKindToolStarted] != 2 || kinds[hermesproto.EventKindToolCompleted] != 2 ||
		kinds[hermesproto.EventKindApprovalWaiting] != 2 || kinds[hermesproto.EventKindTurnCompleted] != 1 {
		t.Errorf("event kinds: %v", kinds)
	}
	// The thread runs in the folder, and nothing was written into codex's configuration.
	configAfter, _ := os.ReadFile(filepath.Join(env.CodexHome, "config.toml"))
	if string(configBefore) != string(configAfter) {
		t.Errorf("codex config.toml changed:\n%s", configAfter)
	}
	if _, err := os.Stat(res.TranscriptPath); err != nil {
		t.Errorf("transcript: %v", err)
	}
}

func TestRealUsageLimitResponsesFallback(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.SkipIfKnown(t, codex.ProblemResponsesFallback)
	backup, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backup.Close() })
	env.Model.Enqueue(fakemodel.UsageLimit())
	backup.Enqueue(fakemodel.Message("answered by the backup"))
	h := realHost(t, env, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{{Name: "backup", Kind: agenthost.FallbackResponses, BaseURL: backup.BaseURL(), Model: fakemodel.DefaultModel}}
	})
	s, _ := h.Session(env.Work)
	res, events := runToEnd(t, s, "hello with quota trouble")
	if !res.Completed || res.Fallback != "backup" || res.FinalText != "answered by the backup" || res.APICalls != 2 {
		t.Fatalf("result: %+v", res)
	}
	reqs := backup.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].UserText(), "hello with quota trouble") {
		t.Fatalf("backup saw %d requests", len(reqs))
	}
	var fellBack bool
	for _, ev := range events {
		fellBack = fellBack || ev.Kind == hermesproto.EventKindFallback
	}
	if !fellBack {
		t.Error("no fallback event")
	}
}

func TestRealUsageLimitChatFallback(t *testing.T) {
	env := codextest.NewReal(t)
	chat, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = chat.Close() })
	env.Model.Enqueue(fakemodel.UsageLimit())
	chat.EnqueueChat(fakemodel.Message("fallback answered"))
	t.Setenv("HERMES_TEST_CHAT_KEY", "sk-test")
	h := realHost(t, env, func(c *agenthost.Config) {
		c.Fallbacks = []agenthost.FallbackProvider{{Name: "chatty", Kind: agenthost.FallbackChat, BaseURL: chat.BaseURL(), Model: "fake-chat", APIKeyEnv: "HERMES_TEST_CHAT_KEY"}}
	})
	s, _ := h.Session(env.Work)
	res, _ := runToEnd(t, s, "hello chat")
	if !res.Completed || res.Fallback != "chatty" || res.FinalText != "fallback answered" {
		t.Fatalf("result: %+v", res)
	}
	reqs := chat.ChatRequests()
	if len(reqs) != 1 || reqs[0].Model != "fake-chat" || reqs[0].Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("chat requests: %+v", reqs)
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	if last.Role != "user" || last.Content != "hello chat" {
		t.Errorf("chat prompt: %+v", last)
	}
}

func TestRealKilledMidTurnThenResumes(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	h := realHost(t, env, nil)
	s, _ := h.Session(env.Work)
	first, _ := runToEnd(t, s, "remember the word banana")
	if !first.Completed {
		t.Fatalf("first turn: %+v", first)
	}

	env.Model.Enqueue(fakemodel.Hang())
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "hang now"})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Model.WaitRequests(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	pid := codexPid(t, h)
	killed := time.Now()
	if err := proctest.Kill(pid); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	res, err := turn.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(killed)
	t.Logf("partial result %v after SIGKILL", took.Round(time.Millisecond))
	if took > time.Second {
		t.Errorf("partial result took %v, want under 1s", took)
	}
	if res.Completed || !res.Partial || !strings.Contains(res.Error, "killed") || !res.Retired {
		t.Fatalf("result after kill: %+v", res)
	}

	next, _ := runToEnd(t, s, "what was the word?")
	if !next.Completed || next.ThreadID != first.ThreadID || next.NewThread {
		t.Fatalf("next turn: completed %v thread %s (first %s) new %v", next.Completed, next.ThreadID, first.ThreadID, next.NewThread)
	}
	reqs := env.Model.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "remember the word banana") {
		t.Error("the resumed thread lost its history")
	}
}

func codexPid(t *testing.T, h *agenthost.Host) int {
	t.Helper()
	pid := h.CodexPid()
	if pid == 0 {
		t.Fatal("codex is not running")
	}
	return pid
}

// TestRealThreadHistory: the real codex's items of a thread (thread/turns/list) make its history:
// the prompts, the command with its output, the answers, oldest first; and after a restart of
// hermes-lsp and codex, when codex has not loaded the thread again.
func TestRealThreadHistory(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(fakemodel.Exec("echo from-history"), fakemodel.Message("Answer **one**."), fakemodel.Message("Answer two."))
	approve := func(c *agenthost.Config) {
		c.Approver = agenthost.ApproverFunc(func(context.Context, hermesproto.Approval) (agenthost.Reply, error) {
			return agenthost.Reply{Decision: hermesproto.DecisionOnce}, nil
		})
	}
	h := realHost(t, env, approve)
	s, err := h.Session(env.Work)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := runToEnd(t, s, "first prompt")
	second, _ := runToEnd(t, s, "second prompt")
	if !first.Completed || !second.Completed || first.ThreadID != second.ThreadID {
		t.Fatalf("turns: %+v / %+v", first, second)
	}
	check := func(what string, hist hermesproto.ThreadHistory) {
		t.Helper()
		if hist.ThreadID != first.ThreadID || len(hist.Turns) != 2 || hist.Truncated {
			t.Fatalf("%s: thread %q (want %q), %d turns, truncated %v", what, hist.ThreadID, first.ThreadID, len(hist.Turns), hist.Truncated)
		}
		one, two := hist.Turns[0], hist.Turns[1]
		if one.TurnID != first.TurnID || two.TurnID != second.TurnID || one.Status != "completed" || two.Status != "completed" {
			t.Errorf("%s: turns %+v / %+v", what, one, two)
		}
		var kinds []string
		for _, it := range one.Items {
			kinds = append(kinds, string(it.Kind))
		}
		if strings.Join(kinds, ",") != "user,tool,answer" || len(two.Items) != 2 {
			t.Fatalf("%s: first turn's items %v, second's %d", what, kinds, len(two.Items))
		}
		if one.Items[0].Text != "first prompt" || two.Items[0].Text != "second prompt" {
			t.Errorf("%s: prompts %q, %q", what, one.Items[0].Text, two.Items[0].Text)
		}
		tool := one.Items[1]
		if tool.Name != "exec_command" || !strings.Contains(tool.Preview, "echo from-history") || tool.Output != "from-history\n" ||
			tool.ExitCode == nil || *tool.ExitCode != 0 || tool.Status != "completed" {
			t.Errorf("%s: command %+v", what, tool)
		}
		if one.Items[2].Text != "Answer **one**." || two.Items[1].Text != "Answer two." {
			t.Errorf("%s: answers %q, %q", what, one.Items[2].Text, two.Items[1].Text)
		}
	}
	hist, err := s.ThreadHistory(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	check("history", hist)

	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	again := realHost(t, env, approve)
	s, err = again.Session(env.Work)
	if err != nil {
		t.Fatal(err)
	}
	hist, err = s.ThreadHistory(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	check("after a restart", hist)
}
