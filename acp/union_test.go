package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/acp"
)

// TestUnionsEncode: a union encodes its variant with the member that names its kind (the variant's
// one kind when Kind is empty, none for the variant taken when it is absent), a union decoded from
// an unknown kind encodes as it came, and one with nothing set is an error rather than null.
func TestUnionsEncode(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{acp.TextBlock("hi"), `{"text":"hi","type":"text"}`},
		{acp.MCPServer{MCPServerStdio: &acp.MCPServerStdio{Name: "t", Command: "/bin/t", Args: []string{}, Env: []acp.EnvVariable{}}},
			`{"args":[],"command":"/bin/t","env":[],"name":"t"}`},
		{acp.MCPServer{MCPServerHTTP: &acp.MCPServerHTTP{Name: "h", URL: "https://h", Headers: []acp.HTTPHeader{}}},
			`{"headers":[],"name":"h","type":"http","url":"https://h"}`},
		{acp.Cancelled().Outcome, `{"outcome":"cancelled"}`},
		{acp.Selected("ok").Outcome, `{"optionId":"ok","outcome":"selected"}`},
		{acp.SessionUpdate{Kind: acp.SessionUpdateKindAgentThoughtChunk, ContentChunk: &acp.ContentChunk{Content: acp.TextBlock("hm")}},
			`{"content":{"text":"hm","type":"text"},"sessionUpdate":"agent_thought_chunk"}`},
		{acp.SessionUpdate{Raw: json.RawMessage(`{"sessionUpdate":"x"}`)}, `{"sessionUpdate":"x"}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%+v: %s, %v; want %s", c.v, b, err, c.want)
		}
	}
	for _, v := range []any{
		acp.SessionUpdate{ContentChunk: &acp.ContentChunk{Content: acp.TextBlock("which kind?")}}, // three kinds share it
		acp.ContentBlock{},
	} {
		if b, err := json.Marshal(v); err == nil {
			t.Errorf("%+v encoded as %s", v, b)
		}
	}
}

// TestUnionsDecode: what an agent sends decodes into the variant its kind names; an unknown kind
// keeps its raw JSON; the variant taken when the kind is absent is; something that is not even an
// object is an unknown kind, not an error.
func TestUnionsDecode(t *testing.T) {
	var methods []acp.AuthMethod
	err := json.Unmarshal([]byte(`[{"id":"chatgpt","name":"ChatGPT"},{"type":"env_var","id":"key","name":"Key","vars":[{"name":"K"}]},`+
		`{"type":"terminal","id":"t","name":"T","args":["login"]},"nonsense",null]`), &methods)
	if err != nil {
		t.Fatal(err)
	}
	if len(methods) != 5 {
		t.Fatalf("%d methods", len(methods))
	}
	if m := methods[0]; m.Kind != "" || m.AuthMethodAgent == nil || m.AuthMethodAgent.ID != "chatgpt" {
		t.Errorf("agent method %+v", m)
	}
	if m := methods[1]; m.Kind != "env_var" || m.AuthMethodAgent != nil || !strings.Contains(string(m.Raw), `"vars"`) {
		t.Errorf("env_var method %+v", m)
	}
	if m := methods[2]; m.AuthMethodTerminal == nil || len(m.AuthMethodTerminal.Args) != 1 {
		t.Errorf("terminal method %+v", m)
	}
	if m := methods[3]; m.AuthMethodAgent != nil || string(m.Raw) != `"nonsense"` {
		t.Errorf("a string: %+v", m)
	}
	if m := methods[4]; m.AuthMethodAgent != nil || m.Raw != nil || m.Kind != "" {
		t.Errorf("null: %+v", m)
	}
}
