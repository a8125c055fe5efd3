package codextest_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// TestMinSchemaChecksFields: the oldest supported release's schema knows the fields hermes-lsp sends
// and names those it lacks, however deep, through unions and their tags.
func TestMinSchemaChecksFields(t *testing.T) {
	schema, err := codextest.MinSchema()
	if err != nil {
		t.Fatal(err)
	}
	if schema.Version != codex.MinVersion {
		t.Fatalf("schema of %s, want %s", schema.Version, codex.MinVersion)
	}
	for _, c := range []struct {
		method, params string
		want           []string
	}{
		{"thread/list", `{"cwd":"/w","sortKey":"updated_at","sortDirection":"desc","limit":50,"cursor":"2"}`, nil},
		{"thread/list", `{"cwd":["/w","/v"],"includedThreadIds":["t1"]}`, []string{"params.includedThreadIds"}},
		{"turn/start", `{"threadId":"t","input":[{"type":"text","text":"hi","text_elements":[]}],"effort":"high"}`, nil},
		{"turn/start", `{"threadId":"t","input":[{"type":"text","text":"hi","bogus":1}],"rootTurnId":"x"}`, []string{"params.input[0].bogus", "params.rootTurnId"}},
		// A union's tag picks the branch: a text input has no url, an image input has.
		{"turn/start", `{"threadId":"t","input":[{"type":"text","text":"hi","url":"u"}]}`, []string{"params.input[0].url"}},
		{"turn/start", `{"threadId":"t","input":[{"type":"image","url":"u","detail":null}]}`, nil},
		{"thread/start", `{"cwd":"/w","approvalPolicy":{"granular":{"rules":true,"sandbox_approval":true,"mcp_elicitations":true,"surprise":1}}}`, []string{"params.approvalPolicy.granular.surprise"}},
		{"no/such/method", `{}`, []string{"the method itself"}},
	} {
		got := schema.CheckRequest(c.method, json.RawMessage(c.params))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s: %q, want %q", c.method, c.params, got, c.want)
		}
	}
	if got := schema.CheckAnswer(codex.RequestCommandApproval, json.RawMessage(`{"decision":"accept"}`)); got != nil {
		t.Errorf("an approval's answer: %q", got)
	}
	if got := schema.CheckAnswer(codex.RequestCommandApproval, json.RawMessage(`{"decision":"accept","why":"x"}`)); !slices.Equal(got, []string{"result.why"}) {
		t.Errorf("an approval's answer with a field of its own: %q", got)
	}
	// An elicitation's content is the MCP server's form: any shape. Beside it, fields are checked.
	if got := schema.CheckAnswer(codex.RequestMcpElicitation, json.RawMessage(`{"action":"accept","content":{"color":"g","tags":["a"]}}`)); got != nil {
		t.Errorf("an elicitation's content: %q", got)
	}
	if got := schema.CheckAnswer(codex.RequestMcpElicitation, json.RawMessage(`{"action":"accept","content":{},"extra":1}`)); !slices.Equal(got, []string{"result.extra"}) {
		t.Errorf("an elicitation's answer with a field of its own: %q", got)
	}
	if got := schema.CheckAnswer("no/such/request", json.RawMessage(`{"x":1}`)); got != nil {
		t.Errorf("the answer to a request the release never makes: %q", got)
	}
}
