package agenthost_test

// Tests of codex requests other than plain exec approvals: requests the host cannot ask, patches.

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestOtherServerRequests checks the answers to requests the host cannot ask a person about
// (questions.go's tests cover the ones it asks), in manual mode and in yolo mode alike: each is
// refused without asking.
func TestOtherServerRequests(t *testing.T) {
	type reply struct {
		raw    json.RawMessage
		rpcErr *codex.Error
		err    error
	}
	for _, yolo := range []bool{false, true} {
		name := "manual"
		if yolo {
			name = "yolo"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			approver := newApprover(hermesproto.DecisionOnce)
			fh := newFakeHost(t, func(c *agenthost.Config) {
				c.Approver = approver
				c.Yolo = yolo
			})
			replies := make(chan reply, 8)
			fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
				for _, r := range []struct {
					method string
					params map[string]any
				}{
					// No questions, and a mode the host does not know: nothing to ask.
					{codex.RequestToolUserInput, map[string]any{"itemId": "ask_1", "questions": []any{}, "isBlocking": true}},
					{codex.RequestMcpElicitation, map[string]any{"serverName": "github", "message": "Pick a repository", "mode": "telepathy"}},
					{"item/unknown/request", map[string]any{"itemId": "x_1"}},
					// Malformed params: declined, never an accept.
					{codex.RequestCommandApproval, map[string]any{"itemId": 7, "command": []string{"rm"}}},
					// A thread no session owns.
					{codex.RequestCommandApproval, map[string]any{"threadId": "thread-999", "itemId": "call_x", "command": "ls", "cwd": "/"}},
				} {
					raw, rpcErr, err := ft.Request(r.method, r.params)
					replies <- reply{raw, rpcErr, err}
				}
				ft.AgentMessage("done")
			})
			res, events := run(t, fh.session(t), "ask for odd things")
			if !res.Completed {
				t.Fatalf("result: %+v", res)
			}
			want := []map[string]any{
				{"answers": map[string]any{}},
				{"action": "decline"},
				nil, // an error
				{"decision": "decline"},
				{"decision": "decline"},
			}
			for i, w := range want {
				r := recv(t, replies, "codex's reply to request "+strconv.Itoa(i))
				if r.err != nil {
					t.Fatalf("request %d: %v", i, r.err)
				}
				if w == nil {
					if r.rpcErr == nil || r.rpcErr.Code != codex.CodeMethodNotFound || !strings.Contains(r.rpcErr.Message, "item/unknown/request") {
						t.Errorf("request %d: want a method-not-found error, got result %s error %+v", i, r.raw, r.rpcErr)
					}
					continue
				}
				var got map[string]any
				if r.rpcErr != nil || json.Unmarshal(r.raw, &got) != nil || !reflect.DeepEqual(got, w) {
					t.Errorf("request %d: answer %s (error %+v), want %v", i, r.raw, r.rpcErr, w)
				}
			}
			noneAsked(t, approver)
			if n := len(ofKind(events, hermesproto.EventKindApprovalWaiting)); n != 0 {
				t.Errorf("%d approvalWaiting events", n)
			}
		})
	}
}

func TestPatchApprovalCarriesChanges(t *testing.T) {
	cases := []struct {
		name      string
		changes   []codex.FileChange
		grantRoot string
		summary   string
	}{
		{"two files", fileChanges("add a.go", "update b.go"), "", "add a.go, update b.go"},
		{"many files", fileChanges("add a.go", "update b.go", "delete c.go", "add d.go", "add e.go"), "", "add a.go, update b.go, delete c.go, +2 more"},
		{"grant root", fileChanges("add /srv/x.txt"), "/srv", "add /srv/x.txt (write access under /srv)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			approver := newApprover(hermesproto.DecisionOnce)
			fh := newFakeHost(t, func(c *agenthost.Config) { c.Approver = approver })
			got := make(chan string, 1)
			fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
				d, err := ft.RequestPatchApproval(tc.changes, "write the files", tc.grantRoot)
				if err != nil {
					d = "error: " + err.Error()
				}
				got <- d
				ft.AgentMessage("patched")
			})
			res, _ := run(t, fh.session(t), "patch")
			if d := recv(t, got, "codex's decision"); d != codex.DecisionAccept {
				t.Fatalf("codex got %q", d)
			}
			a := recv(t, approver.asked, "the patch approval")
			if a.Kind != hermesproto.ApprovalKindPatch || a.Summary != tc.summary || a.GrantRoot != tc.grantRoot || a.Reason != "write the files" {
				t.Errorf("patch approval: kind %q summary %q grantRoot %q reason %q", a.Kind, a.Summary, a.GrantRoot, a.Reason)
			}
			var want []hermesproto.FileChange
			for _, c := range tc.changes {
				want = append(want, hermesproto.FileChange{Path: c.Path, Kind: hermesproto.FileChangeKind{Type: c.Kind.Type, MovePath: c.Kind.MovePath}, Diff: c.Diff})
			}
			if !reflect.DeepEqual(a.Changes, want) {
				t.Errorf("changes %+v, want %+v", a.Changes, want)
			}
			md := readFile(t, res.TranscriptPath)
			if !strings.Contains(md, "**Patch** `") || !strings.Contains(md, "> ✅ allowed once by you: `"+tc.summary+"`") {
				t.Errorf("markdown:\n%s", md)
			}
		})
	}
}
