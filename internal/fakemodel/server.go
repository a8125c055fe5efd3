package fakemodel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrClosed is returned by [Server.WaitRequests] and [Server.WaitChatRequests] when the server
// closes before enough requests arrived.
var ErrClosed = errors.New("fakemodel: server closed")

// DefaultModel is the model slug [Server.CodexConfig] selects. Codex knows it, so it offers the
// model its full tool set, apply_patch included; an unknown slug gets no apply_patch tool.
const DefaultModel = "gpt-5.5"

// A Server is a fake model provider listening on 127.0.0.1. Its methods are safe for concurrent use.
type Server struct {
	base string
	srv  *http.Server
	ln   net.Listener
	done chan struct{} // closed by Close: unblocks hanging replies and waiters

	mu          sync.Mutex
	closed      bool
	handlers    sync.WaitGroup // running handlers; Add only under mu while !closed
	queue       []Reply
	chatQueue   []Reply
	def         func(Request) Reply
	chatDef     func(ChatRequest) Reply
	requests    []Request
	chats       []ChatRequest
	log         []string
	calls       int           // tool call ids given so far
	changed     chan struct{} // closed and replaced whenever a request or a log line is recorded
	serveErr    error
	serveDone   chan struct{}
	closeOnce   sync.Once
	closeResult error

	// The Messages API's queue, default and requests (anthropic.go), guarded by mu.
	anthropicQueue []Reply
	anthropicDef   func(AnthropicRequest) Reply
	anthropic      []AnthropicRequest
}

// Start starts a server on a free port of 127.0.0.1.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: %w", err)
	}
	s := &Server{
		base:      "http://" + ln.Addr().String() + "/v1",
		ln:        ln,
		done:      make(chan struct{}),
		changed:   make(chan struct{}),
		serveDone: make(chan struct{}),
		def:       DefaultReply,
		chatDef:   defaultChatReply,
	}
	s.anthropicDef = DefaultAnthropicReply
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", s.serveResponses)
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("GET /v1/models", s.serveModels)
	mux.HandleFunc("POST /v1/messages", s.serveAnthropic)
	mux.HandleFunc("POST /v1/messages/count_tokens", s.serveAnthropicCountTokens)
	mux.HandleFunc("/", http.NotFound)
	s.srv = &http.Server{Handler: s.track(mux), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.serveDone)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.mu.Lock()
			s.serveErr = err
			s.mu.Unlock()
		}
	}()
	return s, nil
}

// BaseURL returns the API's base URL, "http://127.0.0.1:PORT/v1".
func (s *Server) BaseURL() string { return s.base }

// Addr returns the address the server listens on, "127.0.0.1:PORT".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server: it ends hanging replies, closes every connection and waits for its
// goroutines. Calling it again returns the first result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.done)
		err := s.srv.Close()
		s.handlers.Wait()
		<-s.serveDone
		s.mu.Lock()
		s.closeResult = errors.Join(err, s.serveErr)
		s.mu.Unlock()
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeResult
}

// CodexConfig returns the values of the -c options that point codex at this server (pass each
// after its own "-c"): a model provider "fake" speaking the Responses API at [Server.BaseURL]
// without retries, the model [DefaultModel], no update check and no plugins. Codex parses each
// value as TOML, so strings are quoted. Use it for a codex you start yourself; hermes-lsp takes no
// provider in its settings, so give it a codex home with [Server.WriteCodexConfig] instead.
func (s *Server) CodexConfig() []string {
	return []string{
		`model_provider="fake"`,
		`model_providers.fake.name="fake"`,
		`model_providers.fake.base_url=` + strconv.Quote(s.base),
		`model_providers.fake.wire_api="responses"`,
		`model_providers.fake.request_max_retries=0`,
		`model_providers.fake.stream_max_retries=0`,
		`model=` + strconv.Quote(DefaultModel),
		`check_for_update_on_startup=false`,
		`features.plugins=false`,
	}
}

// WriteCodexConfig writes <codexHome>/config.toml (mode 0600; codexHome is made, 0700, if missing)
// holding the settings of [Server.CodexConfig] and then the extra ones, each a `key=value` line
// as codex takes it after -c; an extra value replaces CodexConfig's of the same key. Codex reads
// that file at startup, so a codex started with CODEX_HOME=codexHome talks to this server without
// any -c option: that is how a test hands the fake model to hermes-lsp, whose `hermes.codex.args`
// refuse model_providers.*. An existing config.toml is replaced.
func (s *Server) WriteCodexConfig(codexHome string, extra ...string) error {
	values := s.CodexConfig()
	for _, kv := range extra {
		key, _, _ := strings.Cut(kv, "=")
		values = slices.DeleteFunc(values, func(v string) bool {
			k, _, _ := strings.Cut(v, "=")
			return strings.TrimSpace(k) == strings.TrimSpace(key)
		})
	}
	return WriteConfigTOML(codexHome, append(values, extra...)...)
}

// WriteConfigTOML writes <codexHome>/config.toml (mode 0600; codexHome is made, 0700, if missing)
// with one `key=value` line per value, in order. Each value must be valid TOML, as codex's -c values
// usually are; dotted keys (`model_providers.fake.base_url="..."`) are top-level TOML keys of nested
// tables, and since no line opens a [table], every line stays at the top level. A key must not
// repeat (TOML forbids it). An existing config.toml is replaced.
func WriteConfigTOML(codexHome string, values ...string) error {
	var b strings.Builder
	b.WriteString("# Written by hermes-lsp (fakemodel.WriteConfigTOML) for a throwaway CODEX_HOME.\n")
	for _, kv := range values {
		if strings.ContainsAny(kv, "\r\n") || !strings.Contains(kv, "=") {
			return fmt.Errorf("fakemodel: config value %q is not one key=value line", kv)
		}
		b.WriteString(kv)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		return fmt.Errorf("fakemodel: %w", err)
	}
	path := filepath.Join(codexHome, "config.toml")
	// WriteFile's mode only applies to a new file: an existing one keeps its mode, so set it too.
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("fakemodel: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("fakemodel: %w", err)
	}
	return nil
}

// Enqueue queues replies for the next POST /v1/responses requests, one reply per request, in order.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Pending returns how many queued replies to /v1/responses have not been served yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetDefault sets the function that answers a /v1/responses request when the queue is empty;
// nil restores [DefaultReply]. It runs on the request's goroutine and may call the server's methods.
func (s *Server) SetDefault(f func(Request) Reply) {
	if f == nil {
		f = DefaultReply
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = f
}

// DefaultReply is the answer to a request when nothing is queued: if the newest input item is a
// tool output, Message("Done. Tool said: " + output); otherwise Message("Done. Hello from the fake
// model.").
func DefaultReply(r Request) Reply {
	if it, ok := r.Last(); ok && it.IsToolOutput() {
		return Message("Done. Tool said: " + it.Output)
	}
	return Message("Done. Hello from the fake model.")
}

// Requests returns every /v1/responses request received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// WaitRequests blocks until at least n /v1/responses requests arrived. It returns ctx's error if ctx
// ends first, and [ErrClosed] if the server closes first.
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return len(s.requests) >= n })
}

// Log returns the server's request log, oldest first: a line "METHOD PATH STATUS" per answer, for
// instance "GET /v1/nothing 404", written when its status is sent, and a line "METHOD PATH hang
// ended: client went away" (or "server closed") when a [Hang] reply ends.
func (s *Server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// wait blocks until cond, called with s.mu held, is true.
func (s *Server) wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ok, changed := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.done:
			s.mu.Lock()
			ok := cond()
			s.mu.Unlock()
			if ok {
				return nil
			}
			return ErrClosed
		}
	}
}

// notifyLocked wakes the waiters; s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// track counts running handlers so that Close can wait for them, refuses requests once closed, and
// logs each answer's status.
func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			http.Error(w, "fakemodel: server closed", http.StatusServiceUnavailable)
			return
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		defer s.handlers.Done()
		sw := &statusWriter{ResponseWriter: w, logf: func(status int) {
			s.logf("%s %s %d", r.Method, r.URL.RequestURI(), status)
		}}
		h.ServeHTTP(sw, r)
		sw.WriteHeader(http.StatusOK) // logs the implicit 200 of a handler that wrote nothing
	})
}

// statusWriter logs the status of a response when its header is written.
type statusWriter struct {
	http.ResponseWriter
	logf   func(status int)
	logged bool
}

func (w *statusWriter) WriteHeader(status int) {
	if w.logged {
		return
	}
	w.logged = true
	w.logf(status)
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	w.WriteHeader(http.StatusOK)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serveResponses answers POST /v1/responses with the next reply.
func (s *Server) serveResponses(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	req := parseRequest(body, r.Header.Clone())
	reply, n := take(s, &s.requests, &s.queue, &s.def, req)
	if !startReply(w, reply) {
		return
	}
	id := ids{response: "resp_" + strconv.Itoa(n), call: reply.callID, created: time.Now().Unix(), model: req.Model}
	stream(s, w, r, reply, responseEvents(reply, id))
}

// readBody reads the body of r, answering 400 when it cannot.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

// take records req, a request to one endpoint, in *reqs, wakes the waiters, and returns the reply
// for it: the head of *queue, else (*def)(req), called without the lock. A tool call without a call
// id gets the next call_N, counted across endpoints. n is the number of req on its endpoint, from 1.
func take[R any](s *Server, reqs *[]R, queue *[]Reply, def *func(R) Reply, req R) (reply Reply, n int) {
	s.mu.Lock()
	*reqs = append(*reqs, req)
	n = len(*reqs)
	queued := len(*queue) > 0
	if queued {
		reply, *queue = (*queue)[0], (*queue)[1:]
	}
	f := *def
	s.notifyLocked()
	s.mu.Unlock()
	if !queued {
		reply = f(req)
	}
	if (reply.kind == KindExec || reply.kind == KindCall || reply.kind == KindPatch) && reply.callID == "" {
		s.mu.Lock()
		s.calls++
		reply.callID = "call_" + strconv.Itoa(s.calls)
		s.mu.Unlock()
	}
	return reply, n
}

// startReply adds the reply's own header fields and answers an HTTP error reply whole, with its
// status and body. It reports whether the reply is still to be answered.
func startReply(w http.ResponseWriter, reply Reply) bool {
	for k, v := range reply.header {
		w.Header()[k] = append(w.Header()[k], v...)
	}
	if reply.kind != KindHTTPError {
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(reply.status)
	io.WriteString(w, reply.body)
	return false
}

// stream answers with an event stream of frames, each flushed as it is written. A hanging reply
// then waits for the client or the server to go away.
func stream[F io.WriterTo](s *Server, w http.ResponseWriter, r *http.Request, reply Reply, frames []F) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for _, f := range frames {
		if _, err := f.WriteTo(w); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
		if reply.pace > 0 {
			t := time.NewTimer(reply.pace)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			case <-s.done:
				t.Stop()
				return
			}
		}
	}
	if reply.kind == KindHang {
		s.hang(r)
	}
}

// hang waits for the client or the server to go away, and logs which did.
func (s *Server) hang(r *http.Request) {
	why := "client went away"
	select {
	case <-r.Context().Done():
	case <-s.done:
		why = "server closed"
	}
	s.logf("%s %s hang ended: %s", r.Method, r.URL.RequestURI(), why)
}

// logf appends a line to the request log.
func (s *Server) logf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, fmt.Sprintf(format, args...))
	s.notifyLocked()
}

// serveModels answers GET /v1/models with the one model the fake plays.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","created":0,"owned_by":"fakemodel"}]}`, DefaultModel)
}
