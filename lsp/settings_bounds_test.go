package lsp_test

// Tests of the bounds of settings that are not trusted: a workspace can set them, so they must not
// disarm approvals or turns, nor carry a megabyte where a model name goes.

import (
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
)

// TestSettingsBounds: timeouts outside their bounds are brought inside with a warning (0 stays the
// default); a model name too long or holding control characters is refused, base kept whole, with
// an error that is one short line.
func TestSettingsBounds(t *testing.T) {
	for _, tc := range []struct {
		raw           string
		approval      float64
		turn          float64
		warn, wantErr string
	}{
		{raw: `{"approvals":{"timeoutSeconds":1e-9}}`, approval: 10, turn: 600, warn: "hermes.approvals.timeoutSeconds 1e-09 is outside 10..604800 seconds: 10 is used"},
		{raw: `{"approvals":{"timeoutSeconds":9.9}}`, approval: 10, turn: 600, warn: "10 is used"},
		{raw: `{"approvals":{"timeoutSeconds":10}}`, approval: 10, turn: 600},
		{raw: `{"approvals":{"timeoutSeconds":0}}`, approval: 0, turn: 600},
		{raw: `{"approvals":{"timeoutSeconds":1e300}}`, approval: 604800, turn: 600, warn: "604800 is used"},
		{raw: `{"hermes":{"turnTimeoutSeconds":0.3}}`, approval: 300, turn: 30, warn: "hermes.turnTimeoutSeconds 0.3 is outside 30..604800 seconds: 30 is used"},
		{raw: `{"turnTimeoutSeconds":29}`, approval: 300, turn: 30, warn: "30 is used"},
		{raw: `{"turnTimeoutSeconds":30}`, approval: 300, turn: 30},
		{raw: `{"turnTimeoutSeconds":1e12}`, approval: 300, turn: 604800, warn: "604800 is used"},
		{raw: `{"turnTimeoutSeconds":-1}`, wantErr: "must not be negative"},
		{raw: `{"codex":{"model":"` + strings.Repeat("m", 200) + `"}}`, approval: 300, turn: 600},
		{raw: `{"codex":{"model":"` + strings.Repeat("m", 201) + `"}}`, wantErr: "hermes.codex.model: \"" + strings.Repeat("m", 39) + "…\" is 201 characters long: a model name has at most 200"},
		{raw: `{"codex":{"model":"` + strings.Repeat("é", 1<<20) + `"}}`, wantErr: "is 1048576 characters long"},
		{raw: `{"codex":{"model":"gpt-5\u001b[2J\r\n"}}`, wantErr: `hermes.codex.model: "gpt-5 " holds control characters`},
		{raw: `{"codex":{"model":"gpt-5\u202e"}}`, wantErr: `hermes.codex.model: "gpt-5" holds control characters`},
	} {
		base := settings.Default()
		st, warnings, err := settings.Parse(json.RawMessage(tc.raw), base)
		name := tc.raw[:min(len(tc.raw), 60)]
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", name, err, tc.wantErr)
			} else if len(err.Error()) > 200 || strings.IndexFunc(err.Error(), unicode.IsControl) >= 0 {
				t.Errorf("%s: the error is not one short line: %q", name, err)
			}
			if st.Codex.Model != base.Codex.Model || st.TurnTimeoutSeconds != base.TurnTimeoutSeconds {
				t.Errorf("%s: base not kept whole: %+v", name, st)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if st.Approvals.TimeoutSeconds != tc.approval || st.TurnTimeoutSeconds != tc.turn {
			t.Errorf("%s: approvals %v turn %v, want %v and %v", name, st.Approvals.TimeoutSeconds, st.TurnTimeoutSeconds, tc.approval, tc.turn)
		}
		got := strings.Join(warnings, "\n")
		if (tc.warn == "") != (got == "") || !strings.Contains(got, tc.warn) {
			t.Errorf("%s: warnings %q, want %q", name, got, tc.warn)
		}
	}
}

// TestTinyApprovalTimeoutStillAsks: approvals.timeoutSeconds 1e-9 from the workspace, whatever
// its source, does not decline commands unseen: the prompt shows and the user's answer counts.
func TestTinyApprovalTimeoutStillAsks(t *testing.T) {
	tiny := map[string]any{"approvals": map[string]any{"timeoutSeconds": 1e-9}}
	for _, how := range []string{"initializationOptions", "push", "pull"} {
		t.Run(how, func(t *testing.T) {
			var init map[string]any
			if how == "initializationOptions" {
				init = tiny
			}
			f := start(t, lsptest.VSCode, init, lsptest.WithShowMessageRequestHook(answers(hermesproto.TrustActionKeepAsking, hermesproto.ApprovalActionAllowOnce)))
			if how != "initializationOptions" {
				deliver(t, f, how, tiny)
				waitSettings(t, f, 1)
			}
			decided := make(chan string, 1)
			f.fake.OnTurn(func(ft *codextest.FakeTurn) {
				d, _ := ft.RequestExecApproval("make")
				decided <- d
				ft.Complete(codex.TurnCompleted, nil)
			})
			ctx := testCtx(t)
			f.ask(ctx, map[string]any{"prompt": "build"})
			if got := <-decided; got != codex.DecisionAccept {
				t.Fatalf("the command was %q, not the user's Allow once", got)
			}
			if n := len(approvalPrompts(f.ed)); n != 1 {
				t.Errorf("%d approval prompts, want 1", n)
			}
			f.awaitEnd(ctx)
		})
	}
}

// TestTurnTimeoutFloorFromEverySource: turnTimeoutSeconds 0.3 is raised to 30 s, with a warning in
// the log, from initializationOptions, a push and a pull alike.
func TestTurnTimeoutFloorFromEverySource(t *testing.T) {
	short := map[string]any{"turnTimeoutSeconds": 0.3}
	for _, how := range []string{"initializationOptions", "push", "pull"} {
		t.Run(how, func(t *testing.T) {
			var init map[string]any
			if how == "initializationOptions" {
				init = short
			}
			logs := &logBuffer{}
			f := startWith(t, lsp.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))}, lsptest.VSCode, init)
			if how != "initializationOptions" {
				deliver(t, f, how, short)
				waitSettings(t, f, 1)
			}
			if want := "hermes.turnTimeoutSeconds 0.3 is outside 30..604800 seconds: 30 is used"; !strings.Contains(logs.String(), want) {
				t.Errorf("no warning %q in the log:\n%s", want, logs)
			}
		})
	}
}

// TestModelNamesBounded: hermes.setModel and hermes.ask refuse a model name of a megabyte or one
// holding control characters, with a short error; a workspace's codex.model likewise is refused
// and shown, and the model in force stays.
func TestModelNamesBounded(t *testing.T) {
	f := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	huge := strings.Repeat("m", 1<<20)
	for _, args := range []map[string]any{
		{"model": huge},
		{"model": "gpt-5\x1b]8;;file:///etc\x07"},
		{"model": "gpt-5", "effort": huge},
	} {
		for _, cmd := range []string{hermesproto.CmdSetModel, hermesproto.CmdAsk} {
			if cmd == hermesproto.CmdAsk {
				args["prompt"] = "hi"
			}
			_, err := f.ed.ExecuteCommand(ctx, cmd, args)
			if err == nil || len(err.Error()) > 300 || strings.IndexFunc(err.Error(), unicode.IsControl) >= 0 {
				model, _ := args["model"].(string)
				effort, _ := args["effort"].(string)
				t.Errorf("%s with a %d-byte model, %d-byte effort: %.300v", cmd, len(model), len(effort), err)
			}
		}
	}
	command(t, f, hermesproto.CmdSetModel, map[string]any{"model": strings.Repeat("m", 200)}, nil)

	deliver(t, f, "push", map[string]any{"codex": map[string]any{"model": huge}})
	if err := f.ed.Await(ctx, lsptest.MessageContaining("Hermes settings not applied: hermes.codex.model: ")); err != nil {
		t.Fatal(err)
	}
}

// logBuffer collects a server's log, safe for its goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
