package acpagent

// This file reads and writes files for the agent (fs/read_text_file, fs/write_text_file): inside
// its session's folder only, through the workspace boundary. A read of a file the editor has open
// gets the editor's text, unsaved edits included; a write that no edit of the turn announced is
// announced first, as a fileChange item, so that the host keeps the file as it was for undo.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/jsonrpc"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// maxReadFile bounds a file read for the agent, in bytes.
const maxReadFile = 16 << 20

// ReadTextFile reads a file of the session's folder for the agent: the editor's buffer when the
// editor has it open, else the disk; from line req.Line (1-based) on, req.Limit lines at most.
func (h handler) ReadTextFile(ctx context.Context, req *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	s, path, err := h.a.file(req.SessionID, req.Path)
	if err != nil {
		return nil, err
	}
	text, open := "", false
	if buffer := h.a.editor.Buffer; buffer != nil {
		text, open = buffer(path)
	}
	if !open {
		b, err := workspace.ReadFile(ctx, s.folder, path, maxReadFile)
		if err != nil {
			return nil, fileError("read", s.folder, path, err)
		}
		text = string(b)
	}
	return &acp.ReadTextFileResponse{Content: linesOf(text, req.Line, req.Limit)}, nil
}

// linesOf is limit lines of text from line (1-based) on; line 0 is 1, limit 0 is all.
func linesOf(text string, line, limit int64) string {
	if line <= 1 && limit <= 0 {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	from := int(min(max(line, 1)-1, int64(len(lines))))
	to := len(lines)
	if limit > 0 && limit < int64(to-from) {
		to = from + int(limit)
	}
	return strings.Join(lines[from:to], "")
}

// WriteTextFile writes a file of the session's folder for the agent, while a turn of the session
// runs. Unless an edit of the turn still open names the file, the write is announced as a
// fileChange item of its own (started before, completed after), so that the host keeps the file's
// content before it: undo restores it exactly.
func (h handler) WriteTextFile(ctx context.Context, req *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	s, path, err := h.a.file(req.SessionID, req.Path)
	if err != nil {
		return nil, err
	}
	old, existed := currentText(ctx, s.folder, path)
	s.mu.Lock()
	t := s.turn
	if t == nil {
		s.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "no prompt of session %s is running: hermes-lsp writes files for a prompt only", s.id)
	}
	var write *tool
	if !t.editing(path) {
		kind := "update"
		if !existed {
			kind = "add"
		}
		t.seq++
		write = &tool{
			itemID: fmt.Sprintf("write-%d", t.seq), seq: t.seq, typ: codex.ItemFileChange, status: acp.ToolCallStatusInProgress,
			changes: []codex.FileChange{{Path: path, Kind: codex.PatchChangeKind{Type: kind}, Diff: unifiedDiff(old, req.Content)}},
		}
		s.publish(t, codex.NotifyItemStarted, &codex.ItemParams{ThreadID: s.id, TurnID: t.id, Item: write.item(s.folder)})
	}
	s.mu.Unlock()

	err = workspace.WriteFile(s.folder, path, []byte(req.Content), 0o644)
	if write != nil {
		write.status = acp.ToolCallStatusCompleted
		if err != nil {
			write.status = acp.ToolCallStatusFailed
		}
		s.mu.Lock()
		s.completeTool(t, write)
		s.mu.Unlock()
	}
	if err != nil {
		return nil, fileError("write", s.folder, path, err)
	}
	return &acp.WriteTextFileResponse{}, nil
}

// editing reports whether an edit of the turn that has not completed names path. s.mu is held.
func (t *turn) editing(path string) bool {
	for _, tc := range t.tools {
		if tc.typ == codex.ItemFileChange && !tc.done &&
			slices.ContainsFunc(tc.changes, func(c codex.FileChange) bool { return c.Path == path }) {
			return true
		}
	}
	return false
}

// currentText is the file's content on disk, for a write's diff, and whether it exists; a file
// too large to diff (or unreadable) has no text.
func currentText(ctx context.Context, folder, path string) (string, bool) {
	b, err := workspace.ReadFile(ctx, folder, path, maxDiffInput)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	return string(b), true
}

// file returns the session a file request names, and its path: absolute, cleaned, and inside the
// session's folder (an error answer says why not).
func (a *Agent) file(sessionID, path string) (*session, string, error) {
	s, err := a.session(sessionID)
	if err != nil {
		return nil, "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%v", err)
	}
	clean, ok := cleanPath(path)
	if !ok {
		return nil, "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%q is not an absolute path", safetext.LineCut(path, 200))
	}
	if _, err := workspace.Inside(s.folder, clean); err != nil {
		return nil, "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s: hermes-lsp reads and writes files for the agent inside %s only", err, s.folder)
	}
	return s, clean, nil
}

// fileError is the answer to a read or write that failed: not found, or why.
func fileError(op, folder, path string, err error) error {
	rel, _ := workspace.Rel(folder, path)
	if errors.Is(err, fs.ErrNotExist) {
		return jsonrpc.Errorf(acp.ErrorCodeResourceNotFound, "%s %s: no such file", op, rel)
	}
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "%s %s: %v", op, rel, err)
}
