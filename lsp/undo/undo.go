// Package undo is hermes.undoTurn: the files a turn's patches changed go back to what they were
// before it, through the editor when it can take the edit (so the revert lands in its undo history
// and open buffers), else on disk; then codex's thread forgets the turn. Each file is resolved again
// as it is restored: one that now leads outside its folder, or is now a link, is left alone.
package undo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Session is a folder's agent session as undoing needs it; *agenthost.Session is one.
type Session interface {
	Checkpoints() ([]agenthost.Checkpoint, error)
	LoadCheckpoint(turnID string) (agenthost.Checkpoint, error)
	DropCheckpoint(turnID string) error
	RevertThread(ctx context.Context, threadID, turnID string) error
}

// Editor is the editor as undoing needs it: its documents, its workspace/applyEdit, and what it can
// take.
type Editor struct {
	// Docs are the documents open in the editor (unsaved edits, text, versions).
	Docs *textdoc.Documents
	// ApplyEdit sends workspace/applyEdit with params and returns the editor's answer.
	ApplyEdit func(ctx context.Context, params any) (protocol.ApplyWorkspaceEditResponse, error)
	// SyncBuffers brings the folder's clean buffers in line with the disk (after restores on disk).
	SyncBuffers func(ctx context.Context, folder string)
	// CanEdit says the editor takes workspace/applyEdit, ResourceOps which resource operations
	// ("create", "delete"), Metadata that it takes the edit's metadata member (LSP 3.18), and
	// SavesEdits that it saves what an undo's edit restored.
	CanEdit     bool
	ResourceOps []string
	Metadata    bool
	SavesEdits  bool
}

// Error is an undo that could not start; Invalid says the request was at fault (nothing to undo),
// else the state folder was.
type Error struct {
	Invalid bool
	msg     string
}

func (e *Error) Error() string { return e.msg }

// undoNote says what undoing a turn leaves as it is.
const undoNote = "Commands the turn ran, and files they changed outside patches, are not undone."

// Undoable lists a session's turns that can be undone, for hermes.status; never nil.
func Undoable(sess Session) []hermesproto.UndoableTurn {
	out := []hermesproto.UndoableTurn{}
	cps, _ := sess.Checkpoints()
	for _, cp := range cps {
		t := hermesproto.UndoableTurn{TurnID: cp.TurnID, StartedAt: cp.StartedAt, Files: []string{}}
		for _, f := range cp.Files {
			rel, _ := workspace.Rel(cp.Folder, f.Path)
			t.Files = append(t.Files, rel)
		}
		out = append(out, t)
	}
	return out
}

// Turn undoes the turn a names (its folder's last that changed files, when a names none) and
// returns what it did, with the message for the user.
func Turn(ctx context.Context, ed Editor, folder workspace.Folder, sess Session, a hermesproto.UndoTurnArgs) (hermesproto.UndoTurnResult, string, error) {
	cps, err := sess.Checkpoints()
	if err != nil {
		return hermesproto.UndoTurnResult{}, "", &Error{msg: fmt.Sprintf("read the checkpoints of %s: %v", folder.Name, err)}
	}
	i := 0
	if a.TurnID != "" {
		i = slices.IndexFunc(cps, func(cp agenthost.Checkpoint) bool { return cp.TurnID == a.TurnID })
	}
	if i < 0 || len(cps) == 0 {
		what := "no turn of " + folder.Name + " changed files with a patch (that hermes-lsp recorded)"
		if a.TurnID != "" {
			what = "turn " + a.TurnID + " of " + folder.Name + " cannot be undone: it changed no file with a patch, or is older than the last " + fmt.Sprint(agenthost.MaxCheckpoints)
		}
		return hermesproto.UndoTurnResult{}, "", &Error{Invalid: true, msg: "nothing to undo: " + what}
	}
	cp, err := sess.LoadCheckpoint(cps[i].TurnID)
	if err != nil {
		return hermesproto.UndoTurnResult{}, "", &Error{msg: fmt.Sprintf("read the checkpoint of turn %s in %s: %v", cps[i].TurnID, folder.Name, err)}
	}
	res := hermesproto.UndoTurnResult{TurnID: cp.TurnID, Restored: []string{}, Skipped: []hermesproto.SkippedFile{}}
	var todo []restoring
	for _, f := range cp.Files {
		rel, _ := workspace.Rel(folder.Path, f.Path)
		if f.Before.TooLarge || f.After.TooLarge {
			res.Skipped = append(res.Skipped, hermesproto.SkippedFile{Path: rel, Reason: fmt.Sprintf("over %d MiB or unreadable: not recorded", agenthost.MaxCheckpointFile>>20)})
			continue
		}
		// Where the file is now decides whether it may be touched at all: force never overrides it.
		if err := restorable(folder.Path, f.Path); err != nil {
			res.Skipped = append(res.Skipped, hermesproto.SkippedFile{Path: rel, Reason: err.Error()})
			continue
		}
		switch now := agenthost.ReadImage(ctx, folder.Path, f.Path); {
		case ed.Docs.Dirty(f.Path) && !a.Force:
			// Restoring would replace (through the editor) or contradict (on disk) what the user has
			// not saved yet.
			res.Skipped = append(res.Skipped, hermesproto.SkippedFile{Path: rel, Reason: "unsaved changes in your editor: save or revert them, or run hermes.undoTurn with force"})
		case !now.Equal(f.After) && !a.Force:
			res.Skipped = append(res.Skipped, hermesproto.SkippedFile{Path: rel, Reason: "changed since the turn: run hermes.undoTurn with force to restore it anyway"})
		case now.Equal(f.Before):
			res.Restored = append(res.Restored, rel) // already as it was
		default:
			todo = append(todo, restoring{f, now})
		}
	}
	var onDisk []string // restored on disk because the editor refused the edit
	for _, f := range ed.restore(ctx, folder.Path, todo) {
		rel, _ := workspace.Rel(folder.Path, f.path)
		switch {
		case f.err != nil:
			res.Skipped = append(res.Skipped, hermesproto.SkippedFile{Path: rel, Reason: f.err.Error()})
		case f.refused:
			onDisk = append(onDisk, rel)
			res.Restored = append(res.Restored, rel)
		default:
			res.Restored = append(res.Restored, rel)
		}
	}
	ed.SyncBuffers(ctx, folder.Path) // files restored on disk: clean buffers follow
	msg := fmt.Sprintf("Hermes undid %s in %s: %d file(s) restored", turnName(cp), folder.ShortName(), len(res.Restored))
	if unsaved := unsavedRestores(ctx, folder.Path, todo, res.Restored); !ed.SavesEdits && len(unsaved) > 0 {
		msg += fmt.Sprintf(" (%s restored in your editor but not yet on disk: save to keep the restore)", strings.Join(unsaved, ", "))
	}
	if len(onDisk) > 0 {
		msg += fmt.Sprintf(" (the editor refused the edit: %s restored on disk instead; reload it if your editor still shows the turn's text)", strings.Join(onDisk, ", "))
	}
	if len(res.Skipped) > 0 {
		msg += fmt.Sprintf(", %d left as they are (%s: %s)", len(res.Skipped), res.Skipped[0].Path, res.Skipped[0].Reason)
	}
	if len(res.Skipped) == 0 || a.Force {
		_ = sess.DropCheckpoint(cp.TurnID)
		switch err := sess.RevertThread(ctx, cp.ThreadID, cp.TurnID); {
		case errors.Is(err, agenthost.ErrUnsupported):
			// An ACP agent cannot forget a turn: the files are back, its memory of them is not.
			msg += ". The agent still remembers the turn (it cannot forget one): tell it in your next prompt that you undid it"
		case err != nil:
			msg += ". The model still remembers the turn: " + err.Error()
		}
	}
	return res, msg + ". " + undoNote, nil
}

// turnName names an undone turn for people: its title in quotes, else when it started.
func turnName(cp agenthost.Checkpoint) string {
	if cp.Title != "" {
		return fmt.Sprintf("%q", safetext.LineCut(cp.Title, 60))
	}
	return "the turn of " + annotate.When(cp.StartedAt, time.Now())
}

// unsavedRestores lists, relative to folder, the files of files that were restored (restored
// holds relative paths) but whose disk content is not yet what it was before the turn: the editor
// holds the restore in a buffer until the user saves it.
func unsavedRestores(ctx context.Context, folder string, files []restoring, restored []string) []string {
	var out []string
	for _, f := range files {
		rel, _ := workspace.Rel(folder, f.Path)
		if slices.Contains(restored, rel) && !agenthost.ReadImage(ctx, folder, f.Path).Equal(f.Before) {
			out = append(out, rel)
		}
	}
	return out
}

// restorable says why the file at path may not be restored, if it may not: it (or a folder above
// it) now resolves outside folder, or it is now a link or something other than a regular file. A
// file that is not there may be created.
func restorable(folder, path string) error {
	fi, err := workspace.Lstat(folder, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is now a link: not written through", filepath.Base(path))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is no longer a regular file", filepath.Base(path))
	}
	return nil
}

// restoring is a file to restore, with what it holds now.
type restoring struct {
	agenthost.FileCheckpoint
	now agenthost.FileImage
}

// restored is one file restore's outcome: refused says the editor refused the edit and the file
// was restored on disk instead.
type restored struct {
	path    string
	err     error
	refused bool
}

// restore puts files back as they were before their turn: through workspace/applyEdit when the
// editor takes it (and, for files to create or delete, the resource operations), else on disk. A
// file whose edit the editor refused (or failed on) is restored on disk: the person asked for the
// undo, and the message says where it happened.
func (ed Editor) restore(ctx context.Context, folder string, files []restoring) []restored {
	out := make([]restored, 0, len(files))
	for _, f := range files {
		if !ed.CanEdit || (f.Before.Absent && !slices.Contains(ed.ResourceOps, "delete")) || (f.now.Absent && !slices.Contains(ed.ResourceOps, "create")) {
			out = append(out, restored{path: f.Path, err: restoreOnDisk(folder, f.FileCheckpoint)})
			continue
		}
		err := ed.restoreByEdit(ctx, f)
		if err == nil {
			out = append(out, restored{path: f.Path})
			continue
		}
		if ctx.Err() != nil {
			out = append(out, restored{path: f.Path, err: err})
			continue
		}
		if derr := restoreOnDisk(folder, f.FileCheckpoint); derr != nil {
			out = append(out, restored{path: f.Path, err: fmt.Errorf("%v, and on disk: %v", err, derr)})
			continue
		}
		out = append(out, restored{path: f.Path, refused: true})
	}
	return out
}

// restoreByEdit asks the editor to put f back: delete a file the turn created, create one it
// deleted, or replace the text.
func (ed Editor) restoreByEdit(ctx context.Context, f restoring) error {
	u := uri.File(f.Path)
	var changes []any
	switch {
	case f.Before.Absent:
		changes = append(changes, map[string]any{"kind": "delete", "uri": u, "options": map[string]any{"ignoreIfNotExists": true}})
	default:
		// The edit replaces the whole text: the editor's when the file is open there (it may differ
		// from the disk's), else what the file holds now; a file that is not there is created first.
		var end protocol.Position
		if text, open := ed.Docs.Text(string(u)); open {
			end = textdoc.EndOf(text)
		} else if f.now.Absent {
			changes = append(changes, map[string]any{"kind": "create", "uri": u, "options": map[string]any{"ignoreIfExists": true}})
		} else {
			end = textdoc.EndOf(f.now.Content)
		}
		version, _ := ed.Docs.Version(string(u))
		changes = append(changes, map[string]any{
			"textDocument": map[string]any{"uri": u, "version": nullIfZero(version)},
			"edits":        []protocol.TextEdit{{Range: protocol.Range{End: end}, NewText: string(f.Before.Content)}},
		})
	}
	// isRefactoring (LSP 3.18 metadata) lets VS Code save the files the edit changes that were not
	// dirty before (files.refactoring.autoSave); other editors keep the revert in their buffers
	// until the user saves, as after a rename. It goes only to editors that declare metadataSupport:
	// eglot 1.9 refuses a whole edit over a member it does not know.
	params := map[string]any{
		"label": "Hermes: undo the turn",
		"edit":  map[string]any{"documentChanges": changes},
	}
	if ed.Metadata {
		params["metadata"] = map[string]any{"isRefactoring": true}
	}
	res, err := ed.ApplyEdit(ctx, params)
	if err != nil {
		return fmt.Errorf("the editor did not take the edit: %w", err)
	}
	if !res.Applied {
		return errors.New("the editor refused the edit: " + res.FailureReason)
	}
	return nil
}

// restoreOnDisk writes f's before-image (or removes a file the turn created) through the workspace
// boundary: inside folder, never through a link.
func restoreOnDisk(folder string, f agenthost.FileCheckpoint) error {
	if f.Before.Absent {
		return workspace.Remove(folder, f.Path)
	}
	return workspace.WriteFile(folder, f.Path, f.Before.Content, 0o644)
}

// nullIfZero is a document version for a versioned identifier: null when the editor does not have
// the document open.
func nullIfZero(v int32) any {
	if v == 0 {
		return nil
	}
	return v
}
