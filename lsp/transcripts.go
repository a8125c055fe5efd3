package lsp

// This file makes a transcript a chat buffer in any editor: a `hermes:` line written in a thread's
// markdown transcript and run continues that thread, in the folder it belongs to.

import (
	"path/filepath"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// transcriptThread reports whether uri is the markdown transcript of a thread (in the state
// directory's transcripts folder), and its folder (a workspace folder of this editor) and thread.
func (s *Server) transcriptThread(uri string) (workspace.Folder, string, bool) {
	path, ok := s.transcriptPath(uri)
	if !ok {
		return workspace.Folder{}, "", false
	}
	h, err := s.hostOrErr()
	if err != nil {
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
	for _, f := range s.folders.List() {
		if filepath.Clean(f.Path) == filepath.Clean(folder) {
			return f, threadID, true
		}
	}
	return workspace.Folder{}, "", false
}

// isTranscript reports whether uri names a markdown transcript of the state directory, whose
// `hermes:` lines are read by the transcript's format (agenthost.TranscriptInstructions) wherever
// it lies, a workspace folder included.
func (s *Server) isTranscript(uri string) bool {
	_, ok := s.transcriptPath(uri)
	return ok
}

// transcriptPath returns the path uri names when it is a markdown file in the state directory's
// transcripts folder.
func (s *Server) transcriptPath(uri string) (string, bool) {
	path, err := workspace.PathFromURI(uri)
	if err != nil {
		return "", false
	}
	h, err := s.hostOrErr()
	if err != nil {
		return "", false
	}
	dir := filepath.Join(h.StateDir(), "transcripts")
	if filepath.Dir(filepath.Clean(path)) != filepath.Clean(dir) || filepath.Ext(path) != ".md" {
		return "", false
	}
	return path, true
}

// instructionDocument reports whether the server looks for instructions in the document at uri
// (one of a workspace folder, or a thread's transcript of one), and whether it is a transcript.
func (s *Server) instructionDocument(uri string) (transcript, ok bool) {
	if s.isTranscript(uri) {
		_, _, ok := s.transcriptThread(uri)
		return true, ok
	}
	_, err := s.resolveFolder(uri)
	return false, err == nil
}
