package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/conc"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// testServer is a tiny language server for the harness's own tests. It answers initialize and
// shutdown, records every notification, and runs workspace/executeCommand commands that exercise
// the server->client requests (see command). Requests run on goroutines of their own, so the
// read loop never waits on the editor.
type testServer struct {
	t      *testing.T
	conn   jsonrpc2.Conn
	ctx    context.Context // cancelled at the end of the test: bounds every call to the editor
	cancel context.CancelFunc
	wg     conc.WaitGroup
	sync   any // textDocumentSync of the initialize result

	mu       sync.Mutex
	notes    map[string][]json.RawMessage  // notifications received, by method
	initial  *protocol.InitializeParams    // the initialize params
	inflight map[string]context.CancelFunc // requests being handled, by id as JSON
	callIDs  map[string][]json.RawMessage  // ids of the requests the server sent, by method
	recvIDs  map[string][]json.RawMessage  // ids of the requests the server received, by method
	closeErr bool                          // the editor's Close is expected to fail
	changed  chan struct{}                 // closed and replaced on each notification
}

// startServer serves a testServer on one end of a pipe and connects an Editor of profile p to
// the other. Both are closed at the end of the test.
func startServer(t *testing.T, p Profile, opts ...Option) (*testServer, *Editor) {
	t.Helper()
	return startServerSync(t, p, protocol.TextDocumentSyncKindIncremental, opts...)
}

// startServerSync is startServer with the server's textDocumentSync.
func startServerSync(t *testing.T, p Profile, sync any, opts ...Option) (*testServer, *Editor) {
	t.Helper()
	sc, cc := net.Pipe()
	s := &testServer{
		t:        t,
		sync:     sync,
		notes:    map[string][]json.RawMessage{},
		inflight: map[string]context.CancelFunc{},
		callIDs:  map[string][]json.RawMessage{},
		recvIDs:  map[string][]json.RawMessage{},
		changed:  make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.conn = jsonrpc2.NewConn(&recordingStream{Stream: jsonrpc2.NewStream(sc), s: s})
	s.conn.Go(s.ctx, s.handle)
	ed, err := Connect(context.Background(), cc, p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ed.Close(); err != nil && !s.closeErr {
			t.Errorf("editor Close: %v", err)
		}
		s.cancel()
		_ = s.conn.Close()
		<-s.conn.Done()
		s.wg.Wait()
	})
	return s, ed
}

// recordingStream records the ids of the requests the server sends, so a test can cancel them.
type recordingStream struct {
	jsonrpc2.Stream
	s *testServer
}

func (r *recordingStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if c, ok := msg.(*jsonrpc2.Call); ok {
		id := c.ID()
		data, _ := id.MarshalJSON()
		r.s.mu.Lock()
		r.s.callIDs[c.Method()] = append(r.s.callIDs[c.Method()], data)
		r.s.mu.Unlock()
	}
	return r.Stream.Write(ctx, msg)
}

// handle records notifications inline and runs requests on goroutines.
func (s *testServer) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	params := append(json.RawMessage(nil), req.Params()...)
	call, ok := req.(*jsonrpc2.Call)
	if !ok {
		s.mu.Lock()
		s.notes[req.Method()] = append(s.notes[req.Method()], params)
		if req.Method() == protocol.MethodCancelRequest {
			var p struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(params, &p)
			if cancel, ok := s.inflight[string(p.ID)]; ok {
				cancel()
			}
		}
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		if req.Method() == protocol.MethodExit {
			_ = s.conn.Close()
		}
		return nil
	}
	id := call.ID()
	key, _ := id.MarshalJSON()
	rctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.inflight[string(key)] = cancel
	s.recvIDs[call.Method()] = append(s.recvIDs[call.Method()], key)
	s.mu.Unlock()
	s.wg.Go(func() {
		defer cancel()
		result, err := s.request(rctx, call.Method(), params)
		s.mu.Lock()
		delete(s.inflight, string(key))
		s.mu.Unlock()
		_ = reply(context.WithoutCancel(rctx), result, err)
	})
	return nil
}

// request answers one request.
func (s *testServer) request(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case protocol.MethodInitialize:
		var p protocol.InitializeParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		s.mu.Lock()
		s.initial = &p
		s.mu.Unlock()
		return map[string]any{
			"capabilities": map[string]any{
				"textDocumentSync":       s.sync,
				"executeCommandProvider": map[string]any{"commands": []string{"progress", "ask", "config"}},
			},
			"serverInfo": map[string]any{"name": "test-server"},
		}, nil
	case protocol.MethodShutdown:
		return nil, nil
	case protocol.MethodWorkspaceExecuteCommand:
		var p struct {
			Command       string            `json:"command"`
			Arguments     []json.RawMessage `json:"arguments"`
			WorkDoneToken json.RawMessage   `json:"workDoneToken"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		return s.command(ctx, p.Command, p.Arguments, p.WorkDoneToken)
	case protocol.MethodTextDocumentCodeAction:
		return []any{
			map[string]any{"title": "Ask hermes", "command": "hermes.ask", "arguments": []any{1}},
			map[string]any{"title": "Fix", "kind": "quickfix", "command": map[string]any{"title": "Fix", "command": "hermes.fix"}},
		}, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "no %s", method)
}

// callResult is what a command reports of one call to the editor: the result as sent, or the
// error's code and message.
type callResult struct {
	Result  json.RawMessage `json:"result,omitempty"`
	Code    jsonrpc2.Code   `json:"code,omitempty"`
	Message string          `json:"message,omitempty"`
}

// callEditor sends a request to the editor, bounded by a timeout, and reports the answer.
func (s *testServer) callEditor(ctx context.Context, method string, params any) callResult {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var raw json.RawMessage
	_, err := s.conn.Call(ctx, method, params, &raw)
	var je *jsonrpc2.Error
	switch {
	case errors.As(err, &je):
		return callResult{Code: je.Code, Message: je.Message}
	case err != nil:
		return callResult{Code: -1, Message: err.Error()}
	}
	if len(raw) == 0 {
		raw = json.RawMessage("null") // jsonrpc2 decodes a null result as none
	}
	return callResult{Result: raw}
}

// command runs a workspace/executeCommand command:
//   - progress: creates token "tok-1" and reports begin, report, end on it when that worked;
//   - progressOn: reports begin, end on the request's workDoneToken;
//   - ask: sends a showMessageRequest and a showMessage with the answer;
//   - config: asks workspace/configuration for hermes.model, hermes and other;
//   - showDocument: sends window/showDocument;
//   - notify: sends hermes/turnEvent;
//   - block: waits until the request is cancelled and answers -32800;
//   - hold: sends the showMessageRequest of args[0] in the background and answers at once;
//   - cancellableProgress: begins a cancellable progress and ends it when the editor cancels it;
//   - misc: sends workspace/workspaceFolders, client/registerCapability and an unknown request;
//   - badProgress: sends $/progress with a token marshalled as {} and a report before begin.
func (s *testServer) command(ctx context.Context, cmd string, args []json.RawMessage, workDoneToken json.RawMessage) (any, error) {
	notify := func(method string, params any) {
		if err := s.conn.Notify(ctx, method, params); err != nil {
			s.t.Errorf("notify %s: %v", method, err)
		}
	}
	switch cmd {
	case "progress":
		tok := protocol.NewProgressToken("tok-1")
		r := s.callEditor(ctx, protocol.MethodWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: *tok})
		if r.Code != 0 {
			return r, nil
		}
		notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *tok, Value: &protocol.WorkDoneProgressBegin{
			Kind: protocol.WorkDoneProgressKindBegin, Title: "Thinking", Cancellable: true, Percentage: 0,
		}})
		notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *tok, Value: &protocol.WorkDoneProgressReport{
			Kind: protocol.WorkDoneProgressKindReport, Message: "half way", Percentage: 50,
		}})
		notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *tok, Value: &protocol.WorkDoneProgressEnd{
			Kind: protocol.WorkDoneProgressKindEnd, Message: "done",
		}})
		return r, nil
	case "progressOn":
		var tok protocol.ProgressToken
		if err := tok.UnmarshalJSON(workDoneToken); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "workDoneToken %s: %v", workDoneToken, err)
		}
		notify(protocol.MethodProgress, &protocol.ProgressParams{Token: tok, Value: &protocol.WorkDoneProgressBegin{
			Kind: protocol.WorkDoneProgressKindBegin, Title: "Running",
		}})
		notify(protocol.MethodProgress, &protocol.ProgressParams{Token: tok, Value: &protocol.WorkDoneProgressEnd{
			Kind: protocol.WorkDoneProgressKindEnd,
		}})
		return nil, nil
	case "ask":
		r := s.callEditor(ctx, protocol.MethodWindowShowMessageRequest, map[string]any{
			"type":    protocol.MessageTypeInfo,
			"message": "Apply the change?",
			"actions": []any{map[string]any{"title": "Yes", "id": 7}, map[string]any{"title": "No"}},
		})
		msg := fmt.Sprintf("answer: %s", r.Result)
		if r.Code != 0 {
			msg = fmt.Sprintf("error: %d", r.Code)
		}
		notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: msg})
		return r, nil
	case "config":
		return s.callEditor(ctx, protocol.MethodWorkspaceConfiguration, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{
			{Section: "hermes.model"}, {Section: "hermes"}, {Section: "other"},
		}}), nil
	case "showDocument":
		sel := protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 2}}
		return s.callEditor(ctx, protocol.MethodShowDocument, &protocol.ShowDocumentParams{
			URI: "file:///tmp/x.go", TakeFocus: true, Selection: &sel,
		}), nil
	case "notify":
		notify("hermes/turnEvent", map[string]any{"n": 1})
		notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: protocol.MessageTypeLog, Message: "turn started"})
		notify(protocol.MethodTelemetryEvent, map[string]any{"event": "turn"})
		return nil, nil
	case "block":
		notify("test/blocking", nil)
		<-ctx.Done()
		return nil, jsonrpc2.NewError(protocol.CodeRequestCancelled, "cancelled")
	case "hold":
		var title string
		if len(args) > 0 {
			_ = json.Unmarshal(args[0], &title)
		}
		s.wg.Go(func() {
			r := s.callEditor(s.ctx, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
				Type: protocol.MessageTypeInfo, Message: title,
			})
			data, _ := json.Marshal(r)
			_ = s.conn.Notify(s.ctx, "test/held", json.RawMessage(data))
		})
		return nil, nil
	case "cancellableProgress":
		// Begins a cancellable progress on "tok-2" and ends it once the editor cancels it.
		tok := protocol.NewProgressToken("tok-2")
		if r := s.callEditor(ctx, protocol.MethodWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: *tok}); r.Code != 0 {
			return r, nil
		}
		notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *tok, Value: &protocol.WorkDoneProgressBegin{
			Kind: protocol.WorkDoneProgressKindBegin, Title: "Long", Cancellable: true,
		}})
		s.wg.Go(func() {
			if s.waitNote(s.ctx, protocol.MethodWorkDoneProgressCancel, 1) {
				_ = s.conn.Notify(s.ctx, protocol.MethodProgress, &protocol.ProgressParams{Token: *tok, Value: &protocol.WorkDoneProgressEnd{
					Kind: protocol.WorkDoneProgressKindEnd, Message: "cancelled",
				}})
			}
		})
		return nil, nil
	case "misc":
		// workspace/workspaceFolders, client/registerCapability and an unknown method.
		return []callResult{
			s.callEditor(ctx, "workspace/workspaceFolders", nil),
			s.callEditor(ctx, protocol.MethodClientRegisterCapability, &protocol.RegistrationParams{
				Registrations: []protocol.Registration{{ID: "1", Method: protocol.MethodWorkspaceDidChangeConfiguration}},
			}),
			s.callEditor(ctx, "hermes/unknown", map[string]any{}),
		}, nil
	case "badProgress":
		notify(protocol.MethodProgress, map[string]any{"token": map[string]any{}, "value": map[string]any{"kind": "begin", "title": "x"}})
		notify(protocol.MethodProgress, map[string]any{"token": "late", "value": map[string]any{"kind": "report"}})
		return nil, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", cmd)
}

// awaitNote waits until the server has received n notifications of method and returns them.
func (s *testServer) awaitNote(ctx context.Context, method string, n int) []json.RawMessage {
	s.t.Helper()
	if !s.waitNote(ctx, method, n) {
		s.t.Fatalf("server: waiting for %d %s: %v (got %d)", n, method, ctx.Err(), len(s.notesOf(method)))
	}
	return s.notesOf(method)
}

// waitNote waits until the server has received n notifications of method, or ctx ends.
func (s *testServer) waitNote(ctx context.Context, method string, n int) bool {
	for {
		s.mu.Lock()
		got, changed := len(s.notes[method]), s.changed
		s.mu.Unlock()
		if got >= n {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// notesOf returns the notifications of method the server received.
func (s *testServer) notesOf(method string) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.notes[method]...)
}

// sentIDs returns the ids of the requests of method the server sent.
func (s *testServer) sentIDs(method string) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.callIDs[method]...)
}

// receivedIDs returns the ids of the requests of method the server received.
func (s *testServer) receivedIDs(method string) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.recvIDs[method]...)
}

// initParams returns the initialize params the server received.
func (s *testServer) initParams() *protocol.InitializeParams {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initial
}
