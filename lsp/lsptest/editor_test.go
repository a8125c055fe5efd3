package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testCtx bounds a test's waits.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("bad JSON %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad JSON %q: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

// run executes a test-server command and decodes its callResult.
func run(t *testing.T, ctx context.Context, ed *Editor, cmd string, args ...any) callResult {
	t.Helper()
	raw, err := ed.ExecuteCommand(ctx, cmd, args...)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	var r callResult
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s: result %s: %v", cmd, raw, err)
		}
	}
	return r
}

// TestProfiles checks what each profile advertises and how it answers each server request.
func TestProfiles(t *testing.T) {
	const (
		ok          = 0
		notFound    = jsonrpc2.MethodNotFound
		internalErr = jsonrpc2.InternalError
	)
	tests := []struct {
		profile          Profile
		window           bool
		workspaceFolders bool
		createCode       jsonrpc2.Code
		askCode          jsonrpc2.Code
		askResult        string // with ChooseAction("Yes")
		showDocCode      jsonrpc2.Code
		showDocResult    string
		configResult     string
	}{
		{VSCode, true, true, ok, ok, `{"title":"Yes","id":7}`, ok, `{"success":true}`, `["gpt-5",{"model":"gpt-5"},null]`},
		{Neovim07, true, true, ok, ok, `{"title":"Yes"}`, notFound, "", `["gpt-5",{"model":"gpt-5"},null]`},
		{Helix2501, true, true, ok, notFound, "", ok, `{"success":true}`, `null`},
		{Eglot, false, false, notFound, internalErr, "", ok, `null`, `["gpt-5",{"model":"gpt-5"},null]`},
		{LspMode8, true, true, ok, ok, `{"title":"Yes"}`, ok, `null`, `["gpt-5",{"model":"gpt-5"},null]`},
		{Eglot19, true, true, ok, ok, `{"title":"Yes"}`, ok, `null`, `["gpt-5",{"model":"gpt-5"},null]`},
	}
	for _, tt := range tests {
		t.Run(tt.profile.Name, func(t *testing.T) {
			ctx := testCtx(t)
			s, ed := startServer(t, tt.profile, WithConfiguration("hermes", map[string]any{"model": "gpt-5"}))
			res, err := ed.Initialize(ctx, []string{"/tmp/ws1", "/tmp/ws2"}, map[string]any{"k": "v"})
			if err != nil {
				t.Fatal(err)
			}
			if res.ServerInfo == nil || res.ServerInfo.Name != "test-server" {
				t.Errorf("initialize result: %+v", res)
			}
			s.awaitNote(ctx, protocol.MethodInitialized, 1)

			// initialize advertises the profile.
			ip := s.initParams()
			if got := ip.Capabilities.Window != nil; got != tt.window {
				t.Errorf("window capabilities sent = %v, want %v", got, tt.window)
			}
			if ip.RootURI != "file:///tmp/ws1" || ip.RootPath != "/tmp/ws1" {
				t.Errorf("rootUri = %q, rootPath = %q", ip.RootURI, ip.RootPath)
			}
			if got := len(ip.WorkspaceFolders); (got == 2) != tt.workspaceFolders {
				t.Errorf("workspaceFolders = %+v, want them: %v", ip.WorkspaceFolders, tt.workspaceFolders)
			}
			if tt.workspaceFolders && ip.WorkspaceFolders[1] != (protocol.WorkspaceFolder{URI: "file:///tmp/ws2", Name: "ws2"}) {
				t.Errorf("workspaceFolders[1] = %+v", ip.WorkspaceFolders[1])
			}

			// window/workDoneProgress/create and $/progress.
			r := run(t, ctx, ed, "progress")
			if r.Code != tt.createCode {
				t.Fatalf("workDoneProgress/create answered %+v, want code %d", r, tt.createCode)
			}
			tok := *protocol.NewProgressToken("tok-1")
			if got := ed.CreatedTokens(); len(got) != 1 || got[0] != tok {
				t.Errorf("CreatedTokens = %v", got)
			}
			if tt.createCode == ok {
				if err := ed.Await(ctx, ProgressEnded(tok)); err != nil {
					t.Fatal(err)
				}
				fifty := uint32(50)
				want := []ProgressEvent{
					{Kind: "begin", Title: "Thinking", Cancellable: true},
					{Kind: "report", Message: "half way", Percentage: &fifty},
					{Kind: "end", Message: "done"},
				}
				got := ed.Progress(tok)
				for i := range got {
					got[i].Raw = nil
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Progress = %+v, want %+v", got, want)
				}
			} else if got := ed.Progress(tok); len(got) != 0 {
				t.Errorf("progress after a refused create: %+v", got)
			}

			// window/showMessageRequest: dismissed by default, then an action chosen.
			run(t, ctx, ed, "ask")
			wantDismiss := "answer: null"
			if tt.askCode != ok {
				wantDismiss = "error: " + itoa(tt.askCode)
			}
			if err := ed.Await(ctx, MessageContaining(wantDismiss)); err != nil {
				t.Fatal(err)
			}
			ed.OnShowMessageRequest(ChooseAction("Yes"))
			r = run(t, ctx, ed, "ask")
			if r.Code != tt.askCode || (tt.askCode == ok && !jsonEqual(t, r.Result, tt.askResult)) {
				t.Errorf("showMessageRequest answered %+v, want code %d result %s", r, tt.askCode, tt.askResult)
			}
			if err := ed.Await(ctx, ShowMessageRequestCount(2)); err != nil {
				t.Fatal(err)
			}
			if got := ed.ShowMessageRequests()[1]; got.Message != "Apply the change?" || len(got.Actions) != 2 {
				t.Errorf("ShowMessageRequests[1] = %+v", got)
			}

			// window/showDocument.
			r = run(t, ctx, ed, "showDocument")
			if r.Code != tt.showDocCode || (tt.showDocCode == ok && !jsonEqual(t, r.Result, tt.showDocResult)) {
				t.Errorf("showDocument answered %+v, want code %d result %s", r, tt.showDocCode, tt.showDocResult)
			}
			docs := ed.ShowDocuments()
			if len(docs) != 1 || docs[0].URI != "file:///tmp/x.go" || !docs[0].TakeFocus || docs[0].Selection == nil || docs[0].Selection.End.Line != 2 {
				t.Errorf("ShowDocuments = %+v", docs)
			}

			// workspace/configuration.
			r = run(t, ctx, ed, "config")
			if r.Code != ok || !jsonEqual(t, r.Result, tt.configResult) {
				t.Errorf("configuration answered %+v, want %s", r, tt.configResult)
			}

			// Other notifications.
			run(t, ctx, ed, "notify")
			if err := ed.Await(ctx, AllOf(NotificationCount("hermes/turnEvent", 1), LogMessageContaining("turn started"))); err != nil {
				t.Fatal(err)
			}
			if got := ed.Notifications("hermes/turnEvent"); len(got) != 1 || !jsonEqual(t, got[0], `{"n":1}`) {
				t.Errorf("Notifications = %s", got)
			}
			if st := ed.State(); len(st.Telemetry) != 1 || len(st.Violations) != 0 || len(st.UnknownProgressTokens()) != 0 {
				t.Errorf("state: %s", st)
			}
		})
	}
}

func itoa(c jsonrpc2.Code) string {
	data, _ := json.Marshal(c)
	return string(data)
}

// TestCallCancelSendsNumericID checks that cancelling a call sends $/cancelRequest with the
// request's numeric id, and that Start, Cancel and Wait see the server's answer.
func TestCallCancelSendsNumericID(t *testing.T) {
	ctx := testCtx(t)
	s, ed := startServer(t, VSCode)
	if _, err := ed.Initialize(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}

	callCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := ed.ExecuteCommand(callCtx, "block")
		errc <- err
	}()
	if err := ed.Await(ctx, NotificationCount("test/blocking", 1)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("ExecuteCommand = %v, want context.Canceled", err)
	}
	cancels := s.awaitNote(ctx, protocol.MethodCancelRequest, 1)
	ids := s.receivedIDs(protocol.MethodWorkspaceExecuteCommand)
	if !jsonEqual(t, cancels[0], `{"id":`+string(ids[len(ids)-1])+`}`) {
		t.Errorf("$/cancelRequest %s for request %s", cancels[0], ids[len(ids)-1])
	}
	var c struct {
		ID any `json:"id"`
	}
	_ = json.Unmarshal(cancels[0], &c)
	if _, isNumber := c.ID.(float64); !isNumber {
		t.Errorf("$/cancelRequest id %s is not a number", cancels[0])
	}

	p, err := ed.Start(ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "block"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ed.Await(ctx, NotificationCount("test/blocking", 2)); err != nil {
		t.Fatal(err)
	}
	if err := p.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	err = p.Wait(ctx, nil)
	if code, _ := ErrorCode(err); code != protocol.CodeRequestCancelled {
		t.Errorf("Wait = %v, want code %d", err, protocol.CodeRequestCancelled)
	}
	var re *ResponseError
	if !errors.As(err, &re) || re.Method != protocol.MethodWorkspaceExecuteCommand || re.Message != "cancelled" {
		t.Errorf("Wait error = %#v", err)
	}
	cancels = s.awaitNote(ctx, protocol.MethodCancelRequest, 2)
	if !jsonEqual(t, cancels[1], `{"id":`+itoa(jsonrpc2.Code(p.ID()))+`}`) {
		t.Errorf("$/cancelRequest %s for request %d", cancels[1], p.ID())
	}

	// An error answer is a *ResponseError.
	_, err = ed.ExecuteCommand(ctx, "nonsense")
	if code, ok := ErrorCode(err); !ok || code != jsonrpc2.InvalidParams {
		t.Errorf("unknown command: %v", err)
	}
}

// TestServerCancelsEditorRequest checks that a request the editor is still answering is answered
// -32800 once the server cancels it.
func TestServerCancelsEditorRequest(t *testing.T) {
	blocking := func(ctx context.Context, _ protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	never := Neovim07.Clone()
	never.ShowMessageRequest = AnswerNever
	for name, start := range map[string]func(t *testing.T) (*testServer, *Editor){
		"AnswerNever": func(t *testing.T) (*testServer, *Editor) { return startServer(t, never) },
		"blockingHook": func(t *testing.T) (*testServer, *Editor) {
			return startServer(t, VSCode, WithShowMessageRequestHook(blocking))
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			s, ed := start(t)
			if _, err := ed.Initialize(ctx, nil, nil); err != nil {
				t.Fatal(err)
			}
			run(t, ctx, ed, "hold", "hang?")
			if err := ed.Await(ctx, ShowMessageRequestCount(1)); err != nil {
				t.Fatal(err)
			}
			ids := s.sentIDs(protocol.MethodWindowShowMessageRequest)
			if err := s.conn.Notify(ctx, protocol.MethodCancelRequest, map[string]any{"id": ids[0]}); err != nil {
				t.Fatal(err)
			}
			if err := ed.Await(ctx, NotificationCount("test/held", 1)); err != nil {
				t.Fatal(err)
			}
			var r callResult
			_ = json.Unmarshal(ed.Notifications("test/held")[0], &r)
			if r.Code != protocol.CodeRequestCancelled {
				t.Errorf("cancelled showMessageRequest answered %+v", r)
			}
			if got := ed.State().CancelledByServer; len(got) != 1 || string(got[0]) != string(ids[0]) {
				t.Errorf("CancelledByServer = %s, want %s", got, ids[0])
			}
		})
	}

	// Close ends a request nobody cancels: the editor's goroutine must not outlive it (goleak).
	t.Run("close", func(t *testing.T) {
		ctx := testCtx(t)
		_, ed := startServer(t, never)
		if _, err := ed.Initialize(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		run(t, ctx, ed, "hold", "forever")
		if err := ed.Await(ctx, ShowMessageRequestCount(1)); err != nil {
			t.Fatal(err)
		}
		if err := ed.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestAwait checks that Await fails with a description of the state when its context ends or
// the connection ends, and that the end of Connect's context closes the connection.
func TestAwait(t *testing.T) {
	never := func(*State) bool { return false }
	t.Run("deadline", func(t *testing.T) {
		ctx := testCtx(t)
		_, ed := startServer(t, VSCode)
		if _, err := ed.Initialize(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		run(t, ctx, ed, "notify")
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		err := ed.Await(short, never)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `logMessage type=log "turn started"`) {
			t.Errorf("Await = %v", err)
		}
	})
	t.Run("server closes", func(t *testing.T) {
		ctx := testCtx(t)
		s, ed := startServer(t, VSCode)
		if _, err := ed.Initialize(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { errc <- ed.Await(ctx, never) }()
		_ = s.conn.Close()
		if err := <-errc; !errors.Is(err, ErrClosed) {
			t.Errorf("Await = %v, want ErrClosed", err)
		}
		<-ed.Done()
		if _, err := ed.ExecuteCommand(ctx, "notify"); !errors.Is(err, ErrClosed) {
			t.Errorf("ExecuteCommand after close = %v, want ErrClosed", err)
		}
		if err := ed.Notify(ctx, "x", nil); !errors.Is(err, ErrClosed) {
			t.Errorf("Notify after close = %v, want ErrClosed", err)
		}
	})
	t.Run("connect context", func(t *testing.T) {
		sc, cc := net.Pipe()
		defer sc.Close()
		ctx, cancel := context.WithCancel(t.Context())
		ed, err := Connect(ctx, cc, VSCode)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		<-ed.Done()
		if err := ed.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
	})
}

// TestShutdownExit checks the end of a session.
func TestShutdownExit(t *testing.T) {
	ctx := testCtx(t)
	_, ed := startServer(t, Helix2501)
	if _, err := ed.Initialize(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := ed.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ed.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ed.Done():
	case <-ctx.Done():
		t.Fatal("the connection did not end after exit")
	}
	if err := ed.Await(ctx, func(s *State) bool { return s.Closed }); err != nil {
		t.Error(err)
	}
	if err := ed.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

// TestForget checks that Forget drops finished progress and past notifications but keeps what is
// still running, and that the server's later messages are recorded as before.
func TestForget(t *testing.T) {
	ctx := testCtx(t)
	_, ed := startServer(t, VSCode)
	if _, err := ed.Initialize(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, ed, "progress") // begins, reports and ends tok-1
	tok := *protocol.NewProgressToken("tok-1")
	if err := ed.Await(ctx, func(s *State) bool { return s.ProgressEnded(tok) }); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, ed, "notify")
	ed.Forget()
	s := ed.State()
	if len(s.Progress) != 0 || len(s.CreatedTokens) != 0 || len(s.Notifications) != 0 || len(s.LogMessages) != 0 {
		t.Errorf("after Forget: %s", s)
	}
	run(t, ctx, ed, "progress")
	if err := ed.Await(ctx, func(s *State) bool { return s.ProgressEnded(tok) && len(s.CreatedTokens) == 1 }); err != nil {
		t.Fatal(err)
	}
	if u := ed.State().UnknownProgressTokens(); len(u) != 0 {
		t.Errorf("a token created after Forget counts as unknown: %v", u)
	}
}
