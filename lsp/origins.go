package lsp

// This file is where turns were asked: each turn started (or steered) from a line of a document —
// a `hermes:` instruction, a selection, a diagnostic — keeps that line as a mark (marks.go), so
// that hover and inlay hints can show the turn there.

import (
	"sync"

	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
)

// maxOrigins bounds the origins kept across all documents; the oldest go first.
const maxOrigins = 500

// origin is a line a turn was asked from.
type origin struct {
	key  string // the document's key (documentKey)
	mark *textdoc.Mark
	rec  *turnRecord
}

// originSet holds the origins of the connection's turns.
type originSet struct {
	mu   sync.Mutex
	list []origin // oldest first
}

// add records that rec was asked from mark's line of the document at uri.
func (o *originSet) add(uri string, mark *textdoc.Mark, rec *turnRecord) {
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

// at returns the newest turn asked from line of the document at uri, or nil.
func (o *originSet) at(uri string, line uint32) *turnRecord {
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

// originLine is a line of a document with the newest turn asked from it.
type originLine struct {
	line uint32
	rec  *turnRecord
}

// in returns the lines of the document at uri that turns were asked from, each once (its newest
// turn).
func (o *originSet) in(uri string) []originLine {
	key := textdoc.Key(uri)
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []originLine
	seen := make(map[uint32]bool)
	for i := len(o.list) - 1; i >= 0; i-- {
		or := o.list[i]
		if or.key != key {
			continue
		}
		if l, ok := or.mark.Line(); ok && !seen[l] {
			seen[l] = true
			out = append(out, originLine{line: l, rec: or.rec})
		}
	}
	return out
}

// has reports whether any origin shows rec.
func (o *originSet) has(rec *turnRecord) bool {
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

// where returns the document key and line of rec's newest live origin.
func (o *originSet) where(rec *turnRecord) (key string, line uint32, ok bool) {
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
