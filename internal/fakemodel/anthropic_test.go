package fakemodel

// Tests of the Anthropic Messages API.

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// anthropicStream posts a streamed Messages API request and returns the events of its answer.
func anthropicStream(t *testing.T, srv *Server, body string) []Event {
	t.Helper()
	resp := post(t, t.Context(), srv, "/messages", body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events, err := ReadEvents(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// eventTypes returns the types of events, in order.
func eventTypes(events []Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}

const anthropicBody = `{"model":"claude-x","stream":true,"max_tokens":100,` +
	`"system":[{"type":"text","text":"be brief"}],` +
	`"tools":[{"name":"Bash","input_schema":{}},{"name":"Edit","input_schema":{}}],` +
	`"messages":[{"role":"user","content":"hello"}]}`

func TestAnthropicStreamMessage(t *testing.T) {
	srv := startServer(t)
	srv.EnqueueAnthropic(MessageChunks("Hi ", "there.").WithReasoning("thinking it over"))
	events := anthropicStream(t, srv, anthropicBody)
	want := []string{
		"message_start",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", // thinking
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", // text
		"message_delta", "message_stop",
	}
	if got := eventTypes(events); !slices.Equal(got, want) {
		t.Fatalf("events %q\nwant %q", got, want)
	}
	for _, e := range events {
		if e.Data["type"] != e.Type {
			t.Errorf("event %s has data type %v", e.Type, e.Data["type"])
		}
	}
	start := events[0].Data["message"]
	if dig(start, "id") != "msg_1" || dig(start, "model") != "claude-x" || dig(start, "role") != "assistant" {
		t.Errorf("message_start %v", start)
	}
	// The Messages API counts the tokens read from the cache apart from input_tokens.
	if dig(start, "usage", "input_tokens") != 200.0 || dig(start, "usage", "cache_read_input_tokens") != 1000.0 {
		t.Errorf("message_start usage %v", dig(start, "usage"))
	}
	if dig(events[1].Data, "content_block", "type") != "thinking" || dig(events[2].Data, "delta", "thinking") != "thinking it over" ||
		dig(events[3].Data, "delta", "type") != "signature_delta" {
		t.Errorf("thinking block %v %v %v", events[1].Data, events[2].Data, events[3].Data)
	}
	var text strings.Builder
	for _, e := range events[5:9] {
		if e.Data["index"] != 1.0 {
			t.Errorf("text block event %s at index %v, want 1", e.Type, e.Data["index"])
		}
		if d, ok := dig(e.Data, "delta", "text").(string); ok {
			text.WriteString(d)
		}
	}
	if text.String() != "Hi there." {
		t.Errorf("text %q", text.String())
	}
	if d := events[9].Data; dig(d, "delta", "stop_reason") != "end_turn" || dig(d, "usage", "output_tokens") != 34.0 {
		t.Errorf("message_delta %v", d)
	}

	reqs := srv.AnthropicRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "claude-x" || !r.Stream || r.System != "be brief" || !slices.Equal(r.Tools, []string{"Bash", "Edit"}) ||
		r.UserText() != "hello" || string(r.Body) != anthropicBody {
		t.Errorf("request %+v", r)
	}
	if len(srv.Requests())+len(srv.ChatRequests()) != 0 {
		t.Error("a Messages API request was recorded as another API's")
	}
}

func TestAnthropicStreamToolUse(t *testing.T) {
	srv := startServer(t)
	srv.EnqueueAnthropic(Call("Edit", `{"file_path":"/a","old_string":"x","new_string":"y"}`), Exec("ls -l"), Call("Read", "not json"))
	for _, want := range []struct{ name, input string }{
		{"Edit", `{"file_path":"/a","old_string":"x","new_string":"y"}`},
		{"Bash", `{"command":"ls -l"}`},
		{"Read", `{}`},
	} {
		events := anthropicStream(t, srv, anthropicBody)
		wantTypes := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
		if got := eventTypes(events); !slices.Equal(got, wantTypes) {
			t.Fatalf("events %q", got)
		}
		block := dig(events[1].Data, "content_block")
		if dig(block, "type") != "tool_use" || dig(block, "name") != want.name || !strings.HasPrefix(dig(block, "id").(string), "call_") {
			t.Errorf("tool_use block %v, want %s", block, want.name)
		}
		if d := dig(events[2].Data, "delta"); dig(d, "type") != "input_json_delta" || dig(d, "partial_json") != want.input {
			t.Errorf("delta %v, want input %s", d, want.input)
		}
		if dig(events[4].Data, "delta", "stop_reason") != "tool_use" {
			t.Errorf("message_delta %v", events[4].Data)
		}
	}
}

func TestAnthropicFailuresAndHang(t *testing.T) {
	srv := startServer(t)
	srv.EnqueueAnthropic(Failed("overloaded"), HTTPError(529, `{"type":"error"}`), Patch("p"), Hang())

	events := anthropicStream(t, srv, anthropicBody)
	if got := eventTypes(events); !slices.Equal(got, []string{"message_start", "error"}) ||
		dig(events[1].Data, "error", "message") != "overloaded" {
		t.Errorf("failed stream %q %v", got, events)
	}
	if resp := post(t, t.Context(), srv, "/messages", anthropicBody); resp.StatusCode != 529 {
		t.Errorf("HTTP error: status %d", resp.StatusCode)
	}
	resp := post(t, t.Context(), srv, "/messages", anthropicBody)
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	if resp.StatusCode != 500 || dig(m, "error", "type") != "api_error" {
		t.Errorf("patch: status %d %v", resp.StatusCode, m)
	}

	// A hanging reply sends message_start and then waits for the client to go away.
	ctx, cancel := context.WithCancel(t.Context())
	resp = post(t, ctx, srv, "/messages", anthropicBody)
	if e := readFirstEvent(t, resp.Body); e.Type != "message_start" {
		t.Errorf("first event %q", e.Type)
	}
	cancel()
	waitLog(t, srv, "/v1/messages hang ended: client went away")
}

func TestAnthropicNonStreamDefaultAndCount(t *testing.T) {
	srv := startServer(t)
	srv.EnqueueAnthropic(Call("Bash", `{"command":"ls"}`))
	send := func(body string) map[string]any {
		resp := post(t, t.Context(), srv, "/messages", body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := send(`{"messages":[{"role":"user","content":"list"}]}`)
	block := m["content"].([]any)[0]
	if m["stop_reason"] != "tool_use" || m["model"] != DefaultAnthropicModel || dig(block, "name") != "Bash" ||
		dig(block, "input", "command") != "ls" || dig(m, "usage", "output_tokens") != 34.0 {
		t.Errorf("tool use message %v", m)
	}
	// With the queue empty, a tool result is echoed, as DefaultReply does.
	withResult := `{"model":"m","messages":[{"role":"user","content":"list"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"Bash","input":{"command":"ls"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"a.txt"}]},{"type":"text","text":"<reminder>"}]}]}`
	m = send(withResult)
	if dig(m["content"].([]any)[0], "text") != "Done. Tool said: a.txt" || m["stop_reason"] != "end_turn" {
		t.Errorf("default after a tool result %v", m)
	}
	r := srv.AnthropicRequests()[1]
	use, result := r.Messages[1].Blocks[0], r.Messages[2].Blocks[0]
	if use.Type != "tool_use" || use.ID != "call_1" || use.Name != "Bash" || use.Input != `{"command":"ls"}` ||
		result.Type != "tool_result" || result.ToolUseID != "call_1" || result.Text != "a.txt" {
		t.Errorf("blocks %+v %+v", use, result)
	}
	// The newest user message holds a tool result and a reminder: its text is the reminder's.
	if got := r.UserText(); got != "<reminder>" {
		t.Errorf("UserText %q", got)
	}
	srv.SetAnthropicDefault(func(r AnthropicRequest) Reply { return Message("custom " + r.UserText()) })
	if m = send(`{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`); dig(m["content"].([]any)[0], "text") != "custom x" {
		t.Errorf("custom default %v", m)
	}
	srv.SetAnthropicDefault(nil)
	if m = send(`{"messages":[{"role":"user","content":"x"}]}`); dig(m["content"].([]any)[0], "text") != "Done. Hello from the fake model." {
		t.Errorf("restored default %v", m)
	}

	resp := post(t, t.Context(), srv, "/messages/count_tokens", `{"messages":[{"role":"user","content":"12345678"}]}`)
	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&count); err != nil || count.InputTokens <= 0 {
		t.Errorf("count_tokens: %v %+v", err, count)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := srv.WaitAnthropicRequests(ctx, 4); err != nil {
		t.Errorf("WaitAnthropicRequests: %v", err)
	}
	if !strings.HasPrefix(srv.AnthropicBaseURL(), "http://127.0.0.1:") || srv.AnthropicBaseURL()+"/v1" != srv.BaseURL() {
		t.Errorf("AnthropicBaseURL %q, BaseURL %q", srv.AnthropicBaseURL(), srv.BaseURL())
	}
}
