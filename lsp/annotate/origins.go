package annotate

// This file is where turns were asked: each turn started (or steered) from a line of a document —
// a `hermes:` instruction, a selection, a diagnostic — keeps that line as a mark (lsp/textdoc), so
// that hover and inlay hints can show the turn there.

import (
	"sync"

	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
)

// maxOrigins bounds the origins kept across all documents; the oldest go first.
const maxOrigins = 500

// origin is a line a turn was asked from.
type origin struct {
	key  string // the document's key (textdoc.Key)
	mark *textdoc.Mark
	rec  *Record
}

// Origins holds the origins of the connection's turns.
type Origins struct {
	mu   sync.Mutex
	list []origin // oldest first
}

// Add records that rec was asked from mark's line of the document at uri.
func (o *Origins) Add(uri string, mark *textdoc.Mark, rec *Record) {
	o.mu.Lock()
	defer o.mu.Unlock()
	live := o.list[:0]
	for _, or := range o.list {
		if _, ok := or.mark.Line(); ok {
			live = append(live, or)
		}
	}
	if len(live) >= maxOrigins {
		live[0].mark.Drop()
		live = live[1:]
	}
	o.list = append(live, origin{key: textdoc.Key(uri), mark: mark, rec: rec})
}

// At returns the newest turn asked from line of the document at uri, or nil.
func (o *Origins) At(uri string, line uint32) *Record {
	key := textdoc.Key(uri)
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.list) - 1; i >= 0; i-- {
		if or := o.list[i]; or.key == key {
			if l, ok := or.mark.Line(); ok && l == line {
				return or.rec
			}
		}
	}
	return nil
}

// OriginLine is a line of a document with the newest turn asked from it.
type OriginLine struct {
	Line uint32
	Rec  *Record
}

// In returns the lines of the document at uri that turns were asked from, each once (its newest
// turn).
func (o *Origins) In(uri string) []OriginLine {
	key := textdoc.Key(uri)
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []OriginLine
	seen := make(map[uint32]bool)
	for i := len(o.list) - 1; i >= 0; i-- {
		or := o.list[i]
		if or.key != key {
			continue
		}
		if l, ok := or.mark.Line(); ok && !seen[l] {
			seen[l] = true
			out = append(out, OriginLine{Line: l, Rec: or.rec})
		}
	}
	return out
}

// Has reports whether any origin shows rec.
func (o *Origins) Has(rec *Record) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, or := range o.list {
		if or.rec == rec {
			_, ok := or.mark.Line()
			return ok
		}
	}
	return false
}

// Where returns the document key and line of rec's newest live origin.
func (o *Origins) Where(rec *Record) (key string, line uint32, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.list) - 1; i >= 0; i-- {
		if or := o.list[i]; or.rec == rec {
			if l, live := or.mark.Line(); live {
				return or.key, l, true
			}
		}
	}
	return "", 0, false
}
