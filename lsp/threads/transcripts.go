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
// transcripts folder), and its folder (a workspace folder of this editor) and thread.
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
	if !ok {
		return workspace.Folder{}, "", false
	}
	for _, f := range t.cfg.Folders.List() {
		if filepath.Clean(f.Path) == filepath.Clean(folder) {
			return f, threadID, true
		}
	}
	return workspace.Folder{}, "", false
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
