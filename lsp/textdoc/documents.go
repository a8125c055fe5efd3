// Package textdoc holds the documents open in the editor: their text as the editor has it (a rope,
// kept in step with didOpen, didChange and didClose), what the disk held when the editor last had
// it, and marks that follow a line through the editor's edits. Positions are LSP's: zero-based lines
// and UTF-16 code units.
package textdoc

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Documents holds the text of the documents open in the editor, as the editor has it (unsaved
// edits included), kept up to date from didOpen, didChange and didClose. It is safe for concurrent
// use; the zero value is empty and ready.
//
// Documents are keyed by their cleaned filesystem path when the URI is a file URI (so
// file:///c%3A/x and file:///C:/x are one document) and by the URI string otherwise (untitled:).
// Positions are LSP positions: zero-based lines and UTF-16 code units within a line. A line ends
// at "\n", "\r\n" or "\r"; the text of a line never includes its line break.
type Documents struct {
	mu    sync.Mutex // a plain mutex: reading a rope may join it (its cached text)
	docs  map[string]*document
	marks map[string][]*Mark // by document key; see marks.go
}

// document is one open document.
type document struct {
	version int32
	text    *rope
	saved   string // the file's content as the editor last had it on disk: at open, save, or a reload
	uri     string
}

// NewDocuments returns an empty set of documents.
func NewDocuments() *Documents { return &Documents{} }

// Key is the map key of uri: its cleaned path when it is a usable file URI, else uri.
func Key(uri string) string {
	if p, err := workspace.PathFromURI(uri); err == nil {
		return p
	}
	return uri
}

// Open records a document the editor opened (didOpen), replacing one already open under the same
// key.
func (d *Documents) Open(uri string, version int32, text string) {
	k := Key(uri)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.docs == nil {
		d.docs = map[string]*document{}
	}
	d.docs[k] = &document{version: version, text: newRope(text), saved: text, uri: uri}
	d.relocateMarksLocked(k, text) // the file may have changed while it was closed
}

// Saved records a save (didSave): text is what was written when the editor sent it, else the
// document's text is.
func (d *Documents) Saved(uri string, text *string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc, ok := d.docs[Key(uri)]; ok {
		doc.saved = doc.text.String()
		if text != nil {
			doc.saved = *text
		}
	}
}

// Dirty reports whether the open document at path has unsaved edits in the editor.
func (d *Documents) Dirty(path string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[Key(path)]
	return ok && doc.text.String() != doc.saved
}

// OpenFile is an open document that is a file.
type OpenFile struct {
	URI, Path   string
	Text, Saved string
	Version     int32
}

// OpenFiles returns the open documents that are files under dir.
func (d *Documents) OpenFiles(dir string) []OpenFile {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []OpenFile
	for k, doc := range d.docs {
		if _, inside := workspace.Rel(dir, k); !inside {
			continue
		}
		out = append(out, OpenFile{URI: doc.uri, Path: k, Text: doc.text.String(), Saved: doc.saved, Version: doc.version})
	}
	slices.SortFunc(out, func(a, b OpenFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// URIs returns the URIs of the open documents.
func (d *Documents) URIs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, 0, len(d.docs))
	for _, doc := range d.docs {
		out = append(out, doc.uri)
	}
	return out
}

// Reloaded records that the file of the open document at path now holds disk on disk, and that
// the editor's text follows it (the editor reloads it, or the server sent it as an edit).
func (d *Documents) Reloaded(path, disk string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc, ok := d.docs[Key(path)]; ok {
		doc.saved = disk
	}
}

// Change applies a didChange notification's content changes in order and records version.
//
// A change with a nil Range replaces the whole text. Positions are clamped as the LSP
// specification says: a character past the end of its line means the end of the line, a line past
// the last line means the end of the document, and a character inside a surrogate pair means the
// start of that character. A range whose end comes before its start, or a change to a document
// that is not open, is an error; the changes are then applied not at all (never half), and the
// document keeps its last good text and version.
func (d *Documents) Change(uri string, version int32, changes []ContentChange) error {
	k := Key(uri)
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[k]
	if !ok {
		return fmt.Errorf("cannot apply a change to %s: the document is not open (no didOpen was received for it)", uri)
	}
	for i, c := range changes {
		if r := c.Range; r != nil && before(r.End, r.Start) {
			return fmt.Errorf("change %d of %d to %s (version %d) has a range that ends at %s, before it starts at %s (zero-based line:character); none of the changes were applied and the document stays at version %d",
				i+1, len(changes), uri, version, fmtPos(r.End), fmtPos(r.Start), doc.version)
		}
	}
	text := doc.text
	for _, c := range changes {
		if c.Range == nil {
			d.refreshMarkTextsLocked(k, text)
			text = newRope(c.Text)
			d.relocateMarksLocked(k, c.Text)
			continue
		}
		start, end := text.offset(c.Range.Start), text.offset(c.Range.End)
		d.moveMarksLocked(k, text, start, end, c.Text)
		text.replace(start, end, c.Text)
	}
	d.refreshMarkTextsLocked(k, text)
	doc.text, doc.version = text, version
	return nil
}

// Close forgets a document the editor closed (didClose). Closing a document that is not open does
// nothing.
func (d *Documents) Close(uri string) {
	k := Key(uri)
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.docs, k)
}

// with runs f on the open document with uri's key, under the lock; ok is false when it is not open.
func (d *Documents) with(uri string, f func(doc *document)) (ok bool) {
	k := Key(uri)
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[k]
	if ok {
		f(doc)
	}
	return ok
}

// LastLine returns the last line of the open document at uri, with false when it is not open.
func (d *Documents) LastLine(uri string) (uint32, bool) {
	var n uint32
	ok := d.with(uri, func(doc *document) { n = doc.text.lineOf(doc.text.size) })
	return n, ok
}

// Text returns the whole text of an open document, with false if it is not open.
func (d *Documents) Text(uri string) (text string, ok bool) {
	ok = d.with(uri, func(doc *document) { text = doc.text.String() })
	return text, ok
}

// Size returns the length in bytes of an open document, with false if it is not open.
func (d *Documents) Size(uri string) (n int, ok bool) {
	ok = d.with(uri, func(doc *document) { n = doc.text.size })
	return n, ok
}

// Version returns the version of an open document, with false if it is not open.
func (d *Documents) Version(uri string) (v int32, ok bool) {
	ok = d.with(uri, func(doc *document) { v = doc.version })
	return v, ok
}

// Line returns the text of one line (zero-based, without its line break). ok is false when the
// document is not open or has no such line. A document ending in a line break has an empty last
// line after it.
func (d *Documents) Line(uri string, line uint32) (text string, ok bool) {
	found := false
	d.with(uri, func(doc *document) { text, found = doc.text.line(line) })
	return text, found
}

// Lines returns the text of the lines startLine through endLine (zero-based, inclusive) as the
// editor's buffer has them: the line breaks between them kept as they are, the last line's own
// line break left off. An endLine past the last line means the last line, and a reversed pair is
// swapped. ok is false when the document is not open or startLine is past its last line.
func (d *Documents) Lines(uri string, startLine, endLine uint32) (text string, ok bool) {
	if endLine < startLine {
		startLine, endLine = endLine, startLine
	}
	d.with(uri, func(doc *document) {
		start, _, _, found := doc.text.lineBounds(startLine)
		if !found {
			return
		}
		_, end, _, found := doc.text.lineBounds(endLine)
		if !found {
			end = doc.text.size // clamp to the end of the last line
		}
		text, ok = doc.text.slice(start, end), true
	})
	return text, ok
}

// Range returns the text in r of an open document, positions clamped as [Documents.Change]
// clamps them and a reversed range taken in order. ok is false when the document is not open.
func (d *Documents) Range(uri string, r protocol.Range) (text string, ok bool) {
	if before(r.End, r.Start) {
		r.Start, r.End = r.End, r.Start
	}
	ok = d.with(uri, func(doc *document) { text = doc.text.slice(doc.text.offset(r.Start), doc.text.offset(r.End)) })
	return text, ok
}

// lineBounds finds line in text: the byte offsets of its first byte, of its end (its line break,
// or the end of text) and of the next line's first byte. ok is false when text has no such line.
func lineBounds(text string, line uint32) (start, end, next int, ok bool) {
	for l := uint32(0); ; l++ {
		i := strings.IndexAny(text[start:], "\r\n")
		if i < 0 {
			end, next = len(text), len(text)
		} else {
			end = start + i
			next = end + 1
			if text[end] == '\r' && next < len(text) && text[next] == '\n' {
				next++
			}
		}
		if l == line {
			return start, end, next, true
		}
		if i < 0 {
			return len(text), len(text), len(text), false
		}
		start = next
	}
}

// offset returns the byte offset in text of the LSP position pos, clamped: a line past the last
// is the end of text, a character past the end of its line is the end of the line, and a
// character inside a surrogate pair is the start of that character. Invalid UTF-8 bytes count as
// one UTF-16 unit each, as the editor's U+FFFD would.
func offset(text string, pos protocol.Position) int {
	start, end, _, ok := lineBounds(text, pos.Line)
	if !ok {
		return len(text)
	}
	off, units := start, pos.Character
	for off < end && units > 0 {
		r, size := utf8.DecodeRuneInString(text[off:end])
		n := uint32(1)
		if utf16.RuneLen(r) == 2 {
			n = 2
		}
		if n > units {
			break // inside a surrogate pair
		}
		units -= n
		off += size
	}
	return off
}

// before reports whether position a comes before position b.
func before(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// fmtPos formats a position for an error message as line:character, zero-based as LSP counts.
func fmtPos(p protocol.Position) string {
	return fmt.Sprintf("%d:%d", p.Line, p.Character)
}
