package agenthost

// This file is the session's side of the changes under review (lsp/changes): what a completed
// patch did to each file (for the editor to show it hunk by hunk), the reverts the user made of
// them, told to the model before the next request on the change's thread, and the checkpoint of
// the last turn that changed a reverted file, brought in line so that hermes.undoTurn stays right.

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Bounds of the revert notes: what the model is told of each revert, how many reverts wait to be
// told (the oldest go first), and the whole note a turn's input carries.
const (
	maxNoteText    = 2 << 10
	maxRevertNotes = 20
	maxNoteBytes   = 16 << 10
)

// RevertNote is a change of the agent's patches that the user reverted: the model is told of it
// before its next request on the change's thread ([Session.NoteRevert]).
type RevertNote struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	// Path is the file, absolute (inside the session's folder).
	Path string `json:"path"`
	// Line is the first line (1-based) of the change's place in the file now.
	Line int `json:"line"`
	// Added and Removed are the change's line counts: the lines the agent wrote (now gone) and the
	// lines it had replaced (now back).
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Restored is the text that is back; Undone the agent's text that went. Both are the file's
	// text, cut and cleaned when the note is written.
	Restored string `json:"restored"`
	Undone   string `json:"undone"`
}

// patchImages fills in each file of changes, the completed patch itemID of t, with its content before
// t first changed it and as this patch left it (kept when the patch completed: t's checkpoint may
// have moved on to a later patch by the time the runner gets here): only for files updated in place that existed
// before and after, inside the folder and within MaxCheckpointFile. The images' contents are never
// written after they are read, so the event may share them.
func (s *Session) patchImages(t *turn, itemID string, changes []hermesproto.FileChange) {
	_ = s.call(func(st *sessionState) {
		ts := st.turnOf(t)
		if ts == nil {
			return
		}
		files := ts.patched[itemID]
		delete(ts.patched, itemID)
		for i := range changes {
			c := &changes[i]
			if c.Kind.Type != "update" || c.Kind.MovePath != "" {
				continue
			}
			j := slices.IndexFunc(files, func(f FileCheckpoint) bool { return f.Path == c.Path })
			if j < 0 {
				continue
			}
			f := files[j]
			if !whole(f.Before) || !whole(f.After) {
				continue
			}
			c.Before, c.After = nonNil(f.Before.Content), nonNil(f.After.Content)
		}
	})
}

// keepPatched keeps, for the completed patch itemID, its files before the turn's first patch of them
// (the checkpoint's Before) and as it left them (images), for patchImages. On the session's
// goroutine.
func (ts *turnSession) keepPatched(itemID string, images map[string]FileImage) {
	if ts.patched == nil || len(ts.patched) > 256 {
		ts.patched = make(map[string][]FileCheckpoint) // the runner takes each at once: old ones are dead
	}
	var files []FileCheckpoint
	for _, f := range ts.checkpoint.Files {
		if img, ok := images[f.Path]; ok {
			files = append(files, FileCheckpoint{Path: f.Path, Before: f.Before, After: img})
		}
	}
	ts.patched[itemID] = files
}

// whole reports whether img holds a file's content.
func whole(img FileImage) bool { return !img.Absent && !img.TooLarge }

// nonNil is b, or an empty slice for an empty file: nil says there is no content.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// NoteRevert records that the user reverted a change of the agent's: the next turn on the note's
// thread tells the model (its input starts with a note that says which file and lines, and what is
// there again), so that it never takes its change to be in place. The note survives a restart; at
// most maxRevertNotes wait, the oldest dropped first.
func (s *Session) NoteRevert(n RevertNote) error {
	if n.ThreadID == "" {
		return nil // a turn with no thread was never seen by a model
	}
	return s.call(func(st *sessionState) {
		st.notes = append(st.notes, n)
		if over := len(st.notes) - maxRevertNotes; over > 0 {
			st.notes = slices.Delete(st.notes, 0, over)
		}
		s.save(st)
	})
}

// takeNotes returns the notes waiting for threadID and forgets them (staged for the state file).
// On the session's goroutine.
func (s *Session) takeNotes(st *sessionState, threadID string) []RevertNote {
	if threadID == "" || len(st.notes) == 0 {
		return nil
	}
	var taken []RevertNote
	st.notes = slices.DeleteFunc(st.notes, func(n RevertNote) bool {
		if n.ThreadID == threadID {
			taken = append(taken, n)
			return true
		}
		return false
	})
	if len(taken) > 0 {
		s.save(st)
	}
	return taken
}

// giveBackNotes puts back the notes of a turn that never reached the model (codex did not start
// it). On the session's goroutine.
func (s *Session) giveBackNotes(st *sessionState, notes []RevertNote) {
	if len(notes) == 0 {
		return
	}
	st.notes = append(slices.Clone(notes), st.notes...)
	if over := len(st.notes) - maxRevertNotes; over > 0 {
		st.notes = slices.Delete(st.notes, 0, over)
	}
	s.save(st)
}

// dropNotes forgets the notes about turnID's changes (the turn was undone: the model forgets it).
func (s *Session) dropNotes(turnID string) {
	_ = s.call(func(st *sessionState) {
		n := len(st.notes)
		st.notes = slices.DeleteFunc(st.notes, func(r RevertNote) bool { return r.TurnID == turnID })
		if len(st.notes) != n {
			s.save(st)
		}
	})
}

// notesText is the note a turn's input starts with: the reverts of notes in words, each file's text
// cleaned of control characters and cut, the whole bounded. It is the host's text, not the user's
// nor the agent's: it says so, and asks nothing. Empty when there are no notes.
func notesText(folder string, notes []RevertNote) string {
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[hermes-lsp] A note from the editor, not from the user, and no instruction: since your last turn the user " +
		"reverted changes you had made, so the files no longer hold them. Read a file again before you change it.\n")
	for i, n := range notes {
		entry := noteEntry(folder, n)
		if b.Len()+len(entry) > maxNoteBytes {
			fmt.Fprintf(&b, "\n- and %d more reverted change(s), not shown.\n", len(notes)-i)
			break
		}
		b.WriteString(entry)
	}
	return b.String()
}

// noteEntry is one revert in words: where, what went and what is back.
func noteEntry(folder string, n RevertNote) string {
	path := n.Path
	if rel, inside := workspace.Rel(folder, n.Path); inside {
		path = filepath.ToSlash(rel)
	}
	path = MarkdownCode(safetext.LineCut(path, 300))
	restored := safetext.CutBytes(safetext.Clean(n.Restored), maxNoteText)
	undone := safetext.CutBytes(safetext.Clean(n.Undone), maxNoteText)
	lines := func(first, count int) string {
		if count <= 1 {
			return fmt.Sprintf("line %d", first)
		}
		return fmt.Sprintf("lines %d-%d", first, first+count-1)
	}
	switch {
	case n.Removed == 0:
		return fmt.Sprintf("\n- %s: the %d line(s) you added at line %d are gone again:\n%s", path, n.Added, n.Line, fence(undone, ""))
	case n.Added == 0:
		return fmt.Sprintf("\n- %s: the %d line(s) you deleted are back, at %s:\n%s", path, n.Removed, lines(n.Line, n.Removed), fence(restored, ""))
	}
	return fmt.Sprintf("\n- %s %s: your change (+%d −%d) is reverted; they read again:\n%sinstead of what you wrote:\n%s",
		path, lines(n.Line, n.Removed), n.Added, n.Removed, fence(restored, ""), fence(undone, ""))
}

// withNotes is in's prompt after its notes, for a provider that takes one text (a chat fallback).
func withNotes(folder string, in Input) string {
	if note := notesText(folder, in.notes); note != "" {
		return note + "\n" + in.Prompt
	}
	return in.Prompt
}
