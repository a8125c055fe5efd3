package agenthost_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// askedOnce runs one turn whose script asks one question (ask, returning codex's answer as JSON),
// answered by an approver that replies r, and returns what the approver was asked, the answer
// codex got, the turn's result and its events.
func askedOnce(t *testing.T, r agenthost.Reply, mutate func(*agenthost.Config), ask func(ft *codextest.FakeTurn) (any, error)) (hermesproto.Approval, string, *hermesproto.Result, []hermesproto.Event, *codextest.FakeTurn) {
	t.Helper()
	rec := newApprover(r.Decision)
	rec.answers = r.Answers
	fh := newFakeHost(t, func(c *agenthost.Config) {
		c.Approver = rec
		if mutate != nil {
			mutate(c)
		}
	})
	answer := make(chan string, 1)
	turns := make(chan *codextest.FakeTurn, 1)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		turns <- ft
		res, err := ask(ft)
		if err != nil {
			answer <- "error: " + err.Error()
		} else {
			b, _ := json.Marshal(res)
			answer <- string(b)
		}
		if r.Decision == hermesproto.DecisionStop {
			<-ft.Interrupted()
			ft.Complete(codex.TurnInterrupted, nil)
			return
		}
		ft.AgentMessage("ok")
	})
	res, events := run(t, fh.session(t), "go")
	var asked hermesproto.Approval
	select {
	case asked = <-rec.asked:
	default:
	}
	return asked, recv(t, answer, "codex's answer"), res, events, <-turns
}

func TestPermissionsRequestAsked(t *testing.T) {
	perms := map[string]any{
		"network": map[string]any{"enabled": true},
		"fileSystem": map[string]any{
			"write": []string{"/srv/data"},
			"entries": []map[string]any{
				{"access": "read", "path": map[string]any{"type": "special", "value": map[string]any{"kind": "tmpdir"}}},
				{"access": "deny", "path": map[string]any{"type": "path", "path": "/etc"}},
				{"access": "write", "path": map[string]any{"type": "glob_pattern", "pattern": "**/*.log"}},
			},
		},
	}
	ask := func(ft *codextest.FakeTurn) (any, error) {
		return ft.RequestPermissions(perms, "fetch the schema\x1b[31m")
	}
	cases := []struct {
		decision hermesproto.Decision
		want     string // codex's answer
	}{
		{hermesproto.DecisionOnce, `"scope":"turn"`},
		{hermesproto.DecisionSession, `"scope":"session"`},
		{hermesproto.DecisionDeny, `{"permissions":{},"scope":"turn"}`},
		{hermesproto.DecisionStop, `{"permissions":{},"scope":"turn"}`},
	}
	for _, tc := range cases {
		t.Run(string(tc.decision), func(t *testing.T) {
			t.Parallel()
			asked, answer, res, events, _ := askedOnce(t, agenthost.Reply{Decision: tc.decision}, nil, ask)
			if asked.Kind != hermesproto.ApprovalKindPermissions || asked.Permissions == nil {
				t.Fatalf("asked: %+v", asked)
			}
			want := hermesproto.Permissions{Network: true, Read: []string{"the temporary folder"}, Write: []string{"/srv/data", "files matching **/*.log"}}
			if !reflect.DeepEqual(*asked.Permissions, want) {
				t.Errorf("permissions in words: %+v, want %+v", *asked.Permissions, want)
			}
			if asked.Reason != "fetch the schema" || !strings.Contains(asked.Summary, "network access") {
				t.Errorf("reason %q (escape removed?), summary %q", asked.Reason, asked.Summary)
			}
			if !strings.Contains(answer, tc.want) && !stoppedFirst(tc.decision, answer) {
				t.Errorf("codex got %s, want it to contain %s", answer, tc.want)
			}
			if granted := strings.Contains(answer, `"enabled":true`) && strings.Contains(answer, "/srv/data"); granted != (tc.decision == hermesproto.DecisionOnce || tc.decision == hermesproto.DecisionSession) {
				t.Errorf("codex got %s: granted %v for %s", answer, granted, tc.decision)
			}
			if tc.decision == hermesproto.DecisionStop && res.Status != codex.TurnInterrupted {
				t.Errorf("Stop turn: the turn ended %s", res.Status)
			}
			resolved := ofKind(events, hermesproto.EventKindApprovalResolved)
			if len(resolved) != 1 || resolved[0].Approval.Decision != tc.decision {
				t.Errorf("approvalResolved events: %+v", resolved)
			}
		})
	}
}

// formSchema is an MCP form with one field of each kind the host reads, in an order that is not
// sorted (the questions keep it).
var formSchema = json.RawMessage(`{"type": "object", "properties": {
	"name": {"type": "string", "title": "Name", "description": "Your name"},
	"count": {"type": "integer", "default": 2},
	"ratio": {"type": "number"},
	"confirm": {"type": "boolean", "title": "Confirm"},
	"color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]},
	"size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
	"tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}}
}, "required": ["name", "confirm"]}`)

func TestElicitationAsked(t *testing.T) {
	answers := map[string][]string{"name": {"Ada"}, "count": {"3"}, "ratio": {"0.5"}, "confirm": {"true"}, "color": {"g"}, "size": {"l"}, "tags": {"a", "c"}}
	ask := func(ft *codextest.FakeTurn) (any, error) {
		return ft.Elicit("docs", "Fill in the form", formSchema, "")
	}
	t.Run("accept", func(t *testing.T) {
		t.Parallel()
		asked, answer, _, events, _ := askedOnce(t, agenthost.Reply{Decision: hermesproto.DecisionOnce, Answers: answers}, nil, ask)
		if asked.Kind != hermesproto.ApprovalKindElicitation || asked.Server != "docs" || asked.Message != "Fill in the form" || asked.Summary != "docs: Fill in the form" {
			t.Fatalf("asked: %+v", asked)
		}
		var ids []string
		types := map[string]hermesproto.QuestionType{}
		for _, q := range asked.Questions {
			ids = append(ids, q.ID)
			types[q.ID] = q.Type
		}
		// The form's order, as written.
		if want := []string{"name", "count", "ratio", "confirm", "color", "size", "tags"}; !reflect.DeepEqual(ids, want) {
			t.Errorf("questions %v, want %v", ids, want)
		}
		wantTypes := map[string]hermesproto.QuestionType{"name": "text", "count": "integer", "ratio": "number", "confirm": "boolean", "color": "choice", "size": "choice", "tags": "multiChoice"}
		if !reflect.DeepEqual(types, wantTypes) {
			t.Errorf("types %v, want %v", types, wantTypes)
		}
		q := asked.Questions
		if !q[0].Required || q[1].Required || q[0].Header != "Name" || q[0].Text != "Your name" || !reflect.DeepEqual(q[1].Default, []string{"2"}) {
			t.Errorf("name/count: %+v %+v", q[0], q[1])
		}
		if q[4].Options[1] != (hermesproto.QuestionOption{Value: "g", Label: "Green"}) || q[5].Options[0] != (hermesproto.QuestionOption{Value: "s", Label: "Small"}) {
			t.Errorf("options: %+v %+v", q[4].Options, q[5].Options)
		}
		want := `{"action":"accept","content":{"color":"g","confirm":true,"count":3,"name":"Ada","ratio":0.5,"size":"l","tags":["a","c"]}}`
		if answer != want {
			t.Errorf("codex got %s\nwant %s", answer, want)
		}
		resolved := ofKind(events, hermesproto.EventKindApprovalResolved)
		if len(resolved) != 1 || !reflect.DeepEqual(resolved[0].Approval.Answers, answers) {
			t.Errorf("approvalResolved: %+v", resolved)
		}
	})
	for _, tc := range []struct {
		d    hermesproto.Decision
		want string
	}{{hermesproto.DecisionDeny, `{"action":"decline"}`}, {hermesproto.DecisionStop, `{"action":"cancel"}`}} {
		t.Run(string(tc.d), func(t *testing.T) {
			t.Parallel()
			_, answer, res, _, _ := askedOnce(t, agenthost.Reply{Decision: tc.d}, nil, ask)
			if answer != tc.want && !stoppedFirst(tc.d, answer) {
				t.Errorf("codex got %s, want %s", answer, tc.want)
			}
			if (res.Status == codex.TurnInterrupted) != (tc.d == hermesproto.DecisionStop) {
				t.Errorf("turn ended %s after %s", res.Status, tc.d)
			}
		})
	}
	t.Run("answers that do not fit", func(t *testing.T) {
		t.Parallel()
		// A required field unanswered: declined, never sent half-filled.
		_, answer, _, events, _ := askedOnce(t, agenthost.Reply{Decision: hermesproto.DecisionOnce, Answers: map[string][]string{"name": {"Ada"}}}, nil, ask)
		if answer != `{"action":"decline"}` {
			t.Errorf("codex got %s", answer)
		}
		if r := ofKind(events, hermesproto.EventKindApprovalResolved); len(r) != 1 || r[0].Approval.DecidedBy != "error" {
			t.Errorf("approvalResolved: %+v", r)
		}
	})
	t.Run("url", func(t *testing.T) {
		t.Parallel()
		asked, answer, _, _, _ := askedOnce(t, agenthost.Reply{Decision: hermesproto.DecisionOnce}, nil, func(ft *codextest.FakeTurn) (any, error) {
			return ft.Elicit("auth", "Sign in", nil, "https://example.com/login")
		})
		if asked.URL != "https://example.com/login" || len(asked.Questions) != 0 || answer != `{"action":"accept"}` {
			t.Errorf("asked %+v; codex got %s", asked, answer)
		}
	})
	t.Run("a form the host cannot read", func(t *testing.T) {
		t.Parallel()
		schema := json.RawMessage(`{"type": "object", "properties": {"blob": {"type": "object"}}}`)
		asked, answer, _, _, _ := askedOnce(t, agenthost.Reply{Decision: hermesproto.DecisionOnce}, nil, func(ft *codextest.FakeTurn) (any, error) {
			return ft.Elicit("docs", "?", schema, "")
		})
		if asked.ID != "" || answer != `{"action":"decline"}` {
			t.Errorf("asked %+v; codex got %s", asked, answer)
		}
	})
}

var userQuestions = []map[string]any{
	{"id": "db", "header": "Database", "question": "Which database?", "options": []map[string]any{{"label": "Postgres", "description": "the default"}, {"label": "SQLite", "description": "a file"}}},
	{"id": "token", "header": "Token", "question": "Your API token?", "isSecret": true},
}

func TestUserInputAsked(t *testing.T) {
	ask := func(ft *codextest.FakeTurn) (any, error) { return ft.AskUser(userQuestions) }
	t.Run("answered", func(t *testing.T) {
		t.Parallel()
		const secret = "sk-very-secret-1234"
		asked, answer, res, events, _ := askedOnce(t, agenthost.Reply{Decision: hermesproto.DecisionOnce, Answers: map[string][]string{"db": {"SQLite"}, "token": {secret}}}, nil, ask)
		if asked.Kind != hermesproto.ApprovalKindUserInput || len(asked.Questions) != 2 || asked.Summary != "Which database? (+1 more)" {
			t.Fatalf("asked: %+v", asked)
		}
		if q := asked.Questions[0]; q.Type != hermesproto.QuestionTypeChoice || len(q.Options) != 2 || q.Options[1].Value != "SQLite" || !q.Required {
			t.Errorf("db: %+v", q)
		}
		if q := asked.Questions[1]; q.Type != hermesproto.QuestionTypeText || !q.Secret {
			t.Errorf("token: %+v", q)
		}
		want := `{"answers":{"db":{"answers":["SQLite"]},"token":{"answers":["` + secret + `"]}}}`
		if answer != want {
			t.Errorf("codex got %s\nwant %s", answer, want)
		}
		// The secret reaches codex only: not the events, not the transcript.
		b, _ := json.Marshal(events)
		if strings.Contains(string(b), secret) {
			t.Errorf("an event holds the secret answer")
		}
		resolved := ofKind(events, hermesproto.EventKindApprovalResolved)
		if len(resolved) != 1 || !reflect.DeepEqual(resolved[0].Approval.Answers, map[string][]string{"db": {"SQLite"}}) {
			t.Errorf("approvalResolved answers: %+v", resolved)
		}
		md, err := os.ReadFile(res.TranscriptPath)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(md), secret) || !strings.Contains(string(md), "answered by you") || !strings.Contains(string(md), "Database: `SQLite`") {
			t.Errorf("transcript:\n%s", md)
		}
	})
	t.Run("declined", func(t *testing.T) {
		t.Parallel()
		_, answer, _, _, _ := askedOnce(t, agenthost.Reply{Decision: hermesproto.DecisionDeny}, nil, ask)
		if answer != `{"answers":{}}` {
			t.Errorf("codex got %s", answer)
		}
	})
	t.Run("not an option", func(t *testing.T) {
		t.Parallel()
		_, answer, _, _, _ := askedOnce(t, agenthost.Reply{Decision: hermesproto.DecisionOnce, Answers: map[string][]string{"db": {"MySQL"}, "token": {"x"}}}, nil, ask)
		if answer != `{"answers":{}}` {
			t.Errorf("codex got %s", answer)
		}
	})
	t.Run("asked even with auto-approval", func(t *testing.T) {
		t.Parallel()
		asked, answer, _, _, _ := askedOnce(t, agenthost.Reply{Decision: hermesproto.DecisionOnce, Answers: map[string][]string{"db": {"Postgres"}, "token": {"t"}}},
			func(c *agenthost.Config) { c.Yolo = true }, ask)
		if asked.ID == "" || !strings.Contains(answer, "Postgres") {
			t.Errorf("with yolo: asked %+v, codex got %s", asked, answer)
		}
	})
	t.Run("timeout declines", func(t *testing.T) {
		t.Parallel()
		rec := newApprover("")
		rec.block = true
		fh := newFakeHost(t, func(c *agenthost.Config) { c.Approver, c.ApprovalTimeout = rec, 50*time.Millisecond })
		answer := make(chan string, 1)
		fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
			res, err := ft.AskUser(userQuestions)
			b, _ := json.Marshal(res)
			answer <- string(b) + errString(err)
			ft.AgentMessage("ok")
		})
		_, events := run(t, fh.session(t), "go")
		if got := recv(t, answer, "codex's answer"); got != `{"answers":{}}` {
			t.Errorf("codex got %s", got)
		}
		if r := ofKind(events, hermesproto.EventKindApprovalResolved); len(r) != 1 || r[0].Approval.DecidedBy != "timeout" {
			t.Errorf("approvalResolved: %+v", r)
		}
	})
}

// stoppedFirst reports whether a Stop turn's interrupt reached codex before the answer did: the
// host sends both at once, so codex may withdraw the request first. Either way nothing is granted
// and the turn stops (the tests check that the turn ended interrupted).
func stoppedFirst(d hermesproto.Decision, answer string) bool {
	return d == hermesproto.DecisionStop && answer == "error: "+codextest.ErrInterrupted.Error()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return " error: " + err.Error()
}

// TestResolveChecksAnswers: hermes.approve's answers are checked against the questions; answers
// that do not fit are refused and the question stays pending.
func TestResolveChecksAnswers(t *testing.T) {
	rec := newApprover("")
	rec.block = true
	fh := newFakeHost(t, func(c *agenthost.Config) { c.Approver = rec })
	answer := make(chan codex.UserInputResponse, 1)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		res, _ := ft.AskUser(userQuestions)
		answer <- res
		ft.AgentMessage("ok")
	})
	s := fh.session(t)
	turn, err := s.Run(t.Context(), agenthost.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	waiting, _ := nextEvent(t, turn.Events(), hermesproto.EventKindApprovalWaiting)
	id := waiting.Approval.ID
	if p := s.Status().PendingApprovals; len(p) != 1 || len(p[0].Questions) != 2 {
		t.Fatalf("pending: %+v", p)
	}
	for _, bad := range []map[string][]string{
		nil,                               // nothing answered
		{"db": {"SQLite"}},                // the token missing
		{"db": {"MySQL"}, "token": {"x"}}, // not an option
		{"db": {"SQLite", "Postgres"}, "token": {"x"}},     // two answers to a choice
		{"db": {"SQLite"}, "token": {"x"}, "other": {"y"}}, // no such question
	} {
		if err := fh.Resolve(id, agenthost.Reply{Decision: hermesproto.DecisionOnce, Answers: bad}); err == nil {
			t.Errorf("answers %v accepted", bad)
		}
	}
	if err := fh.Resolve(id, agenthost.Reply{Decision: hermesproto.DecisionOnce, Answers: map[string][]string{"db": {"Postgres"}, "token": {"x"}}}); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, answer, "codex's answer"); got.Answers["db"].Answers[0] != "Postgres" {
		t.Errorf("codex got %+v", got)
	}
	finish(t, turn)
}

// TestMcpToolCallApproval: codex's own approval of an MCP tool call (an elicitation marked in its
// _meta) names the tool, and auto-approval accepts it as it does a command; without auto-approval
// it is asked.
func TestMcpToolCallApproval(t *testing.T) {
	ask := func(ft *codextest.FakeTurn) (any, error) {
		res, _, err := ft.Request(codex.RequestMcpElicitation, map[string]any{
			"serverName": "docs", "mode": "form", "message": `Allow the docs MCP server to run tool "search"?`,
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
			"_meta":           map[string]any{"codex_approval_kind": "mcp_tool_call", "tool_name": "search", "persist": []string{"session", "always"}},
		})
		return res, err
	}
	for _, yolo := range []bool{false, true} {
		t.Run("yolo="+strconv.FormatBool(yolo), func(t *testing.T) {
			t.Parallel()
			asked, answer, _, events, _ := askedOnce(t, agenthost.Reply{Decision: hermesproto.DecisionOnce}, func(c *agenthost.Config) { c.Yolo = yolo }, ask)
			if answer != `{"action":"accept"}` {
				t.Errorf("codex got %s", answer)
			}
			if yolo != (asked.ID == "") {
				t.Errorf("yolo %v: the approver was asked: %+v", yolo, asked)
			}
			r := ofKind(events, hermesproto.EventKindApprovalResolved)
			if len(r) != 1 || r[0].Approval.Tool != "search" || (r[0].Approval.DecidedBy == "policy") != yolo {
				t.Errorf("approvalResolved: %+v", r)
			}
		})
	}
}
