package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

func TestHTTPErrors(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(HTTPError(500, `{"error":{"message":"oops"}}`).WithHeader("Retry-After", "1"), UsageLimit())

	resp := post(t, t.Context(), srv, "/responses", userBody)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || string(body) != `{"error":{"message":"oops"}}` || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("got %d %q %v", resp.StatusCode, body, resp.Header)
	}

	resp = post(t, t.Context(), srv, "/responses", userBody)
	var got struct {
		Error struct {
			Type, Message string
			PlanType      string `json:"plan_type"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests || got.Error.Type != "usage_limit_reached" ||
		got.Error.Message != UsageLimitMessage || got.Error.PlanType != "plus" {
		t.Errorf("usage limit: %d %+v", resp.StatusCode, got)
	}
	if l := srv.Log(); !slices.Equal(l, []string{"POST /v1/responses 500", "POST /v1/responses 429"}) {
		t.Errorf("log %q", l)
	}
}

func TestQueueAndDefault(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(Message("first"))
	srv.Enqueue(Message("second"), Message("third"))
	if srv.Pending() != 3 {
		t.Errorf("Pending %d", srv.Pending())
	}
	text := func(body string) string {
		output, _ := completed(t, respond(t, srv, body))
		return dig(output[len(output)-1], "content").([]any)[0].(map[string]any)["text"].(string)
	}
	for _, want := range []string{"first", "second", "third", "Done. Hello from the fake model."} {
		if got := text(userBody); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	toolBody := `{"model":"m","input":[{"type":"function_call","call_id":"c","name":"exec_command","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"c","output":"out put"}]}`
	if got := text(toolBody); got != "Done. Tool said: out put" {
		t.Errorf("after a tool: %q", got)
	}
	listBody := `{"input":[{"type":"custom_tool_call_output","call_id":"c","output":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]}]}`
	if got := text(listBody); got != "Done. Tool said: ab" {
		t.Errorf("after a custom tool with list output: %q", got)
	}

	srv.SetDefault(func(r Request) Reply { return Message("echo " + r.UserText()) })
	if got := text(userBody); got != "echo hi" {
		t.Errorf("custom default: %q", got)
	}
	srv.SetDefault(nil)
	if got := text(userBody); got != "Done. Hello from the fake model." {
		t.Errorf("restored default: %q", got)
	}
	if srv.Pending() != 0 {
		t.Errorf("Pending %d", srv.Pending())
	}
}

func TestRequestsParsed(t *testing.T) {
	srv := startServer(t)
	body := `{"model":"gpt-5.5","stream":true,` +
		`"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"},{"type":"web_search"}],` +
		`"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"be nice"}]},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"do "},{"type":"input_text","text":"it"}]},` +
		`{"type":"custom_tool_call","call_id":"call_9","name":"apply_patch","input":"*** Begin Patch"},` +
		`{"type":"custom_tool_call_output","call_id":"call_9","output":"ok"},` +
		`{"type":"reasoning","summary":[]}]}`
	respond(t, srv, body)
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "gpt-5.5" || !r.Stream || string(r.Body) != body || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("request %+v", r)
	}
	if !slices.Equal(r.Tools, []string{"exec_command", "apply_patch", "web_search"}) || !r.HasTool("apply_patch") {
		t.Errorf("tools %q", r.Tools)
	}
	want := []Item{
		{Type: "message", Role: "developer", Text: "be nice"},
		{Type: "message", Role: "user", Text: "do it"},
		{Type: "custom_tool_call", CallID: "call_9", Name: "apply_patch", Arguments: "*** Begin Patch"},
		{Type: "custom_tool_call_output", CallID: "call_9", Output: "ok"},
		{Type: "reasoning"},
	}
	if !slices.Equal(r.Input, want) {
		t.Errorf("input %+v\nwant %+v", r.Input, want)
	}
	if r.UserText() != "do it" {
		t.Errorf("UserText %q", r.UserText())
	}
	// The newest item is reasoning, not a tool output: the default says hello.
	if it, _ := r.Last(); it.IsToolOutput() {
		t.Errorf("Last %+v", it)
	}
	if got := parseRequest([]byte(`{"input":"plain"}`), nil).Input; len(got) != 1 || got[0].Text != "plain" || got[0].Role != "user" {
		t.Errorf("string input: %+v", got)
	}
	if got := parseRequest([]byte(`not json`), nil); got.Input != nil || string(got.Body) != "not json" {
		t.Errorf("bad body: %+v", got)
	}
}

func TestWaitRequests(t *testing.T) {
	srv := startServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := srv.WaitRequests(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	if err := srv.WaitRequests(t.Context(), 0); err != nil {
		t.Errorf("n=0: %v", err)
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.WaitRequests(t.Context(), 2) }()
	respond(t, srv, userBody)
	respond(t, srv, userBody)
	if err := <-errc; err != nil {
		t.Errorf("WaitRequests: %v", err)
	}

	go func() { errc <- srv.WaitRequests(t.Context(), 3) }()
	srv.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if err := srv.WaitRequests(t.Context(), 2); err != nil {
		t.Errorf("satisfied after Close: %v", err)
	}
}

func TestConcurrentRequests(t *testing.T) {
	srv := startServer(t)
	const n = 20
	for i := range n {
		srv.Enqueue(Exec("echo " + string(rune('a'+i))))
	}
	var wg sync.WaitGroup
	calls := make(chan string, n)
	for range n {
		wg.Go(func() {
			resp := post(t, t.Context(), srv, "/responses", userBody)
			events, err := ReadEvents(resp.Body)
			if err != nil || len(events) == 0 {
				t.Error(events, err)
				return
			}
			id, _ := dig(events[len(events)-1].Data, "response", "output").([]any)[0].(map[string]any)["call_id"].(string)
			calls <- id
		})
	}
	wg.Wait()
	close(calls)
	seen := map[string]bool{}
	for c := range calls {
		seen[c] = true
	}
	if len(seen) != n || len(srv.Requests()) != n {
		t.Errorf("%d distinct call ids, %d requests", len(seen), len(srv.Requests()))
	}
}

// readFirstEvent reads the first SSE event of a streamed answer.
func readFirstEvent(t *testing.T, r io.Reader) Event {
	t.Helper()
	var frame bytes.Buffer
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the first event: %v", err)
		}
		frame.WriteString(line)
		if line == "\n" {
			break
		}
	}
	events, err := ReadEvents(&frame)
	if err != nil || len(events) != 1 {
		t.Fatalf("first event: %v %v", events, err)
	}
	return events[0]
}

func TestHangClientGone(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(Hang())
	ctx, cancel := context.WithCancel(t.Context())
	resp := post(t, ctx, srv, "/responses", userBody)
	if e := readFirstEvent(t, resp.Body); e.Type != "response.created" {
		t.Errorf("first event %q", e.Type)
	}
	cancel()
	waitLog(t, srv, "POST /v1/responses hang ended: client went away")
}

func TestHangServerClosed(t *testing.T) {
	srv, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(Hang())
	resp := post(t, t.Context(), srv, "/responses", userBody)
	if e := readFirstEvent(t, resp.Body); e.Type != "response.created" {
		t.Errorf("first event %q", e.Type)
	}
	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close blocked on a hanging reply")
	}
	io.Copy(io.Discard, resp.Body) // ends, with EOF or an error: the connection is gone
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := http.Post(srv.BaseURL()+"/responses", "application/json", strings.NewReader(userBody)); err == nil {
		t.Error("the server still answers after Close")
	}
}

func TestModelsAndNotFound(t *testing.T) {
	srv := startServer(t)
	resp, err := http.Get(srv.BaseURL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct{ ID string }
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(list.Data) != 1 || list.Data[0].ID != DefaultModel {
		t.Errorf("models: %d %+v", resp.StatusCode, list)
	}
	for _, path := range []string{"/nothing?x=1", "/responses"} {
		resp, err := http.Get(srv.BaseURL() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
	want := []string{"GET /v1/models 200", "GET /v1/nothing?x=1 404", "GET /v1/responses 404"}
	if got := srv.Log(); !slices.Equal(got, want) {
		t.Errorf("log %q, want %q", got, want)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("unknown requests were recorded as Responses requests")
	}
}

func TestCodexConfig(t *testing.T) {
	srv := startServer(t)
	want := []string{
		`model_provider="fake"`,
		`model_providers.fake.name="fake"`,
		`model_providers.fake.base_url="` + srv.BaseURL() + `"`,
		`model_providers.fake.wire_api="responses"`,
		`model_providers.fake.request_max_retries=0`,
		`model_providers.fake.stream_max_retries=0`,
		`model="gpt-5.5"`,
		`check_for_update_on_startup=false`,
		`features.plugins=false`,
	}
	if got := srv.CodexConfig(); !slices.Equal(got, want) {
		t.Errorf("CodexConfig\n%q\nwant\n%q", got, want)
	}
	if !strings.HasPrefix(srv.BaseURL(), "http://127.0.0.1:") || !strings.HasSuffix(srv.BaseURL(), "/v1") ||
		srv.BaseURL() != "http://"+srv.Addr()+"/v1" {
		t.Errorf("BaseURL %q, Addr %q", srv.BaseURL(), srv.Addr())
	}
}

func TestWriteCodexConfig(t *testing.T) {
	srv := startServer(t)
	home := filepath.Join(t.TempDir(), "missing", ".codex")
	roots := `sandbox_workspace_write.writable_roots=["/cache"]`
	if err := srv.WriteCodexConfig(home, roots, `model="other"`); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, kv := range srv.CodexConfig() {
		if !strings.HasPrefix(kv, "model=") { // replaced by the extra model
			want = append(want, kv)
		}
	}
	want = append(want, roots, `model="other"`)
	var got []string
	for line := range strings.Lines(string(b)) {
		if !strings.HasPrefix(line, "#") {
			got = append(got, strings.TrimSuffix(line, "\n"))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("config.toml lines\n%q\nwant\n%q", got, want)
	}
	for path, mode := range map[string]os.FileMode{home: 0o700, filepath.Join(home, "config.toml"): 0o600} {
		if st, err := os.Stat(path); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), mode)
		}
	}

	// A second write replaces the file, and makes it private again.
	if err := os.Chmod(filepath.Join(home, "config.toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := srv.WriteCodexConfig(home); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(home, "config.toml"))
	if strings.Contains(string(b), "writable_roots") || !strings.Contains(string(b), `model="gpt-5.5"`) {
		t.Errorf("config.toml after the second write:\n%s", b)
	}
	if st, err := os.Stat(filepath.Join(home, "config.toml")); err != nil {
		t.Error(err)
	} else if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after the second write, want 0600", st.Mode().Perm())
	}

	for _, bad := range []string{"no_equals", "a=1\nb=2"} {
		if err := srv.WriteCodexConfig(home, bad); err == nil {
			t.Errorf("WriteCodexConfig(%q) succeeded", bad)
		}
	}
}

// chatChunkData returns the data lines of a streamed chat completion.
func chatChunkData(t *testing.T, r io.Reader) []string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		if d, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestChatStream(t *testing.T) {
	srv := startServer(t)
	srv.EnqueueChat(MessageChunks("Hi ", "there."))
	body := `{"model":"gpt-x","stream":true,"stream_options":{"include_usage":true},` +
		`"messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"hello"}]}]}`
	resp := post(t, t.Context(), srv, "/chat/completions", body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	data := chatChunkData(t, resp.Body)
	if len(data) != 6 || data[len(data)-1] != "[DONE]" {
		t.Fatalf("chunks %q", data)
	}
	var text strings.Builder
	var finish []any
	var usage map[string]any
	for _, d := range data[:len(data)-1] {
		var c struct {
			Object  string
			Model   string
			Choices []struct {
				Delta        struct{ Content string }
				FinishReason any `json:"finish_reason"`
			}
			Usage map[string]any
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatal(err)
		}
		if c.Object != "chat.completion.chunk" || c.Model != "gpt-x" {
			t.Errorf("chunk %s", d)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
			if ch.FinishReason != nil {
				finish = append(finish, ch.FinishReason)
			}
		}
		if c.Usage != nil {
			usage = c.Usage
		}
	}
	if text.String() != "Hi there." || !slices.Equal(finish, []any{"stop"}) {
		t.Errorf("text %q, finish reasons %v", text.String(), finish)
	}
	if usage["prompt_tokens"] != 1200.0 || usage["completion_tokens"] != 34.0 || usage["total_tokens"] != 1234.0 {
		t.Errorf("usage %v", usage)
	}

	reqs := srv.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d chat requests", len(reqs))
	}
	want := []ChatMessage{{Role: "system", Content: "sys"}, {Role: "user", Content: "hello"}}
	if r := reqs[0]; r.Model != "gpt-x" || !r.Stream || !r.IncludeUsage || !slices.Equal(r.Messages, want) || string(r.Body) != body {
		t.Errorf("chat request %+v", r)
	}
	if len(srv.Requests()) != 0 {
		t.Error("a chat request was recorded as a Responses request")
	}
}

func TestChatNonStreamAndDefault(t *testing.T) {
	srv := startServer(t)
	srv.EnqueueChat(Exec("ls"), UsageLimit())
	complete := func(body string) (int, map[string]any) {
		resp := post(t, t.Context(), srv, "/chat/completions", body)
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

	_, m := complete(body)
	choice := m["choices"].([]any)[0]
	call := dig(choice, "message", "tool_calls").([]any)[0]
	if dig(choice, "finish_reason") != "tool_calls" || dig(call, "function", "name") != "exec_command" ||
		dig(call, "function", "arguments") != `{"cmd":"ls"}` || dig(call, "id") != "call_1" {
		t.Errorf("tool call completion %v", m)
	}
	if status, m := complete(body); status != 429 || dig(m, "error", "type") != "usage_limit_reached" {
		t.Errorf("usage limit %d %v", status, m)
	}
	_, m = complete(body)
	if got := dig(m["choices"].([]any)[0], "message", "content"); got != DefaultChatText || m["object"] != "chat.completion" {
		t.Errorf("default completion %v", m)
	}
	if dig(m, "usage", "total_tokens") != 1234.0 {
		t.Errorf("usage %v", m["usage"])
	}

	// Streamed without include_usage: no usage chunk.
	srv.SetChatDefault(func(r ChatRequest) Reply { return Message("custom " + r.Messages[0].Content) })
	resp := post(t, t.Context(), srv, "/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`)
	data := chatChunkData(t, resp.Body)
	for _, d := range data {
		if strings.Contains(d, `"usage"`) {
			t.Errorf("usage chunk without include_usage: %s", d)
		}
	}
	if !strings.Contains(strings.Join(data, ""), `"content":"custom "`) {
		t.Errorf("custom chat default: %q", data)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := srv.WaitChatRequests(ctx, 4); err != nil {
		t.Errorf("WaitChatRequests: %v", err)
	}
}

func TestReplyAccessors(t *testing.T) {
	for _, tc := range []struct {
		r    Reply
		kind Kind
		text string
	}{
		{Message("m"), KindMessage, "m"},
		{MessageChunks("a", "b"), KindMessage, "ab"},
		{Exec("ls"), KindExec, "ls"},
		{Patch("p"), KindPatch, "p"},
		{Failed("f"), KindFailed, "f"},
		{HTTPError(500, "b"), KindHTTPError, "b"},
		{Hang(), KindHang, ""},
	} {
		if tc.r.Kind() != tc.kind || tc.r.Text() != tc.text {
			t.Errorf("%v %q, want %v %q", tc.r.Kind(), tc.r.Text(), tc.kind, tc.text)
		}
	}
	a := HTTPError(500, "")
	b := a.WithHeader("X", "1")
	if a.header != nil || b.header.Get("X") != "1" {
		t.Error("WithHeader changed the original")
	}
	if UsageLimit().Kind().String() != "http-error" {
		t.Errorf("UsageLimit kind %v", UsageLimit().Kind())
	}
}
