package changes

// This file keeps and reverts changes. Keeping forgets a change. Reverting puts back the text it
// replaced: the changes of one file in one edit, through workspace/applyEdit when the editor has the
// file open (on disk when it refuses and the buffer has no unsaved edits), else on disk; a change
// whose lines were edited since is left unless forced. The model is told of each revert before its
// next request (agenthost.Session.NoteRevert), and the newest checkpoint of the file records the
// file as the revert left it (agenthost.Session.ChangedByHand).

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// ErrNoChange is a keep or revert that names no change under review.
var ErrNoChange = errors.New("no such change under review: it may have been kept, reverted or undone (hermes.changes lists them)")

// Keep keeps the change id, or without one every change of folder: each stays as it is, and is
// under review no more. A change kept while its turn runs stays kept when the turn patches its file
// again. It returns how many changes it kept.
func (cs *Changes) Keep(ctx context.Context, id, folder string) (int, error) {
	if id == "" && folder == "" {
		return 0, errors.New("hermes.keepChange needs a changeId, or the uri of a file of the folder whose changes to keep")
	}
	cs.mu.Lock()
	removed, files, folders := cs.removeLocked("", func(c *Change) bool {
		return !c.busy && (id != "" && c.ID == id || id == "" && c.Folder == folder)
	})
	for _, c := range removed {
		if kept := cs.kept[c.run]; kept != nil { // its turn runs on
			kept[keyOf(c.Path, c.OldSum, c.NewSum)] = true
		}
	}
	cs.mu.Unlock()
	if id != "" && len(removed) == 0 {
		return 0, ErrNoChange
	}
	cs.after(ctx, files, folders)
	return len(removed), nil
}

// Undone forgets the changes of turnID on paths (hermes.undoTurn put those files back as they were
// before the turn); the other changes of those files find their lines again in the files as they
// are, when the editor does not have them open (an open one's move with the editor's edits).
func (cs *Changes) Undone(ctx context.Context, folder, turnID string, paths []string) {
	cs.mu.Lock()
	_, files, folders := cs.removeLocked(folder, func(c *Change) bool { return c.TurnID == turnID && slices.Contains(paths, c.Path) })
	var others []*Change
	for _, c := range cs.byFolder[folder] {
		if slices.Contains(paths, c.Path) {
			others = append(others, c)
		}
	}
	cs.mu.Unlock()
	for _, c := range others {
		if _, open := cs.cfg.Docs.Text(c.uri()); open {
			continue
		}
		if b, err := workspace.ReadFile(ctx, folder, c.Path, MaxFileBytes); err == nil {
			cs.mu.Lock()
			cs.cfg.Docs.RelocateMarks(string(b), c.start, c.end)
			cs.mu.Unlock()
			files[c.Path] = true
		}
	}
	cs.after(ctx, files, folders)
}

// reverting is one change being reverted: where its text is now in its file.
type reverting struct {
	c          *Change
	start, end int    // the bytes of its lines now
	line       uint32 // its first line now
	lines      int    // how many lines it has now
	undone     string // the text it takes out
}

// Revert reverts the change a names, or without one every change of the file at a.URI, and returns
// what it did with a message for the user.
func (cs *Changes) Revert(ctx context.Context, a hermesproto.RevertChangeArgs) (hermesproto.RevertChangeResult, string, error) {
	res := hermesproto.RevertChangeResult{Reverted: []string{}, Skipped: []hermesproto.SkippedChange{}}
	var path string
	if a.ChangeID == "" {
		p, err := workspace.PathFromURI(a.URI)
		if a.URI == "" || err != nil {
			return res, "", errors.New("hermes.revertChange needs a changeId, or the uri of a file whose changes to revert")
		}
		path = textdoc.Key(p)
	}
	skip := func(c *Change, reason string) {
		res.Skipped = append(res.Skipped, hermesproto.SkippedChange{ChangeID: c.ID, Reason: reason})
	}
	// Claim the changes: a second revert of them meanwhile finds them busy.
	cs.mu.Lock()
	var claimed []*Change
	for _, list := range cs.byFolder {
		for _, c := range list {
			if a.ChangeID != "" && c.ID == a.ChangeID || a.ChangeID == "" && textdoc.Key(c.Path) == path {
				if c.busy {
					skip(c, "it is being reverted already")
					continue
				}
				c.busy = true
				claimed = append(claimed, c)
			}
		}
	}
	cs.mu.Unlock()
	if len(claimed) == 0 {
		if len(res.Skipped) > 0 {
			return res, "Hermes: that change is being reverted already.", nil
		}
		if a.ChangeID != "" {
			return res, "", ErrNoChange
		}
		return res, "Hermes: no change under review in " + filepath.Base(path) + ".", nil
	}
	defer func() {
		cs.mu.Lock()
		for _, c := range claimed {
			c.busy = false
		}
		cs.mu.Unlock()
	}()
	f := fileOf(claimed[0])
	done, how, err := cs.revertFile(ctx, f, claimed, a.Force, skip)
	for _, r := range done {
		res.Reverted = append(res.Reverted, r.c.ID)
	}
	return res, revertMessage(f, len(done), how, err, res.Skipped), nil
}

// file is the file whose changes are reverted.
type file struct {
	folder, path, uri, name string
}

func fileOf(c *Change) file {
	return file{folder: c.Folder, path: c.Path, uri: c.uri(), name: filepath.Base(c.Path)}
}

// revertFile reverts the claimed changes of one file (those it may: skip says why not of the others)
// and returns those it reverted, with how: "editor" ("editor, saved" when the editor saves what the
// edit changed), "disk", or "disk instead" (the editor refused the edit).
func (cs *Changes) revertFile(ctx context.Context, f file, claimed []*Change, force bool, skip func(*Change, string)) ([]reverting, string, error) {
	if cs.cfg.Busy(f.folder) {
		for _, c := range claimed {
			skip(c, "a turn is running in "+filepath.Base(f.folder)+": revert once it ends, or stop it")
		}
		return nil, "", nil
	}
	buffer, open := cs.cfg.Docs.Text(f.uri)
	version, _ := cs.cfg.Docs.Version(f.uri)
	disk, diskErr := workspace.ReadFile(ctx, f.folder, f.path, MaxFileBytes)
	text := buffer
	if !open {
		if diskErr != nil {
			for _, c := range claimed {
				skip(c, "its file cannot be read: "+diskErr.Error())
			}
			return nil, "", nil
		}
		text = string(disk)
	}
	todo := cs.regions(newLines(text), claimed, force, skip)
	if len(todo) == 0 {
		return nil, "", nil
	}
	after := splice(text, todo)
	how := "disk"
	clean := diskErr == nil && string(disk) == text // what the editor shows is the disk's
	switch {
	case open && cs.cfg.Editor.Caps().ApplyEdit:
		how = "editor"
		if err := cs.applyEdit(ctx, f, version, text, todo); err != nil {
			if !clean || ctx.Err() != nil {
				return nil, "", err
			}
			how = "disk instead"
			if derr := workspace.WriteFile(f.folder, f.path, []byte(after), 0o644); derr != nil {
				return nil, "", fmt.Errorf("%v, and on disk: %w", err, derr)
			}
			cs.cfg.SyncBuffers(ctx, f.folder)
		} else if caps := cs.cfg.Editor.Caps(); caps.SavesUndoEdits || caps.EditMetadata {
			how = "editor, saved" // the editor saves what the edit changed
		}
	case open && !clean:
		for _, r := range todo {
			skip(r.c, "it has unsaved changes in your editor, which cannot take the server's edits: save them, then revert")
		}
		return nil, "", nil
	default:
		if err := workspace.WriteFile(f.folder, f.path, []byte(after), 0o644); err != nil {
			return nil, "", err
		}
		if open {
			cs.cfg.SyncBuffers(ctx, f.folder)
		} else {
			cs.followDisk(f.uri, text, todo)
		}
	}
	var was, now string
	if clean {
		was, now = string(disk), after
	}
	cs.reverted(context.WithoutCancel(ctx), f, todo, clean, was, now) // done: it is published whatever the request's fate
	return todo, how, nil
}

// regions finds where each claimed change's text is in l and whether it may be reverted: placed,
// its old text kept, its lines as the patch wrote them (unless force), no overlap with another.
// They come back last first, so that each edit's bytes hold in the text before it.
func (cs *Changes) regions(l lines, claimed []*Change, force bool, skip func(*Change, string)) []reverting {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var todo []reverting
	for _, c := range claimed {
		s, n, ok := c.span()
		switch {
		case !ok:
			skip(c, "the editor's buffer does not show Hermes's change yet (it has unsaved changes, or was not reloaded): reload the file, then revert")
			continue
		case c.OldCut:
			skip(c, fmt.Sprintf("the text it replaced is over %d KiB and was not kept: undo its turn with hermes.undoTurn", maxOldBytes>>10))
			continue
		}
		if (!cs.at(c, l, s) || n != c.Added) && !force {
			skip(c, "you edited these lines since Hermes changed them: revert with force to put back what was there anyway")
			continue
		}
		start, end, ok := l.region(s, n)
		if !ok {
			skip(c, "its lines are past the end of the file")
			continue
		}
		todo = append(todo, reverting{c: c, start: start, end: end, line: s, lines: n, undone: l.text[start:end]})
	}
	slices.SortFunc(todo, func(a, b reverting) int { return b.start - a.start })
	kept := todo[:0]
	for i, r := range todo {
		if i > 0 && r.end > kept[len(kept)-1].start {
			skip(r.c, "it overlaps another change reverted with it")
			continue
		}
		kept = append(kept, r)
	}
	return kept
}

// splice puts back the old text of each of todo (last first) in text.
func splice(text string, todo []reverting) string {
	for _, r := range todo {
		if r.end > len(text) {
			return text
		}
		text = text[:r.start] + r.c.Old + text[r.end:]
	}
	return text
}

// followDisk moves the marks of a file the editor does not have open as the revert moved its lines.
func (cs *Changes) followDisk(docURI, text string, todo []reverting) {
	for _, r := range todo { // last first: each edit's bytes hold in the text before it
		cs.cfg.Docs.FollowDiskEdit(docURI, text, r.start, r.end, r.c.Old)
		text = text[:r.start] + r.c.Old + text[r.end:]
	}
}

// applyEdit asks the editor to put back the old texts of todo in its buffer of f, one edit.
func (cs *Changes) applyEdit(ctx context.Context, f file, version int32, text string, todo []reverting) error {
	l := newLines(text)
	var edits []protocol.TextEdit
	for _, r := range slices.Backward(todo) {
		rng := protocol.Range{Start: protocol.Position{Line: r.line}, End: protocol.Position{Line: r.line + uint32(r.lines)}}
		if int(r.line)+r.lines >= l.count() {
			rng.End = textdoc.EndOf(text)
		}
		edits = append(edits, protocol.TextEdit{Range: rng, NewText: r.c.Old})
	}
	var id any = version
	if version == 0 {
		id = nil
	}
	params := map[string]any{
		"label": fmt.Sprintf("Hermes: revert %d change(s) in %s", len(todo), f.name),
		"edit": map[string]any{"documentChanges": []any{map[string]any{
			"textDocument": map[string]any{"uri": uri.File(f.path), "version": id},
			"edits":        edits,
		}}},
	}
	if cs.cfg.Editor.Caps().EditMetadata {
		params["metadata"] = map[string]any{"isRefactoring": true} // VS Code saves it (files.refactoring.autoSave)
	}
	res, err := cs.cfg.Editor.ApplyEdit(ctx, params)
	if err != nil {
		return fmt.Errorf("the editor did not take the edit: %w", err)
	}
	if !res.Applied {
		return errors.New("the editor refused the edit: " + res.FailureReason)
	}
	return nil
}

// reverted ends the reverts of todo in f: the changes go, the model is told of each, and, when the
// disk held what the revert changed (clean), the newest checkpoint of the file records it.
func (cs *Changes) reverted(ctx context.Context, f file, todo []reverting, clean bool, was, now string) {
	cs.mu.Lock()
	gone := map[*Change]bool{}
	for _, r := range todo {
		gone[r.c] = true
	}
	_, files, folders := cs.removeLocked(f.folder, func(c *Change) bool { return gone[c] })
	cs.mu.Unlock()
	sess, err := cs.cfg.Session(f.folder)
	if err == nil {
		for _, r := range slices.Backward(todo) {
			err = errors.Join(err, sess.NoteRevert(agenthost.RevertNote{
				ThreadID: r.c.ThreadID, TurnID: r.c.TurnID, Path: f.path, Line: int(r.line) + 1,
				Added: r.c.Added, Removed: r.c.Removed, Restored: r.c.Old, Undone: r.undone,
			}))
		}
		if clean {
			_, cerr := sess.ChangedByHand(f.path, []byte(was), []byte(now))
			err = errors.Join(err, cerr)
		}
	}
	if err != nil {
		cs.cfg.Log.Warn("a revert was not told to the model, or its turn's checkpoint not updated", "path", f.path, "err", err)
	}
	cs.after(ctx, files, folders)
}

// revertMessage says what a revert did, for the user.
func revertMessage(f file, n int, how string, err error, skipped []hermesproto.SkippedChange) string {
	var b strings.Builder
	switch {
	case err != nil:
		fmt.Fprintf(&b, "Hermes could not revert the change(s) in %s: %v", f.name, err)
	case n > 0:
		fmt.Fprintf(&b, "Hermes reverted %d change(s) in %s", n, f.name)
		switch how {
		case "editor":
			b.WriteString(" in your editor (save the file to keep the revert on disk)")
		case "editor, saved":
			b.WriteString(" in your editor")
		case "disk instead":
			b.WriteString(" on disk, since the editor refused the edit (reload it if your editor still shows the change)")
		}
		b.WriteString("; the agent is told before its next turn")
	default:
		fmt.Fprintf(&b, "Hermes reverted nothing in %s", f.name)
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, ". %d change(s) left as they are: %s", len(skipped), skipped[0].Reason)
	}
	return b.String() + "."
}
