package threads

// This file is the threads' transcripts: hermes.showTranscript opens one, and a transcript is a
// chat buffer in any editor: a `hermes:` line written in a thread's markdown transcript and run
// continues that thread, in the folder it belongs to.

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// ShowTranscript is hermes.showTranscript: it opens the markdown transcript of the folder's
// thread, or names it when the editor cannot open it.
func (t *Threads) ShowTranscript(ctx context.Context, folder workspace.Folder, sess *agenthost.Session) (hermesproto.ShowTranscriptResult, error) {
	var none hermesproto.ShowTranscriptResult
	st := sess.Status()
	if st.ThreadID == "" {
		return none, errorf(jsonrpc2.InvalidParams, "no transcript yet in %s: ask something first", folder.Name)
	}
	_, md, err := agenthost.TranscriptPaths(t.cfg.StateDir(), st.ThreadID)
	if err != nil {
		return none, errorf(jsonrpc2.InvalidParams, "no transcript for %s: %v", folder.Name, err)
	}
	//hermes:ownfile the thread's transcript, in the state folder
	if _, err := os.Stat(md); err != nil {
		return none, errorf(jsonrpc2.InvalidParams, "no transcript yet for thread %s in %s", st.ThreadID, folder.Name)
	}
	if !t.cfg.Editor.ShowDocument(ctx, md, true) {
		t.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes transcript: "+md)
	}
	return hermesproto.ShowTranscriptResult{Path: md, URI: workspace.URIFromPath(md)}, nil
}

// Transcript reports whether uri is the markdown transcript of a thread (in the state directory's
// transcripts folder) whose folder is known, and returns that folder and the thread. The folder is
// the one the thread's transcript recorded when it began: the workspace folder of that path when
// this editor has it open, else a folder to Adopt (under eglot a transcript opened on its own gets
// a connection of its own, whose only workspace folder is the transcripts folder).
func (t *Threads) Transcript(uri string) (workspace.Folder, string, bool) {
	path, ok := t.transcriptPath(uri)
	if !ok {
		return workspace.Folder{}, "", false
	}
	h := t.cfg.Host()
	if h == nil {
		return workspace.Folder{}, "", false
	}
	threadID := strings.TrimSuffix(filepath.Base(path), ".md")
	jsonl, _, err := agenthost.TranscriptPaths(h.StateDir(), threadID)
	if err != nil {
		return workspace.Folder{}, "", false
	}
	folder, ok := agenthost.TranscriptFolder(jsonl)
	if !ok || !filepath.IsAbs(folder) {
		return workspace.Folder{}, "", false
	}
	folder = filepath.Clean(folder)
	if f, ok := t.cfg.Folders.Lookup(folder); ok {
		return f, threadID, true
	}
	return workspace.Folder{URI: workspace.URIFromPath(folder), Path: folder, Name: filepath.Base(folder)}, threadID, true
}

// Adopt makes f, a transcript's folder (Transcript), a workspace folder of this editor when it is
// not one already, so that a reply in the transcript runs there, and says so. It refuses, saying
// what to do, a folder that is gone or lies in the state directory: codex never works there.
func (t *Threads) Adopt(ctx context.Context, f workspace.Folder) error {
	if _, ok := t.cfg.Folders.Lookup(f.Path); ok {
		return nil
	}
	if InStateDir(t.cfg.StateDir(), f.Path) {
		return errorf(jsonrpc2.InvalidParams, "this transcript's thread worked in %s, in hermes-lsp's state folder, where codex never runs: ask from a file of your project instead", f.Path)
	}
	//hermes:ownfile the folder a transcript of ours recorded: a stat, before adopting it
	if fi, err := os.Stat(f.Path); err != nil || !fi.IsDir() {
		return errorf(jsonrpc2.InvalidParams, "this transcript's thread worked in %s, which is no longer a folder: start a new thread from a file of your project", f.Path)
	}
	if err := t.cfg.Folders.Add(f); err != nil {
		return errorf(jsonrpc2.InvalidParams, "this transcript's folder %s: %v", f.Path, err)
	}
	t.cfg.Log.Info("adopted a transcript's folder", "folder", f.Path)
	t.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes: this transcript's thread works in "+f.Path+": replies run there.")
	return nil
}

// InStateDir reports whether folder lies in the state directory stateDir (links resolved), where
// codex never runs: the transcripts and diffs are there, not a project.
func InStateDir(stateDir, folder string) bool {
	if stateDir == "" {
		return false
	}
	in, err := workspace.Contains(stateDir, folder)
	return in || err != nil // undecidable: as if it were
}

// IsTranscript reports whether uri names a markdown transcript of the state directory, whose
// `hermes:` lines are read by the transcript's format (agenthost.TranscriptInstructions) wherever
// it lies, a workspace folder included.
func (t *Threads) IsTranscript(uri string) bool {
	_, ok := t.transcriptPath(uri)
	return ok
}

// transcriptPath returns the path uri names when it is a markdown file in the state directory's
// transcripts folder.
func (t *Threads) transcriptPath(uri string) (string, bool) {
	path, err := workspace.PathFromURI(uri)
	if err != nil {
		return "", false
	}
	h := t.cfg.Host()
	if h == nil {
		return "", false
	}
	dir := filepath.Join(h.StateDir(), "transcripts")
	if filepath.Dir(filepath.Clean(path)) != filepath.Clean(dir) || filepath.Ext(path) != ".md" {
		return "", false
	}
	return path, true
}
