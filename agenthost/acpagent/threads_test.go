package acpagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/agenthost/acpagent"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/jsonrpc"
)

// TestInfo: the agent's name and version, and what it supports: threads when it lists sessions,
// resuming them when it loads or resumes sessions, nothing else codex does.
func TestInfo(t *testing.T) {
	for _, tt := range []struct {
		cfg  acptest.Config
		want agenthost.Capabilities
	}{
		{acptest.Config{}, agenthost.Capabilities{}},
		{acptest.Config{List: true, LoadSession: true}, agenthost.Capabilities{ListThreads: true, ResumeThread: true}},
		{acptest.Config{Resume: true}, agenthost.Capabilities{ResumeThread: true}},
	} {
		tt.cfg.Name, tt.cfg.Version = "gemini\x1b[2J", "0.9.1"
		h := newHarness(t, tt.cfg)
		info := h.agent.Info()
		if info.Kind != agenthost.AgentACP || info.Name != "gemini" || info.Version != "0.9.1" || info.Supports != tt.want {
			t.Errorf("%+v: info %+v", tt.cfg, info)
		}
	}
}

// TestUnsupported: what ACP cannot do fails with an error that wraps agenthost.ErrUnsupported and
// says so in words.
func TestUnsupported(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	c := ctx(t)
	_, steerErr := h.agent.SteerTurn(c, codex.TurnSteerParams{ThreadID: thread})
	_, listErr := h.agent.ListThreads(c, codex.ThreadListParams{})
	_, resumeErr := h.agent.ResumeThread(c, codex.ThreadResumeParams{ThreadID: thread, Cwd: h.folder})
	_, turnsErr := h.agent.ListTurns(c, codex.ThreadTurnsListParams{ThreadID: thread})
	_, modelsErr := h.agent.ListModels(c, codex.ModelListParams{})
	_, modelErr := h.agent.ConfiguredModel(c, h.folder)
	_, limitsErr := h.agent.ReadRateLimits(c)
	_, accountErr := h.agent.ReadAccount(c)
	_, loginErr := h.agent.StartLogin(c, "chatgpt")
	for _, tt := range []struct {
		err  error
		want string
	}{
		{h.agent.CompactThread(c, thread), "the ACP agent acptest cannot compact its conversation"},
		{h.agent.RevertThread(c, thread, "t1"), "cannot forget a turn"},
		{h.agent.NameThread(c, thread, "x"), "cannot name its threads"},
		{steerErr, "cannot take input into a running turn"},
		{listErr, "cannot list its sessions"},
		{resumeErr, "cannot resume one of its sessions"},
		{turnsErr, "cannot give a thread's past turns"},
		{modelsErr, "cannot list its models"},
		{modelErr, "cannot say which model"},
		{limitsErr, "cannot report rate limits"},
		{accountErr, "cannot say which account"},
		{loginErr, "cannot sign in through hermes-lsp"},
	} {
		if !errors.Is(tt.err, agenthost.ErrUnsupported) || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%v: want ErrUnsupported saying %q", tt.err, tt.want)
		}
	}
}

// TestResumeThread: a thread is resumed with session/resume when the agent offers it, else with
// session/load, whose replay of the session belongs to no turn: the host sees none of it, and the
// next turn on the thread streams only its own.
func TestResumeThread(t *testing.T) {
	for _, resume := range []bool{true, false} {
		h := newHarness(t, acptest.Config{Resume: resume, LoadSession: !resume})
		old := h.fake.AddSession(h.folder, "earlier", textUpdate("an old answer", ""))
		res, err := h.agent.ResumeThread(ctx(t), codex.ThreadResumeParams{ThreadID: old, Cwd: h.folder})
		if err != nil {
			t.Fatal(err)
		}
		if res.Thread.ID != old || res.Thread.Cwd != h.folder {
			t.Errorf("resumed %+v", res.Thread)
		}
		method := acp.MethodSessionLoad
		if resume {
			method = acp.MethodSessionResume
		}
		if _, err := h.fake.WaitReceived(ctx(t), method, 1); err != nil {
			t.Error(err)
		}
		h.mu.Lock()
		seen := len(h.seen)
		h.mu.Unlock()
		if seen != 0 {
			t.Errorf("resume %v: the host saw %d events of the replay", resume, seen)
		}
		wantEvents(t, h.turn(old, "again"),
			"turn/started", "item/started agentMessage", `item/agentMessage/delta "ok"`, `item/completed agentMessage "ok"`, "turn/completed completed")
		// Loaded again, while this agent knows it: its replay is still no turn's.
		h.mu.Lock()
		seen = len(h.seen)
		h.mu.Unlock()
		if _, err := h.agent.ResumeThread(ctx(t), codex.ThreadResumeParams{ThreadID: old, Cwd: h.folder}); err != nil {
			t.Fatal(err)
		}
		h.mu.Lock()
		after := len(h.seen)
		h.mu.Unlock()
		if after != seen {
			t.Errorf("resume %v: the host saw %d events of the second replay", resume, after-seen)
		}
	}
}

// TestListThreads: session/list pages, the folder's sessions only, each named by its title.
func TestListThreads(t *testing.T) {
	h := newHarness(t, acptest.Config{List: true, PageSize: 2})
	for _, title := range []string{"one", "two", "three\x1b[31m"} {
		h.fake.AddSession(h.folder, title)
	}
	h.fake.AddSession(t.TempDir(), "elsewhere")
	cwd, _ := json.Marshal(h.folder)
	var names []string
	cursor := ""
	for page := 0; page < 5; page++ {
		res, err := h.agent.ListThreads(ctx(t), codex.ThreadListParams{Cwd: cwd, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range res.Data {
			if th.Cwd != h.folder || th.ID == "" {
				t.Errorf("listed %+v", th)
			}
			names = append(names, th.Name)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "one,three,two" {
		t.Errorf("listed %q", names)
	}

	// An agent that lists every folder's sessions, whatever it is asked.
	h = &harness{t: t, folder: t.TempDir(), buffers: map[string]string{}, atStart: map[string]string{}}
	h.request = declineAll
	init := acp.InitializeResponse{AgentCapabilities: acp.AgentCapabilities{SessionCapabilities: acp.SessionCapabilities{List: &acp.SessionListCapabilities{}}}}
	h.connect(rawAgent(t, init, func(peer *jsonrpc.Conn, req *jsonrpc.Request) {
		_ = peer.Reply(req, acp.ListSessionsResponse{Sessions: []acp.SessionInfo{
			{SessionID: "mine", Cwd: h.folder + "/", Title: "mine", UpdatedAt: "2026-01-02T03:04:05Z"},
			{SessionID: "theirs", Cwd: "/elsewhere", Title: "theirs"},
		}}, nil)
	}))
	cwd, _ = json.Marshal(h.folder)
	res, err := h.agent.ListThreads(ctx(t), codex.ThreadListParams{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Data) != 1 || res.Data[0].ID != "mine" || res.Data[0].UpdatedAt != 1767323045 {
		t.Errorf("listed %+v", res.Data)
	}
}

// TestModels: a session's configuration option of category model makes the agent's models, which
// it then lists; a turn on another model sets the option first.
func TestModels(t *testing.T) {
	option := acp.SessionConfigOption{
		SessionConfigOptionCommon: acp.SessionConfigOptionCommon{ID: "model", Name: "Model", Category: acp.SessionConfigOptionCategoryModel},
		Kind:                      "select",
		SessionConfigSelect: &acp.SessionConfigSelect{CurrentValue: "fast", Options: raw(
			`[{"group":"g","name":"Group","options":[{"value":"fast","name":"Fast"},{"value":"deep","name":"Deep","description":"slow"}]}]`)},
	}
	h := newHarness(t, acptest.Config{ConfigOptions: []acp.SessionConfigOption{option}})
	if h.agent.Info().Supports.Models {
		t.Error("models before any session offered them")
	}
	thread := h.thread()
	if !h.agent.Info().Supports.Models {
		t.Error("no models after a session offered them")
	}
	res, err := h.agent.ListModels(ctx(t), codex.ModelListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Data {
		got = append(got, m.ID+"/"+m.DisplayName+"/"+strings.Repeat("*", btoi(m.IsDefault)))
	}
	if strings.Join(got, " ") != "fast/Fast/* deep/Deep/" {
		t.Errorf("models %q", got)
	}
	_, st, err := h.agent.StartTurn(ctx(t), codex.TurnStartParams{ThreadID: thread, Model: "deep", Input: []codex.UserInput{codex.TextInput("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	drain(t, st)
	m, err := h.fake.WaitReceived(ctx(t), acp.MethodSessionSetConfigOption, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m.Params), `"value":"deep"`) || !strings.Contains(string(m.Params), `"configId":"model"`) {
		t.Errorf("set_config_option %s", m.Params)
	}

	// The agent says its model changed (config_option_update): the list follows.
	changed := option
	sel := *option.SessionConfigSelect
	sel.CurrentValue = "deep"
	changed.SessionConfigSelect = &sel
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		t.Update(acp.SessionUpdate{Kind: acp.SessionUpdateKindConfigOptionUpdate, ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: []acp.SessionConfigOption{changed}}})
		return acp.StopReasonEndTurn
	})
	h.turn(thread, "switch")
	res, err = h.agent.ListModels(ctx(t), codex.ModelListParams{})
	if err != nil || len(res.Data) != 2 || res.Data[0].IsDefault || !res.Data[1].IsDefault {
		t.Errorf("models after config_option_update: %+v, %v", res, err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestReviewByPrompt: a review is a prompt that names its target and asks for findings as codex
// renders them; the agent's answer so written is a review codex.ParseReview reads.
func TestReviewByPrompt(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	thread := h.thread()
	rendered := "One bug.\n\nFull review comments:\n\n- [P1] Off by one — " + h.folder + "/a.go:3-4\n  The loop ends early.\n"
	prompts := make(chan string, 1)
	h.fake.OnPrompt(func(t *acptest.Turn) string {
		prompts <- t.Text()
		t.Message(rendered)
		return acp.StopReasonEndTurn
	})
	_, st, err := h.agent.StartReview(ctx(t), thread, raw(`{"type":"baseBranch","branch":"main"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs := drain(t, st)
	prompt := <-prompts
	format := "\n\nFull review comments:\n\n- [P1] <a short title> — <the absolute path of the file>:<first line>-<last line>\n  <what is wrong"
	for _, want := range []string{"git diff main...HEAD", format, h.folder} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the review's prompt lacks %q:\n%s", want, prompt)
		}
	}
	var final string
	for _, ev := range evs {
		if v, ok := ev.Value.(*codex.ItemParams); ok && ev.Method == codex.NotifyItemCompleted && v.Item.Type == codex.ItemAgentMessage {
			final = v.Item.Text
		}
	}
	r, ok := codex.ParseReview(final)
	if !ok || len(r.Findings) != 1 || r.Findings[0].Title != "Off by one" || r.Findings[0].Start != 3 || r.Findings[0].Priority != 1 {
		t.Errorf("the review read %+v (%v) from %q", r, ok, final)
	}
	if _, _, err := h.agent.StartReview(ctx(t), thread, raw(`{"type":"pullRequest"}`)); err == nil {
		t.Error("a review of an unknown target started")
	}
}

// TestTurnOnUnknownThread: a turn needs a session this agent started or resumed.
func TestTurnOnUnknownThread(t *testing.T) {
	h := newHarness(t, acptest.Config{})
	_, _, err := h.agent.StartTurn(context.Background(), codex.TurnStartParams{ThreadID: "sess-9", Input: []codex.UserInput{codex.TextInput("x")}})
	if err == nil || !strings.Contains(err.Error(), "start or resume it first") {
		t.Errorf("a turn on an unknown session: %v", err)
	}
}

// TestNameFromTheCommand: an agent that gives no agentInfo is named after its command.
func TestNameFromTheCommand(t *testing.T) {
	h := &harness{t: t, folder: t.TempDir(), buffers: map[string]string{}, atStart: map[string]string{}}
	h.request = declineAll
	h.connect(rawAgent(t, acp.InitializeResponse{}, func(peer *jsonrpc.Conn, req *jsonrpc.Request) {
		_ = peer.Reply(req, nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%s", req.Method))
	}))
	if info := h.agent.Info(); info.Name != "fake-agent" || info.Version != "" {
		t.Errorf("info %+v", info)
	}
}

// TestStartTimeout: an agent that does not answer initialize within the start timeout is ended,
// and the error says what to check.
func TestStartTimeout(t *testing.T) {
	h := &harness{t: t, folder: t.TempDir(), buffers: map[string]string{}, atStart: map[string]string{}}
	opts := h.options()
	opts.StartTimeout = 200 * time.Millisecond
	_, err := acpagent.Start(ctx(t), agenthost.AgentConfig{Kind: agenthost.AgentACP, Command: "sleep", Args: []string{"30"}}, opts, acpagent.Editor{})
	if err == nil || !strings.Contains(err.Error(), "did not answer initialize within 200ms") {
		t.Errorf("an agent that never answers: %v", err)
	}
}
