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

// TestDocuments checks the document notifications under each textDocumentSync.
func TestDocuments(t *testing.T) {
	const path = "/tmp/ws/a.go"
	t.Run("incremental", func(t *testing.T) {
		ctx := testCtx(t)
		s, ed := startServer(t, VSCode)
		if _, err := ed.Initialize(ctx, []string{"/tmp/ws"}, nil); err != nil {
			t.Fatal(err)
		}
		if err := ed.OpenFile(ctx, path, "héllo 😀 world\nline2\n"); err != nil {
			t.Fatal(err)
		}
		open := s.awaitNote(ctx, protocol.MethodTextDocumentDidOpen, 1)
		if !jsonEqual(t, open[0], `{"textDocument":{"uri":"file:///tmp/ws/a.go","languageId":"go","version":1,"text":"héllo 😀 world\nline2\n"}}`) {
			t.Errorf("didOpen %s", open[0])
		}
		// The emoji is two UTF-16 code units: character 8 is right after it.
		at := protocol.Position{Line: 0, Character: 8}
		if err := ed.ChangeFile(ctx, path, protocol.TextDocumentContentChangeEvent{Range: protocol.Range{Start: at, End: at}, Text: "X"}); err != nil {
			t.Fatal(err)
		}
		if text, v, _ := ed.BufferText(path); text != "héllo 😀X world\nline2\n" || v != 2 {
			t.Errorf("buffer %q version %d", text, v)
		}
		if err := ed.SetFileText(ctx, path, "new"); err != nil {
			t.Fatal(err)
		}
		changes := s.awaitNote(ctx, protocol.MethodTextDocumentDidChange, 2)
		if !jsonEqual(t, changes[0], `{"textDocument":{"uri":"file:///tmp/ws/a.go","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":8},"end":{"line":0,"character":8}},"text":"X"}]}`) {
			t.Errorf("incremental didChange %s", changes[0])
		}
		if !jsonEqual(t, changes[1], `{"textDocument":{"uri":"file:///tmp/ws/a.go","version":3},"contentChanges":[{"text":"new"}]}`) {
			t.Errorf("whole-document didChange %s", changes[1])
		}
		if err := ed.CloseFile(ctx, path); err != nil {
			t.Fatal(err)
		}
		s.awaitNote(ctx, protocol.MethodTextDocumentDidClose, 1)
		if _, _, ok := ed.BufferText(path); ok {
			t.Error("buffer still open after CloseFile")
		}
	})
	t.Run("full", func(t *testing.T) {
		ctx := testCtx(t)
		s, ed := startServerSync(t, VSCode, map[string]any{"openClose": true, "change": protocol.TextDocumentSyncKindFull})
		if _, err := ed.Initialize(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := ed.OpenFile(ctx, path, "ab\ncd"); err != nil {
			t.Fatal(err)
		}
		rng := protocol.Range{Start: protocol.Position{Line: 1, Character: 0}, End: protocol.Position{Line: 1, Character: 1}}
		if err := ed.ChangeFile(ctx, path, protocol.TextDocumentContentChangeEvent{Range: rng, Text: "Z"}); err != nil {
			t.Fatal(err)
		}
		changes := s.awaitNote(ctx, protocol.MethodTextDocumentDidChange, 1)
		if !jsonEqual(t, changes[0], `{"textDocument":{"uri":"file:///tmp/ws/a.go","version":2},"contentChanges":[{"text":"ab\nZd"}]}`) {
			t.Errorf("full didChange %s", changes[0])
		}
	})
	t.Run("none", func(t *testing.T) {
		ctx := testCtx(t)
		_, ed := startServerSync(t, VSCode, nil)
		if _, err := ed.Initialize(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := ed.OpenFile(ctx, path, "x"); !errors.Is(err, ErrNotWanted) {
			t.Errorf("OpenFile = %v, want ErrNotWanted", err)
		}
		if text, _, ok := ed.BufferText(path); !ok || text != "x" {
			t.Errorf("buffer %q open=%v", text, ok)
		}
	})
}

// TestWorkspace checks folders, configuration, progress cancellation, code actions, client
// tokens and protocol violations.
func TestWorkspace(t *testing.T) {
	ctx := testCtx(t)
	s, ed := startServer(t, VSCode)
	if _, err := ed.Initialize(ctx, []string{"/tmp/ws1"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := ed.AddFolder(ctx, "/tmp/ws2"); err != nil {
		t.Fatal(err)
	}
	if err := ed.RemoveFolder(ctx, "/tmp/ws1"); err != nil {
		t.Fatal(err)
	}
	if err := ed.RemoveFolder(ctx, "/tmp/ws1"); err == nil {
		t.Error("removing a folder twice worked")
	}
	evs := s.awaitNote(ctx, protocol.MethodWorkspaceDidChangeWorkspaceFolders, 2)
	if !jsonEqual(t, evs[0], `{"event":{"added":[{"uri":"file:///tmp/ws2","name":"ws2"}],"removed":[]}}`) ||
		!jsonEqual(t, evs[1], `{"event":{"added":[],"removed":[{"uri":"file:///tmp/ws1","name":"ws1"}]}}`) {
		t.Errorf("didChangeWorkspaceFolders %s", evs)
	}
	if got := ed.Folders(); len(got) != 1 || got[0] != "/tmp/ws2" {
		t.Errorf("Folders = %v", got)
	}

	if err := ed.ChangeConfiguration(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.awaitNote(ctx, protocol.MethodWorkspaceDidChangeConfiguration, 1); !jsonEqual(t, got[0], `{"settings":null}`) {
		t.Errorf("didChangeConfiguration %s", got[0])
	}
	ed.SetConfiguration("other", 3)
	if r := run(t, ctx, ed, "config"); !jsonEqual(t, r.Result, `[null,null,3]`) {
		t.Errorf("configuration answered %+v", r)
	}

	// Progress cancellation needs a cancel button: a begun, cancellable, unfinished progress.
	tok2 := *protocol.NewProgressToken("tok-2")
	if err := ed.CancelProgress(ctx, tok2); err == nil || !strings.Contains(err.Error(), "has not begun") {
		t.Errorf("CancelProgress before begin = %v", err)
	}
	run(t, ctx, ed, "cancellableProgress")
	if err := ed.Await(ctx, ProgressBegun(tok2)); err != nil {
		t.Fatal(err)
	}
	if err := ed.CancelProgress(ctx, tok2); err != nil {
		t.Fatal(err)
	}
	if got := s.awaitNote(ctx, protocol.MethodWorkDoneProgressCancel, 1); !jsonEqual(t, got[0], `{"token":"tok-2"}`) {
		t.Errorf("workDoneProgress/cancel %s", got[0])
	}
	if err := ed.Await(ctx, ProgressEnded(tok2)); err != nil {
		t.Fatal(err)
	}
	if evs := ed.Progress(tok2); evs[len(evs)-1].Message != "cancelled" {
		t.Errorf("Progress(tok-2) = %+v", evs)
	}
	if err := ed.CancelProgress(ctx, tok2); err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Errorf("CancelProgress after end = %v", err)
	}

	actions, err := ed.CodeActions(ctx, "/tmp/ws2/a.go", protocol.Range{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(actions) != 2 || actions[0].Title != "Ask hermes" || actions[0].Command == nil || actions[0].Command.Command != "hermes.ask" ||
		actions[1].Kind != protocol.QuickFix || actions[1].Command == nil || actions[1].Command.Command != "hermes.fix" {
		t.Errorf("CodeActions = %+v", actions)
	}

	clientTok := *protocol.NewProgressToken("client-1")
	if _, err := ed.ExecuteCommandWithToken(ctx, "progressOn", clientTok); err != nil {
		t.Fatal(err)
	}
	if err := ed.Await(ctx, AnyProgressEnded()); err != nil {
		t.Fatal(err)
	}
	if got := ed.Progress(clientTok); len(got) != 2 || got[0].Title != "Running" {
		t.Errorf("Progress(client token) = %+v", got)
	}

	run(t, ctx, ed, "badProgress")
	st := ed.State()
	if len(st.Violations) != 2 || !strings.Contains(st.Violations[0], "bad token") || !strings.Contains(st.Violations[1], "report before begin") {
		t.Errorf("Violations = %q", st.Violations)
	}
	if got := st.UnknownProgressTokens(); len(got) != 1 || got[0] != *protocol.NewProgressToken("late") {
		t.Errorf("UnknownProgressTokens = %v", got)
	}

	raw, err := ed.ExecuteCommand(ctx, "misc")
	if err != nil {
		t.Fatal(err)
	}
	var misc []callResult
	if err := json.Unmarshal(raw, &misc); err != nil || len(misc) != 3 {
		t.Fatalf("misc: %s: %v", raw, err)
	}
	if !jsonEqual(t, misc[0].Result, `[{"uri":"file:///tmp/ws2","name":"ws2"}]`) {
		t.Errorf("workspace/workspaceFolders answered %+v", misc[0])
	}
	if misc[1].Code != 0 || !jsonEqual(t, misc[1].Result, `null`) {
		t.Errorf("client/registerCapability answered %+v", misc[1])
	}
	if misc[2].Code != jsonrpc2.MethodNotFound {
		t.Errorf("unknown request answered %+v", misc[2])
	}
	if err := ed.Await(ctx, RequestCount("hermes/unknown", 1)); err != nil {
		t.Error(err)
	}

	// Eglot has no workspace folders.
	_, eg := startServer(t, Eglot)
	if err := eg.AddFolder(ctx, "/tmp/x"); err == nil {
		t.Error("AddFolder worked without workspace folders")
	}
}

// TestHandlerPanics checks that a panicking hook answers -32603 and makes Close fail.
func TestHandlerPanics(t *testing.T) {
	ctx := testCtx(t)
	s, ed := startServer(t, VSCode)
	s.closeErr = true
	if _, err := ed.Initialize(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	ed.OnShowMessageRequest(func(context.Context, protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		panic("boom")
	})
	if r := run(t, ctx, ed, "ask"); r.Code != jsonrpc2.InternalError || !strings.Contains(r.Message, "boom") {
		t.Errorf("panicking hook answered %+v", r)
	}
	// Handle overrides the profile.
	ed.Handle(protocol.MethodShowDocument, func(context.Context, json.RawMessage) (any, error) {
		return nil, &ResponseError{Code: 42, Message: "no"}
	})
	if r := run(t, ctx, ed, "showDocument"); r.Code != 42 || r.Message != "no" {
		t.Errorf("handled showDocument answered %+v", r)
	}
	if err := ed.Close(); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Close = %v, want the panic", err)
	}
}

// TestHelixNeverCancels checks that a Helix2501 editor gives up on requests and progress without
// telling the server.
func TestHelixNeverCancels(t *testing.T) {
	ctx := testCtx(t)
	s, ed := startServer(t, Helix2501)
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
	// Call writes its $/cancelRequest before it returns: one would arrive before this notification.
	if err := ed.ChangeConfiguration(ctx, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	s.awaitNote(ctx, protocol.MethodWorkspaceDidChangeConfiguration, 1)
	if got := s.notesOf(protocol.MethodCancelRequest); len(got) != 0 {
		t.Errorf("Helix sent $/cancelRequest: %s", got)
	}
	if err := ed.CancelProgress(ctx, *protocol.NewProgressToken("tok-1")); err == nil {
		t.Error("Helix cancelled a progress")
	}
}
