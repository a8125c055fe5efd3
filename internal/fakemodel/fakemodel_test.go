package fakemodel

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// startServer starts a fake that is closed at the end of the test.
func startServer(t *testing.T) *Server {
	t.Helper()
	srv, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// waitLog waits until the server logged a line containing substr.
func waitLog(t *testing.T, srv *Server, substr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	err := srv.wait(ctx, func() bool {
		return slices.ContainsFunc(srv.log, func(l string) bool { return strings.Contains(l, substr) })
	})
	if err != nil {
		t.Fatalf("waiting for log line %q: %v; log %q", substr, err, srv.Log())
	}
}

// dig walks nested JSON objects along keys.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		if m == nil {
			return nil
		}
		v = m[k]
	}
	return v
}

// post sends body to the server's path and returns the response; the body is closed at test end.
func post(t *testing.T, ctx context.Context, srv *Server, path, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", srv.BaseURL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// respond posts a Responses API request and returns the events of its streamed answer.
func respond(t *testing.T, srv *Server, body string) []Event {
	t.Helper()
	resp := post(t, t.Context(), srv, "/responses", body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	events, err := ReadEvents(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func types(events []Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}

// completedOutput returns the output items and usage of the final response.completed.
func completed(t *testing.T, events []Event) (output []any, usage map[string]any) {
	t.Helper()
	last := events[len(events)-1]
	if last.Type != "response.completed" {
		t.Fatalf("last event %q, want response.completed", last.Type)
	}
	resp, _ := last.Data["response"].(map[string]any)
	output, _ = resp["output"].([]any)
	usage, _ = resp["usage"].(map[string]any)
	return output, usage
}

const userBody = `{"model":"gpt-5.5","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`

func TestSplitChunks(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", []string{""}},
		{"one", []string{"one"}},
		{"Done. Hello from the fake model.", []string{"Done. ", "Hello ", "from ", "the ", "fake ", "model."}},
		{"a  b ", []string{"a  ", "b "}},
	} {
		if got := splitChunks(tc.text, maxChunks); !slices.Equal(got, tc.want) {
			t.Errorf("splitChunks(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	long := strings.Repeat("word ", 100)
	got := splitChunks(long, maxChunks)
	if len(got) != maxChunks || strings.Join(got, "") != long {
		t.Errorf("long text: %d chunks, joined equal %v", len(got), strings.Join(got, "") == long)
	}
}

func TestAddFilePatch(t *testing.T) {
	if got, want := AddFilePatch("x", "line\n"), "*** Begin Patch\n*** Add File: x\n+line\n*** End Patch\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := AddFilePatch("d/y.txt", "a\n\nb"), "*** Begin Patch\n*** Add File: d/y.txt\n+a\n+\n+b\n*** End Patch\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := AddFilePatch("e", ""), "*** Begin Patch\n*** Add File: e\n*** End Patch\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestUpdateFilePatch(t *testing.T) {
	got := UpdateFilePatch("d/x.go", "a\nb\n", "c")
	want := "*** Begin Patch\n*** Update File: d/x.go\n@@\n-a\n-b\n+c\n*** End Patch\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEventEncoding(t *testing.T) {
	var buf bytes.Buffer
	e := Event{Type: "response.output_text.delta", Data: map[string]any{"type": "response.output_text.delta", "delta": "a\nb"}}
	if _, err := e.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	want := "event: response.output_text.delta\ndata: {\"delta\":\"a\\nb\",\"type\":\"response.output_text.delta\"}\n\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	got, err := ReadEvents(strings.NewReader(want + "data: {\"type\":\"x\"}\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Type != e.Type || got[0].Data["delta"] != "a\nb" || got[1].Type != "x" {
		t.Errorf("ReadEvents = %+v", got)
	}
}

func TestMessageStream(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(Message("Hello from a test."))
	events := respond(t, srv, userBody)
	want := []string{
		"response.created",
		"response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta", "response.output_text.delta", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.completed",
	}
	if got := types(events); !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	var text strings.Builder
	for i, e := range events {
		if e.Data["type"] != e.Type || e.Data["sequence_number"] != float64(i) {
			t.Errorf("event %d: type %v, sequence_number %v", i, e.Data["type"], e.Data["sequence_number"])
		}
		if e.Type == "response.output_text.delta" {
			text.WriteString(e.Data["delta"].(string))
			if e.Data["item_id"] != "msg_resp_1" {
				t.Errorf("delta item_id %v", e.Data["item_id"])
			}
		}
	}
	if text.String() != "Hello from a test." {
		t.Errorf("deltas make %q", text.String())
	}
	if id := dig(events[0].Data, "response", "id"); id != "resp_1" {
		t.Errorf("response id %v", id)
	}
	output, usage := completed(t, events)
	if len(output) != 1 || dig(output[0], "type") != "message" || dig(output[0], "role") != "assistant" {
		t.Fatalf("output %v", output)
	}
	if got := dig(output[0], "content").([]any)[0].(map[string]any)["text"]; got != "Hello from a test." {
		t.Errorf("output text %v", got)
	}
	wantUsage := map[string]any{
		"input_tokens": 1200.0, "output_tokens": 34.0, "total_tokens": 1234.0,
		"input_tokens_details":  map[string]any{"cached_tokens": 1000.0},
		"output_tokens_details": map[string]any{"reasoning_tokens": 7.0},
	}
	if b1, b2 := mustJSON(t, usage), mustJSON(t, wantUsage); b1 != b2 {
		t.Errorf("usage %s, want %s", b1, b2)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestUsageOptions(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(
		Message("a").WithUsage(Usage{InputTokens: 1, CachedTokens: 2, OutputTokens: 3, ReasoningTokens: 4, TotalTokens: 5}),
		Message("b").WithoutUsage(),
	)
	_, usage := completed(t, respond(t, srv, userBody))
	if usage["input_tokens"] != 1.0 || dig(usage, "input_tokens_details", "cached_tokens") != 2.0 ||
		usage["output_tokens"] != 3.0 || dig(usage, "output_tokens_details", "reasoning_tokens") != 4.0 ||
		usage["total_tokens"] != 5.0 {
		t.Errorf("usage %v", usage)
	}
	if _, usage := completed(t, respond(t, srv, userBody)); usage != nil {
		t.Errorf("WithoutUsage reported %v", usage)
	}
}

func TestToolCalls(t *testing.T) {
	srv := startServer(t)
	patch := AddFilePatch("x", "line\n")
	srv.Enqueue(Exec("ls -l"), Patch(patch), Exec("pwd").WithCallID("mine"), Exec("true"))

	output, _ := completed(t, respond(t, srv, userBody))
	want := map[string]any{"id": "fc_resp_1", "type": "function_call", "status": "completed",
		"call_id": "call_1", "name": "exec_command", "arguments": `{"cmd":"ls -l"}`}
	if got, w := mustJSON(t, output), mustJSON(t, []any{want}); got != w {
		t.Errorf("exec output %s, want %s", got, w)
	}

	events := respond(t, srv, userBody)
	output, _ = completed(t, events)
	want = map[string]any{"id": "ctc_resp_2", "type": "custom_tool_call", "status": "completed",
		"call_id": "call_2", "name": "apply_patch", "input": patch}
	if got, w := mustJSON(t, output), mustJSON(t, []any{want}); got != w {
		t.Errorf("patch output %s, want %s", got, w)
	}
	if !slices.Contains(types(events), "response.custom_tool_call_input.delta") {
		t.Errorf("patch events %q", types(events))
	}

	output, _ = completed(t, respond(t, srv, userBody))
	if dig(output[0], "call_id") != "mine" {
		t.Errorf("WithCallID: %v", output)
	}
	output, _ = completed(t, respond(t, srv, userBody))
	if dig(output[0], "call_id") != "call_3" {
		t.Errorf("call id after a chosen one: %v", output)
	}
}

func TestCalls(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(Call("request_user_input", `{"questions":[]}`), Call("ask", `{"q":1}`).WithNamespace("mcp__asker"))

	events := respond(t, srv, userBody)
	output, _ := completed(t, events)
	want := map[string]any{"id": "fc_resp_1", "type": "function_call", "status": "completed",
		"call_id": "call_1", "name": "request_user_input", "arguments": `{"questions":[]}`}
	if got, w := mustJSON(t, output), mustJSON(t, []any{want}); got != w {
		t.Errorf("call output %s, want %s", got, w)
	}
	var streamed string
	for _, e := range events {
		if e.Type == "response.function_call_arguments.delta" {
			streamed += e.Data["delta"].(string)
		}
	}
	if streamed != `{"questions":[]}` {
		t.Errorf("streamed arguments %q", streamed)
	}

	output, _ = completed(t, respond(t, srv, userBody))
	want = map[string]any{"id": "fc_resp_2", "type": "function_call", "status": "completed",
		"call_id": "call_2", "name": "ask", "namespace": "mcp__asker", "arguments": `{"q":1}`}
	if got, w := mustJSON(t, output), mustJSON(t, []any{want}); got != w {
		t.Errorf("namespaced call output %s, want %s", got, w)
	}
}

func TestReasoning(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(Message("answer").WithReasoning("thinking"))
	events := respond(t, srv, userBody)
	output, _ := completed(t, events)
	if len(output) != 2 || dig(output[0], "type") != "reasoning" || dig(output[1], "type") != "message" {
		t.Fatalf("output %v", output)
	}
	for _, e := range events {
		if e.Type == "response.output_text.delta" && e.Data["output_index"] != 1.0 {
			t.Errorf("message delta at output_index %v, want 1", e.Data["output_index"])
		}
		if e.Type == "response.reasoning_summary_text.delta" && (e.Data["delta"] != "thinking" || e.Data["output_index"] != 0.0) {
			t.Errorf("reasoning delta %v", e.Data)
		}
	}
}

func TestFailed(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(Failed("boom"))
	events := respond(t, srv, userBody)
	if got := types(events); !slices.Equal(got, []string{"response.created", "response.failed"}) {
		t.Fatalf("events %q", got)
	}
	if msg := dig(events[1].Data, "response", "error", "message"); msg != "boom" {
		t.Errorf("error message %v", msg)
	}
}
