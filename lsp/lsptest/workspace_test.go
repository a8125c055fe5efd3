package lsptest

// Tests of the fake editor's documents, workspace folders, panicking handlers and Helix's profile.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

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
