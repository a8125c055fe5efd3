package chatfallback_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost/chatfallback"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/openai/openai-go/v3"
)

// startFake starts a fakemodel server closed at the end of the test.
func startFake(t *testing.T) *fakemodel.Server {
	t.Helper()
	srv, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("close fake model: %v", err)
		}
	})
	return srv
}

// baseRequest is a request with a system prompt, a history and a prompt.
func baseRequest(baseURL string) chatfallback.Request {
	return chatfallback.Request{
		BaseURL: baseURL,
		Model:   "fallback-model",
		APIKey:  "sk-fallback",
		System:  "Be brief.",
		History: []chatfallback.Message{
			{Role: "user", Content: "first question"},
			{Role: "assistant", Content: "first answer"},
			{Role: "system", Content: "a note"},
		},
		Prompt: "second question",
	}
}

func TestStreamFakeModel(t *testing.T) {
	usage := chatfallback.Usage{
		PromptTokens:     fakemodel.DefaultUsage.InputTokens,
		CompletionTokens: fakemodel.DefaultUsage.OutputTokens,
		TotalTokens:      fakemodel.DefaultUsage.TotalTokens,
	}
	tests := []struct {
		name       string
		reply      fakemodel.Reply
		edit       func(*chatfallback.Request)
		wantDeltas []string
		wantUsage  chatfallback.Usage
		wantAuth   string
		wantErr    []string // substrings of the error; nil for success
		wantAPIErr int      // the status of the wrapped *openai.Error, if any
	}{
		{
			name:       "several deltas in order",
			reply:      fakemodel.MessageChunks("The ", "fallback ", "says ", "hi."),
			wantDeltas: []string{"The ", "fallback ", "says ", "hi."},
			wantUsage:  usage,
			wantAuth:   "Bearer sk-fallback",
		},
		{
			name:       "custom usage",
			reply:      fakemodel.MessageChunks("ok").WithUsage(fakemodel.Usage{InputTokens: 7, OutputTokens: 3, TotalTokens: 10}),
			wantDeltas: []string{"ok"},
			wantUsage:  chatfallback.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10},
			wantAuth:   "Bearer sk-fallback",
		},
		{
			name:       "no usage reported",
			reply:      fakemodel.MessageChunks("no ", "usage").WithoutUsage(),
			wantDeltas: []string{"no ", "usage"},
			wantAuth:   "Bearer sk-fallback",
		},
		{
			name:       "no key sends no Authorization",
			reply:      fakemodel.MessageChunks("local"),
			edit:       func(r *chatfallback.Request) { r.APIKey = "" },
			wantDeltas: []string{"local"},
			wantUsage:  usage,
			wantAuth:   "",
		},
		{
			name:       "HTTP 500",
			reply:      fakemodel.Failed("the model crashed"),
			wantAuth:   "Bearer sk-fallback",
			wantErr:    []string{`chat fallback "`, "500 Internal Server Error", "the model crashed", "try again later"},
			wantAPIErr: http.StatusInternalServerError,
		},
		{
			name:       "HTTP 401",
			reply:      fakemodel.HTTPError(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`),
			wantAuth:   "Bearer sk-fallback",
			wantErr:    []string{"401 Unauthorized", "Incorrect API key provided", "check the provider's API key"},
			wantAPIErr: http.StatusUnauthorized,
		},
		{
			name:       "HTTP 429 usage limit",
			reply:      fakemodel.UsageLimit(),
			wantAuth:   "Bearer sk-fallback",
			wantErr:    []string{"429 Too Many Requests", "out of quota"},
			wantAPIErr: http.StatusTooManyRequests,
		},
		{
			name:     "empty answer",
			reply:    fakemodel.MessageChunks(""),
			wantAuth: "Bearer sk-fallback",
			wantErr:  []string{"empty answer"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFake(t)
			srv.EnqueueChat(tt.reply)
			req := baseRequest(srv.BaseURL())
			if tt.edit != nil {
				tt.edit(&req)
			}
			var deltas []string
			resp, err := chatfallback.Stream(t.Context(), req, func(d string) { deltas = append(deltas, d) })

			reqs := srv.ChatRequests()
			if len(reqs) != 1 {
				t.Fatalf("got %d chat requests, want exactly 1 (no retries)", len(reqs))
			}
			got := reqs[0]
			if got.Model != "fallback-model" || !got.Stream || !got.IncludeUsage {
				t.Errorf("request model=%q stream=%v include_usage=%v, want fallback-model, true, true", got.Model, got.Stream, got.IncludeUsage)
			}
			wantMsgs := []fakemodel.ChatMessage{
				{Role: "system", Content: "Be brief."},
				{Role: "user", Content: "first question"},
				{Role: "assistant", Content: "first answer"},
				{Role: "system", Content: "a note"},
				{Role: "user", Content: "second question"},
			}
			if !reflect.DeepEqual(got.Messages, wantMsgs) {
				t.Errorf("request messages:\n got %+v\nwant %+v", got.Messages, wantMsgs)
			}
			if auth := got.Header.Get("Authorization"); auth != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", auth, tt.wantAuth)
			}

			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("got %+v, want an error", resp)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				if tt.wantAPIErr != 0 {
					var apiErr *openai.Error
					if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantAPIErr {
						t.Errorf("error %q does not wrap an *openai.Error with status %d", err, tt.wantAPIErr)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(deltas, tt.wantDeltas) {
				t.Errorf("deltas = %q, want %q", deltas, tt.wantDeltas)
			}
			want := chatfallback.Response{Text: strings.Join(tt.wantDeltas, ""), Usage: tt.wantUsage, Model: "fallback-model"}
			if resp != want {
				t.Errorf("response = %+v, want %+v", resp, want)
			}
		})
	}
}

// sseServer starts a server on 127.0.0.1 that answers every request with the given data lines
// as an event stream, each as "data: LINE\n\n".
func sseServer(t *testing.T, lines ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, l := range lines {
			fmt.Fprintf(w, "data: %s\n\n", l)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStreamPlainServers(t *testing.T) {
	const plain = `{"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"fallback answered"},"finish_reason":"stop"}]}`
	tests := []struct {
		name    string
		handler http.HandlerFunc // used instead of lines when not nil
		lines   []string
		want    chatfallback.Response
		wantErr []string
	}{
		{
			name:  "one chunk without usage, then DONE",
			lines: []string{plain, "[DONE]"},
			want:  chatfallback.Response{Text: "fallback answered", Model: "m"},
		},
		{
			name: "error object mid-stream",
			lines: []string{
				`{"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"par"}}]}`,
				`{"error":{"message":"overloaded","type":"server_error"}}`,
			},
			wantErr: []string{"error mid-stream", "overloaded"},
		},
		{
			name:    "error object as the first event",
			lines:   []string{`{"error":{"message":"model not loaded","type":"server_error"}}`},
			wantErr: []string{"error mid-stream", "model not loaded"},
		},
		{
			name:    "garbage chunk",
			lines:   []string{`{not json`},
			wantErr: []string{"the stream broke"},
		},
		{
			name:    "stream ends without finish reason",
			lines:   []string{`{"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"cut"}}]}`},
			wantErr: []string{"ended before the answer finished"},
		},
		{
			name:    "refusal",
			lines:   []string{`{"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"refusal":"I cannot"},"finish_reason":"stop"}]}`, "[DONE]"},
			wantErr: []string{"refused: I cannot"},
		},
		{
			name: "JSON instead of a stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"id":"c1","object":"chat.completion","choices":[]}`)
			},
			wantErr: []string{"no stream chunks", "application/json"},
		},
		{
			name: "plain-text 502",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "bad gateway from the proxy", http.StatusBadGateway)
			},
			wantErr: []string{"502 Bad Gateway", "bad gateway from the proxy", "try again later"},
		},
		{
			name: "404",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.NotFound(w, r)
			},
			wantErr: []string{"404 Not Found", "check the base URL"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srv *httptest.Server
			if tt.handler != nil {
				srv = httptest.NewServer(tt.handler)
				t.Cleanup(srv.Close)
			} else {
				srv = sseServer(t, tt.lines...)
			}
			var deltas []string
			resp, err := chatfallback.Stream(t.Context(), chatfallback.Request{
				BaseURL: srv.URL + "/v1", Model: "m", Prompt: "hi",
			}, func(d string) { deltas = append(deltas, d) })
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("got %+v, want an error", resp)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp != tt.want {
				t.Errorf("response = %+v, want %+v", resp, tt.want)
			}
			if want := []string{tt.want.Text}; !reflect.DeepEqual(deltas, want) {
				t.Errorf("deltas = %q, want %q", deltas, want)
			}
		})
	}
}

func TestStreamNilOnDelta(t *testing.T) {
	srv := startFake(t)
	srv.EnqueueChat(fakemodel.Message("a whole answer in several words"))
	resp, err := chatfallback.Stream(t.Context(), baseRequest(srv.BaseURL()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "a whole answer in several words" {
		t.Errorf("text = %q", resp.Text)
	}
}

func TestStreamDefaultReply(t *testing.T) {
	srv := startFake(t)
	srv.SetChatDefault(func(r fakemodel.ChatRequest) fakemodel.Reply {
		return fakemodel.Message("echo: " + r.Messages[len(r.Messages)-1].Content)
	})
	resp, err := chatfallback.Stream(t.Context(), chatfallback.Request{BaseURL: srv.BaseURL(), Model: "m", Prompt: "ping"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "echo: ping" {
		t.Errorf("text = %q, want %q", resp.Text, "echo: ping")
	}
}

func TestStreamBadRequest(t *testing.T) {
	tests := []struct {
		name string
		req  chatfallback.Request
		want string
	}{
		{"no base URL", chatfallback.Request{Model: "m", Prompt: "hi"}, "no base URL"},
		{"no model", chatfallback.Request{BaseURL: "http://127.0.0.1:1/v1", Prompt: "hi"}, "no model"},
		{"no prompt", chatfallback.Request{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, "empty prompt"},
		{"bad role", chatfallback.Request{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Prompt: "hi",
			History: []chatfallback.Message{{Role: "tool", Content: "x"}}}, `role "tool"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := chatfallback.Stream(t.Context(), tt.req, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestStreamUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/v1"
	srv.Close() // nothing listens there any more
	_, err := chatfallback.Stream(t.Context(), chatfallback.Request{BaseURL: url, Model: "m", Prompt: "hi"}, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot reach the provider") {
		t.Errorf("error %v, want one saying it cannot reach the provider", err)
	}
}

// result is what Stream returned.
type result struct {
	resp chatfallback.Response
	err  error
}

// awaitCanceled waits for Stream's result and checks that it is a prompt cancellation.
func awaitCanceled(t *testing.T, done <-chan result) result {
	t.Helper()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", r.err)
		}
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("Stream did not return after its context was cancelled")
		return result{}
	}
}

func TestStreamCancelFakeModelHang(t *testing.T) {
	srv := startFake(t)
	srv.EnqueueChat(fakemodel.Hang())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		resp, err := chatfallback.Stream(ctx, baseRequest(srv.BaseURL()), nil)
		done <- result{resp, err}
	}()
	if err := srv.WaitChatRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	awaitCanceled(t, done)
}

func TestStreamCancelMidStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"partial"}}]}`+"\n\n")
		http.NewResponseController(w).Flush()
		<-r.Context().Done() // hang until the client goes away
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		// The first delta cancels: the stream is then open and silent.
		resp, err := chatfallback.Stream(ctx, chatfallback.Request{BaseURL: srv.URL + "/v1", Model: "m", Prompt: "hi"},
			func(string) { cancel() })
		done <- result{resp, err}
	}()
	r := awaitCanceled(t, done)
	if r.resp.Text != "partial" {
		t.Errorf("partial text = %q, want %q", r.resp.Text, "partial")
	}
}
