package fakemodel

// Tests of the fake model's requests: errors, queueing, parsing, concurrency, hanging.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

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
