package lsp_test

// Tests of the Emacs clients' profiles (lsp-mode 8 and eglot 1.9, as hermes-lsp.el sets them up):
// undo's edit, and a reply in a transcript under eglot.

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/lsptest"
)

// TestUndoWithoutEditMetadata: eglot 1.9 fails a workspace/applyEdit with a metadata member
// ("Internal error"): an editor that does not declare workspaceEdit.metadataSupport gets the undo's
// edit without it, and takes it.
func TestUndoWithoutEditMetadata(t *testing.T) {
	for _, profile := range []lsptest.Profile{lsptest.Eglot19, lsptest.LspMode8} {
		t.Run(profile.Name, func(t *testing.T) {
			f := start(t, profile, map[string]any{"yolo": true})
			ctx := testCtx(t)
			path := f.file("calc.go", "old\n")
			f.fake.OnTurn(patchTurn(t, map[string]string{path: "new\n"}))
			f.ask(ctx, map[string]any{"prompt": "change"})
			f.awaitEnd(ctx)
			before := len(f.ed.State().Requests["workspace/applyEdit"])
			res := undo(t, f, map[string]any{})
			if len(res.Restored) != 1 || len(res.Skipped) != 0 {
				t.Fatalf("undo: %+v", res)
			}
			edits := f.ed.State().Requests["workspace/applyEdit"][before:]
			if len(edits) != 1 || !strings.Contains(string(edits[0]), `"newText":"old\n"`) || strings.Contains(string(edits[0]), `"metadata"`) {
				t.Fatalf("undo edits: %s", edits)
			}
			msgs := f.ed.State().ShowMessages
			if last := msgs[len(msgs)-1].Message; strings.Contains(last, "refused") || !strings.Contains(last, "Hermes undid ") {
				t.Errorf("undo message: %q", last)
			}
		})
	}
}

// TestUndoRefusedEditRestoresOnDisk: when the editor refuses the undo's edit, the file is restored
// on disk instead and the message says so.
func TestUndoRefusedEditRestoresOnDisk(t *testing.T) {
	p := lsptest.Eglot19.Clone()
	p.Name = "Eglot19Refusing"
	p.ApplyEdit = lsptest.AnswerInternalError
	f := start(t, p, map[string]any{"yolo": true})
	ctx := testCtx(t)
	path := f.file("calc.go", "old\n")
	f.fake.OnTurn(patchTurn(t, map[string]string{path: "new\n"}))
	f.ask(ctx, map[string]any{"prompt": "change"})
	f.awaitEnd(ctx)
	res := undo(t, f, map[string]any{})
	if len(res.Restored) != 1 || len(res.Skipped) != 0 {
		t.Fatalf("undo: %+v", res)
	}
	if got := readText(t, path); got != "old\n" {
		t.Fatalf("after a refused edit the file holds %q, want it restored on disk", got)
	}
	msgs := f.ed.State().ShowMessages
	if last := msgs[len(msgs)-1].Message; !strings.Contains(last, "the editor refused the edit: calc.go restored on disk instead") {
		t.Errorf("undo message: %q", last)
	}
}

// TestTranscriptReplyInItsOwnConnection: eglot gives a transcript opened on its own a connection
// whose only workspace folder is the transcripts folder. A `hermes:` reply there continues the
// transcript's thread in the thread's folder, adopted and said so; codex never runs in the state
// folder, and any other document there is refused with what to do.
func TestTranscriptReplyInItsOwnConnection(t *testing.T) {
	f := start(t, lsptest.Eglot19, map[string]any{"yolo": true})
	ctx := testCtx(t)
	cwds := make(chan string, 3)
	f.fake.OnTurn(func(ft *codextest.FakeTurn) {
		cwds <- ft.Cwd
		ft.AgentMessage("answer")
		ft.Complete(codex.TurnCompleted, nil)
	})
	first := f.ask(ctx, map[string]any{"prompt": "first question"})
	f.awaitEndN(ctx, 1)
	<-cwds

	// The connection eglot starts for the transcript: the transcripts folder, not the project.
	transcripts := filepath.Join(f.state, "transcripts")
	if err := f.ed.RemoveFolder(ctx, f.folder); err != nil {
		t.Fatal(err)
	}
	if err := f.ed.AddFolder(ctx, transcripts); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(transcripts, first.ThreadID+".md")
	text := readText(t, path) + "\nhermes: and a follow-up\n"
	if err := f.ed.OpenFile(ctx, path, text); err != nil {
		t.Fatal(err)
	}
	res := f.ask(ctx, map[string]any{"prompt": "and a follow-up", "uri": string(uri.File(path))})
	f.awaitEndN(ctx, 2)
	if cwd := <-cwds; cwd != f.folder {
		t.Errorf("the reply ran in %q, want the thread's folder %q", cwd, f.folder)
	}
	if res.ThreadID != first.ThreadID || res.Folder != f.folder {
		t.Errorf("the reply: %+v, want thread %s in %s", res, first.ThreadID, f.folder)
	}
	if err := f.ed.Await(ctx, lsptest.MessageContaining("this transcript's thread works in "+f.folder)); err != nil {
		t.Errorf("no word of the adopted folder: %v", err)
	}

	notes := filepath.Join(transcripts, "notes.txt")
	if err := f.ed.OpenFile(ctx, notes, "hermes: do it here\n"); err != nil {
		t.Fatal(err)
	}
	_, err := f.ed.ExecuteCommand(ctx, hermesproto.CmdAsk, map[string]any{"prompt": "do it here", "uri": string(uri.File(notes))})
	if err == nil || !strings.Contains(err.Error(), "state folder") || !strings.Contains(err.Error(), "ask from a file of your project") {
		t.Errorf("a turn asked in the state folder: %v", err)
	}
	select {
	case cwd := <-cwds:
		t.Errorf("codex ran a turn in %s", cwd)
	default:
	}
}
