package textdoc

// This file holds the position arithmetic and the didChange types the server's features share.

import (
	"unicode/utf16"

	"go.lsp.dev/protocol"
)

// ContentChange is one entry of a textDocument/didChange notification's contentChanges: a range
// of the document replaced by Text, or, when Range is nil, the whole document replaced by Text.
//
// protocol.TextDocumentContentChangeEvent (go.lsp.dev/protocol v0.12.0) cannot tell the two apart:
// its Range is a value, so a full-text change ({"text": ...}, which clients may send even under
// incremental sync; eglot does after some edits) decodes as an insertion at line 0, character 0
// and would duplicate the document. Decode didChange into [DidChangeParams] instead.
type ContentChange struct {
	// Range is the replaced range, in UTF-16 code units; nil replaces the whole document.
	Range *protocol.Range `json:"range,omitempty"`
	// RangeLength is the deprecated length of the replaced range; it is ignored.
	RangeLength *uint32 `json:"rangeLength,omitempty"`
	// Text is the new text of the range or of the document.
	Text string `json:"text"`
}

// DidChangeParams are the params of textDocument/didChange. They have the field names of
// protocol.DidChangeTextDocumentParams, with content changes that keep full-text changes apart
// from range changes (see [ContentChange]).
type DidChangeParams struct {
	// TextDocument names the document and the version it has after the changes.
	TextDocument protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	// ContentChanges are applied in order, each to the result of the one before.
	ContentChanges []ContentChange `json:"contentChanges"`
}

// UTF16Len is the length of s in UTF-16 code units, as LSP positions count.
func UTF16Len(s string) uint32 {
	n := uint32(0)
	for _, r := range s {
		if l := utf16.RuneLen(r); l > 0 {
			n += uint32(l)
		} else {
			n++
		}
	}
	return n
}

// EndOf is the position after the last character of text (LSP: UTF-16 code units).
func EndOf[T string | []byte](text T) protocol.Position {
	var line uint32
	last := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			line, last = line+1, i+1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			line, last = line+1, i+1
		}
	}
	var units uint32
	for _, r := range string(text[last:]) { // the last line alone is converted
		units += uint32(utf16.RuneLen(r))
	}
	return protocol.Position{Line: line, Character: units}
}
