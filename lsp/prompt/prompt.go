// Package prompt makes the prompt of an ask: the person's words, then where they are (the file,
// the selected lines as the editor's buffer has them, the diagnostics in the range) and the files
// with unsaved changes. Lines are read from disk through the workspace boundary, bounded and safe
// against what a workspace can plant (a FIFO that never answers, a symlink that points elsewhere, a
// file of many gigabytes).
package prompt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/instruct"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Source is where a prompt's context comes from.
type Source struct {
	// Docs are the documents open in the editor: their text, unsaved edits included, is quoted.
	Docs *textdoc.Documents
	// Seen returns the editor's diagnostics last seen on a document (a code action request showed
	// them), for an ask that brings none.
	Seen func(uri string) []protocol.Diagnostic
	// OwnSource is the source of the server's own diagnostics: its instruction hints are not the
	// code's diagnostics, and stay out of the prompt.
	OwnSource string
	Log       *slog.Logger
}

// Build adds to the person's words where they are (see withContext), and names the files of the
// folder with unsaved changes in the editor: what codex reads of them on disk is older.
func Build(ctx context.Context, src Source, folder workspace.Folder, a hermesproto.AskArgs) (string, error) {
	s := src
	prompt, err := withContext(ctx, src, folder, a)
	if err != nil {
		return "", err
	}
	var unsaved []string
	for _, f := range s.Docs.OpenFiles(folder.Path) {
		if f.Text != f.Saved {
			rel, _ := workspace.Rel(folder.Path, f.Path)
			unsaved = append(unsaved, rel)
		}
	}
	if len(unsaved) > 0 {
		prompt += "\n\nUnsaved in the editor (the files on disk are older; do not overwrite them without saying so): " + strings.Join(unsaved, ", ")
	}
	return prompt, nil
}

// withContext adds to the person's words where they are: the file, the selected lines as the
// editor's buffer has them (unsaved edits count), and the diagnostics in the range.
func withContext(ctx context.Context, s Source, folder workspace.Folder, a hermesproto.AskArgs) (string, error) {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(a.Prompt))
	if a.URI == "" {
		return b.String(), nil
	}
	path, err := workspace.PathFromURI(a.URI)
	if err != nil {
		return b.String(), nil
	}
	rel, _ := workspace.Rel(folder.Path, path)
	if rel == "." {
		return b.String(), nil // the folder itself (a chat buffer asks so): no file to name
	}
	b.WriteString("\n\nFile: " + rel)
	if a.Range == nil {
		return b.String(), nil
	}
	start, end := a.Range.Start.Line, a.Range.End.Line
	if end < start {
		start, end = end, start // a selection made upwards, taken in order as Documents.Lines does
	}
	if end > start && a.Range.End.Character == 0 && a.Range.End.Line == end {
		end-- // a selection of whole lines ends at the start of the next one
	}
	text, ok := s.Docs.Lines(a.URI, start, end)
	if !ok {
		var err error
		if text, err = linesFromDisk(ctx, folder.Path, path, start, end); err != nil {
			if errors.Is(err, workspace.ErrNotRegular) {
				return "", fmt.Errorf("%s is not a regular file: Hermes reads context only from regular files", rel)
			}
			s.Log.Info("no context lines from disk", "path", path, "err", err)
		}
		ok = err == nil
	}
	if ok {
		fmt.Fprintf(&b, " (lines %d-%d)\n```%s\n%s\n```", start+1, end+1, fenceLang(path), strings.TrimRight(text, "\n"))
	}
	diags := a.Diagnostics
	if len(diags) == 0 {
		diags = s.Seen(a.URI)
	}
	var in []protocol.Diagnostic
	for _, d := range diags {
		if instruct.IsHint(d, s.OwnSource) {
			continue // "run it from the code actions": said to the person, not to the model
		}
		if d.Range.Start.Line <= end && d.Range.End.Line >= start {
			in = append(in, d)
		}
	}
	if len(in) > 0 {
		b.WriteString("\nDiagnostics in this range:")
		for _, d := range in {
			fmt.Fprintf(&b, "\n- line %d: %s", d.Range.Start.Line+1, d.Message)
			if d.Source != "" {
				b.WriteString(" (" + d.Source + ")")
			}
		}
	}
	return b.String(), nil
}

func fenceLang(path string) string {
	return strings.TrimPrefix(filepath.Ext(path), ".")
}

// Bounds on reading context lines from disk.
const (
	maxContextScan  = 16 << 20  // bytes read at most to reach the lines asked for
	maxContextBytes = 256 << 10 // bytes of lines returned at most
)

// linesFromDisk returns lines start..end (0-based, inclusive) of the regular file at path inside
// folder (through the workspace boundary). It reads only up to the last line it needs, at most
// maxContextScan bytes, and returns at most maxContextBytes (cut at a line); it stops when ctx ends.
func linesFromDisk(ctx context.Context, folder, path string, start, end uint32) (string, error) {
	f, err := workspace.OpenRegular(folder, path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, maxContextScan))
	var b strings.Builder
	for line := uint32(0); line <= end; line++ {
		if line%1024 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		text, err := r.ReadString('\n')
		if line >= start {
			if b.Len()+len(text) > maxContextBytes {
				break
			}
			b.WriteString(text)
		}
		if err == io.EOF {
			if line < start {
				return "", fmt.Errorf("%s has fewer than %d lines", filepath.Base(path), start+1)
			}
			break
		}
		if err != nil {
			return "", err
		}
	}
	return b.String(), nil
}
