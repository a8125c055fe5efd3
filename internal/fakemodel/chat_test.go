package fakemodel

// Tests of codex's configuration for the fake model and of the chat completions API.

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

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
		{Call("f", "{}"), KindCall, "{}"},
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
