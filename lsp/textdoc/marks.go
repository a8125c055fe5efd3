package textdoc

// This file is the documents' line marks: lines the server points at (where a turn was asked, a
// review finding) that move with the editor's edits and die with their line.

import (
	"strings"
)

// maxMarksPerDocument bounds a document's marks; the oldest die first. The features that mark lines
// bound their own marks of a file below it: review findings (two marks each, 50 on a file), the
// changes under review (two each, 50 on a file), and the lines turns were asked from.
const maxMarksPerDocument = 400

// A Mark is a line of a document that follows its edits: lines inserted or deleted above move it,
// and it dies when its line's text is deleted or replaced whole. A whole-document change, or the
// document opened again, finds the line again by its text (the nearest line with the same text),
// else the mark dies. Marks outlive a document's close; a file that is not open has marks that
// stay where they were put.
type Mark struct {
	d     *Documents
	line  uint32
	text  string // the line's text, to find it again after a whole-document change
	known bool   // text is the line's text ("" is a blank line); false once an edit changed it
	dead  bool
}

// Line returns the mark's line now, with false once it died.
func (m *Mark) Line() (uint32, bool) {
	m.d.mu.Lock()
	defer m.d.mu.Unlock()
	return m.line, !m.dead
}

// Text returns the text of the mark's line as last seen: "" when unknown.
func (m *Mark) Text() string {
	m.d.mu.Lock()
	defer m.d.mu.Unlock()
	if !m.known {
		return ""
	}
	return m.text
}

// Drop kills the mark: its owner no longer needs it.
func (m *Mark) Drop() {
	m.d.mu.Lock()
	defer m.d.mu.Unlock()
	m.dead = true
}

// Mark puts a mark on line of the document at uri (open or not; text is the line's text, used when
// the document is not open).
func (d *Documents) Mark(uri string, line uint32, text string) *Mark {
	k := Key(uri)
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc, ok := d.docs[k]; ok {
		if t, ok := doc.text.line(line); ok {
			text = t
		}
	}
	m := &Mark{d: d, line: line, text: text, known: true}
	if d.marks == nil {
		d.marks = make(map[string][]*Mark)
	}
	live := d.marks[k][:0]
	for _, old := range d.marks[k] {
		if !old.dead {
			live = append(live, old)
		}
	}
	if len(live) >= maxMarksPerDocument {
		live[0].dead = true
		live = live[1:]
	}
	d.marks[k] = append(live, m)
	return m
}

// FollowDiskEdit moves the marks of the document at uri, when the editor does not have it open, for
// an edit the server made on disk: the bytes start to end of text (the file before the edit)
// replaced by newText. Marks move as for the editor's own edit (didChange); an open document's
// marks wait for the editor's didChange instead.
func (d *Documents) FollowDiskEdit(uri, text string, start, end int, newText string) {
	k := Key(uri)
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, open := d.docs[k]; open || start < 0 || end < start || end > len(text) {
		return
	}
	before := newRope(text)
	d.moveMarksLocked(k, before, start, end, newText)
	before.replace(start, end, newText)
	d.refreshMarkTextsLocked(k, before)
}

// RelocateMarks finds marks, of a document the editor does not have open, again in text (its file
// as it is now, changed by someone else than the editor): each at the nearest line with its text,
// else it dies, as when the document is opened.
func (d *Documents) RelocateMarks(text string, marks ...*Mark) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range marks {
		if m == nil || m.dead {
			continue
		}
		if !m.known {
			m.dead = true
			continue
		}
		best, found := nearestLine(text, m.text, int(m.line))
		m.line, m.dead = uint32(best), !found
	}
}

// moveMarksLocked moves the marks of key for one ranged change: the bytes from start to end of
// text (the document before the change) replaced by newText.
func (d *Documents) moveMarksLocked(key string, text *rope, start, end int, newText string) {
	marks := d.marks[key]
	if len(marks) == 0 {
		return
	}
	startLine := text.lineOf(start)
	removed := text.lineOf(end) - startLine
	added := uint32(lineBreaks(newText))
	for _, m := range marks {
		if m.dead {
			continue
		}
		ls, le, _, ok := text.lineBounds(m.line)
		switch {
		case !ok:
			// The document is shorter than the mark (a file changed while closed): leave it.
		case end <= ls && !(start == end && start == le):
			// Before the line's text (an insertion at the line's start pushes it down).
			m.line = m.line + added - removed
			if end == ls {
				m.forget() // what was inserted without a line break joined its head
			}
		case start >= le:
			// After the line's text (its end, or a later line): it stays.
			if start == le {
				m.forget() // text appended to it
			}
		case start <= ls && end >= le:
			// The line's text is replaced: it lives on if the new text has it (an edit that
			// replaces the whole document, as undo and editors without reload send it).
			if i, ok := nearestLine(newText, m.text, int(m.line-startLine)); ok && m.known {
				m.line = startLine + uint32(i)
			} else {
				m.dead = true
			}
		case start <= ls:
			// Its head is replaced: what is left of it follows the new text.
			m.line = startLine + added
			m.forget()
		default:
			m.forget() // edited inside: the line stays, its text is refreshed after the change
		}
	}
}

// relocateMarksLocked finds each live mark of key again in text (after a whole-document change or
// a reopen): the nearest line whose text is the mark's, else it dies.
func (d *Documents) relocateMarksLocked(key, text string) {
	for _, m := range d.marks[key] {
		if m.dead {
			continue
		}
		if !m.known {
			m.dead = true
			continue
		}
		best, found := nearestLine(text, m.text, int(m.line))
		m.line, m.dead = uint32(best), !found
	}
}

// nearestLine finds the line of text equal to want nearest to line near (zero-based, within text).
func nearestLine(text, want string, near int) (int, bool) {
	best, found := 0, false
	line := 0
	for rest := text; ; line++ {
		i := strings.IndexAny(rest, "\r\n")
		cur := rest
		if i >= 0 {
			cur = rest[:i]
		}
		if cur == want && (!found || abs(line-near) < abs(best-near)) {
			best, found = line, true
		}
		if i < 0 {
			return best, found
		}
		next := i + 1
		if rest[i] == '\r' && next < len(rest) && rest[next] == '\n' {
			next++
		}
		rest = rest[next:]
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// refreshMarkTextsLocked records the current text of key's marks whose text an edit changed.
func (d *Documents) refreshMarkTextsLocked(key string, text *rope) {
	for _, m := range d.marks[key] {
		if m.dead || m.known {
			continue
		}
		if t, ok := text.line(m.line); ok {
			m.text, m.known = t, true
		}
	}
}

// forget says the mark's line was edited: its text is read again after the change.
func (m *Mark) forget() {
	m.text, m.known = "", false
}

// lineBreaks counts the line breaks in s: "\n", "\r\n" and a lone "\r" each count once.
func lineBreaks(s string) int {
	return strings.Count(s, "\n") + strings.Count(s, "\r") - strings.Count(s, "\r\n")
}
