package lsptest

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// buffer is a document open in the editor.
type buffer struct {
	uri     protocol.DocumentURI
	version int32
	text    string
}

// syncOptions is what the server's textDocumentSync asks for.
type syncOptions struct {
	openClose bool
	change    protocol.TextDocumentSyncKind
	save      bool // the server wants didSave
	saveText  bool // with the saved text
}

// parseSync reads textDocumentSync from an initialize result: a TextDocumentSyncKind number (which
// implies openClose unless it is None) or a TextDocumentSyncOptions object. Omitted means None.
func parseSync(result json.RawMessage) (*syncOptions, error) {
	var r struct {
		Capabilities struct {
			TextDocumentSync json.RawMessage `json:"textDocumentSync"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, fmt.Errorf("initialize: decoding the result %s: %w", result, err)
	}
	raw := r.Capabilities.TextDocumentSync
	if len(raw) == 0 || string(raw) == "null" {
		return &syncOptions{}, nil
	}
	var kind protocol.TextDocumentSyncKind
	if json.Unmarshal(raw, &kind) == nil {
		return &syncOptions{openClose: kind != protocol.TextDocumentSyncKindNone, change: kind}, nil
	}
	var o struct {
		OpenClose bool                          `json:"openClose"`
		Change    protocol.TextDocumentSyncKind `json:"change"`
		Save      json.RawMessage               `json:"save"` // a boolean or {includeText}
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("initialize: decoding textDocumentSync %s: %w", raw, err)
	}
	so := &syncOptions{openClose: o.OpenClose, change: o.Change}
	var saveOpts struct {
		IncludeText bool `json:"includeText"`
	}
	switch {
	case len(o.Save) == 0 || string(o.Save) == "false" || string(o.Save) == "null":
	case string(o.Save) == "true":
		so.save = true
	case json.Unmarshal(o.Save, &saveOpts) == nil:
		so.save, so.saveText = true, saveOpts.IncludeText
	}
	return so, nil
}

// wantsOpenClose reports whether the server asks for didOpen and didClose. Before initialize the
// editor knows nothing of the server and sends everything.
func (so *syncOptions) wantsOpenClose() bool { return so == nil || so.openClose }

// changeKind is how the server wants didChange: Incremental before initialize.
func (so *syncOptions) changeKind() protocol.TextDocumentSyncKind {
	if so == nil {
		return protocol.TextDocumentSyncKindIncremental
	}
	return so.change
}

// languageIDs maps file extensions to language ids; anything else is plaintext.
var languageIDs = map[string]protocol.LanguageIdentifier{
	".go": "go", ".md": "markdown", ".py": "python", ".js": "javascript", ".ts": "typescript",
	".rs": "rust", ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".sh": "shellscript",
	".c": "c", ".h": "c", ".cpp": "cpp", ".java": "java", ".rb": "ruby", ".lua": "lua",
	".html": "html", ".css": "css", ".toml": "toml",
}

// OpenFile opens the file at path with text and sends textDocument/didOpen (version 1), with the
// language id its extension suggests. It fails with ErrNotWanted, the buffer open all the same,
// when the server's textDocumentSync does not ask for didOpen.
func (e *Editor) OpenFile(ctx context.Context, path, text string) error {
	lang, ok := languageIDs[strings.ToLower(filepath.Ext(path))]
	if !ok {
		lang = protocol.LanguageIdentifier("plaintext")
	}
	return e.OpenFileAs(ctx, path, lang, text)
}

// OpenFileAs is OpenFile with an explicit language id.
func (e *Editor) OpenFileAs(ctx context.Context, path string, lang protocol.LanguageIdentifier, text string) error {
	key, err := bufferKey(path)
	if err != nil {
		return err
	}
	e.docMu.Lock()
	defer e.docMu.Unlock()
	e.mu.Lock()
	if _, ok := e.buffers[key]; ok {
		e.mu.Unlock()
		return fmt.Errorf("lsptest: %s is open already", key)
	}
	b := &buffer{uri: uri.File(key), version: 1, text: text}
	e.buffers[key] = b
	want := e.sync.wantsOpenClose()
	e.mu.Unlock()
	if !want {
		return fmt.Errorf("%s %s: %w", protocol.MethodTextDocumentDidOpen, key, ErrNotWanted)
	}
	return e.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: b.uri, LanguageID: lang, Version: b.version, Text: text},
	})
}

// changeEvent is a TextDocumentContentChangeEvent whose range can be left out: protocol's type
// always sends one, which turns a whole-document change into an insertion at 0:0.
type changeEvent struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// ChangeFile applies changes (ranges in UTF-16 code units, applied in order) to the open file at
// path, bumps its version and sends textDocument/didChange as the server's textDocumentSync asks:
// the changes themselves when Incremental, the whole new text when Full. It fails with
// ErrNotWanted, the buffer changed all the same, when the server wants no didChange.
func (e *Editor) ChangeFile(ctx context.Context, path string, changes ...protocol.TextDocumentContentChangeEvent) error {
	return e.changeFile(ctx, path, func(text string) (string, []changeEvent, error) {
		evs := make([]changeEvent, len(changes))
		for i, c := range changes {
			var err error
			if text, err = applyChange(text, c.Range, c.Text); err != nil {
				return "", nil, err
			}
			evs[i] = changeEvent{Range: &c.Range, Text: c.Text}
		}
		return text, evs, nil
	})
}

// SetFileText replaces the whole text of the open file at path and sends textDocument/didChange
// with a whole-document change (no range), as ChangeFile does for its edits.
func (e *Editor) SetFileText(ctx context.Context, path, text string) error {
	return e.changeFile(ctx, path, func(string) (string, []changeEvent, error) {
		return text, []changeEvent{{Text: text}}, nil
	})
}

// changeFile changes an open buffer with edit and sends the didChange the server wants.
func (e *Editor) changeFile(ctx context.Context, path string, edit func(string) (string, []changeEvent, error)) error {
	key, err := bufferKey(path)
	if err != nil {
		return err
	}
	// docMu keeps the notifications in version order; e.mu is never held while writing, since
	// the read loop needs it.
	e.docMu.Lock()
	defer e.docMu.Unlock()
	e.mu.Lock()
	b, ok := e.buffers[key]
	if !ok {
		e.mu.Unlock()
		return fmt.Errorf("lsptest: %s is not open", key)
	}
	text, evs, err := edit(b.text)
	if err != nil {
		e.mu.Unlock()
		return fmt.Errorf("lsptest: changing %s: %w", key, err)
	}
	b.text = text
	b.version++
	version, docURI, kind := b.version, b.uri, e.sync.changeKind()
	e.mu.Unlock()
	switch kind {
	case protocol.TextDocumentSyncKindIncremental:
	case protocol.TextDocumentSyncKindFull:
		evs = []changeEvent{{Text: text}}
	default:
		return fmt.Errorf("%s %s: %w", protocol.MethodTextDocumentDidChange, key, ErrNotWanted)
	}
	return e.Notify(ctx, protocol.MethodTextDocumentDidChange, &struct {
		TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
		ContentChanges []changeEvent                            `json:"contentChanges"`
	}{
		TextDocument: protocol.VersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: docURI},
			Version:                version,
		},
		ContentChanges: evs,
	})
}

// SaveFile saves the open file at path as the editor does: it sends textDocument/didSave (with the
// text when the server asks for it), or ErrNotWanted when the server does not want didSave. It
// does not write the file: the test does, as the editor would have.
func (e *Editor) SaveFile(ctx context.Context, path string) error {
	key, err := bufferKey(path)
	if err != nil {
		return err
	}
	e.docMu.Lock()
	defer e.docMu.Unlock()
	e.mu.Lock()
	b, ok := e.buffers[key]
	so := e.sync
	var text *string
	if ok && so != nil && so.saveText {
		t := b.text
		text = &t
	}
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("lsptest: %s is not open", key)
	}
	if so != nil && !so.save {
		return fmt.Errorf("%s %s: %w", protocol.MethodTextDocumentDidSave, key, ErrNotWanted)
	}
	return e.Notify(ctx, protocol.MethodTextDocumentDidSave, &struct {
		TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
		Text         *string                         `json:"text,omitempty"`
	}{TextDocument: protocol.TextDocumentIdentifier{URI: b.uri}, Text: text})
}

// CloseFile closes the open file at path and sends textDocument/didClose (ErrNotWanted, the
// buffer closed all the same, when the server does not ask for it).
func (e *Editor) CloseFile(ctx context.Context, path string) error {
	key, err := bufferKey(path)
	if err != nil {
		return err
	}
	e.docMu.Lock()
	defer e.docMu.Unlock()
	e.mu.Lock()
	b, ok := e.buffers[key]
	delete(e.buffers, key)
	want := e.sync.wantsOpenClose()
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("lsptest: %s is not open", key)
	}
	if !want {
		return fmt.Errorf("%s %s: %w", protocol.MethodTextDocumentDidClose, key, ErrNotWanted)
	}
	return e.Notify(ctx, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: b.uri},
	})
}

// BufferText returns the text and version of the open file at path.
func (e *Editor) BufferText(path string) (text string, version int32, ok bool) {
	key, err := bufferKey(path)
	if err != nil {
		return "", 0, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.buffers[key]
	if !ok {
		return "", 0, false
	}
	return b.text, b.version, true
}

// URI returns the file URI the editor sends for path.
func URI(path string) protocol.DocumentURI { return uri.File(path) }

// bufferKey is the key of the buffer of path: its absolute, cleaned form.
func bufferKey(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("lsptest: %q: %w", path, err)
	}
	return abs, nil
}

// applyChange replaces the range rng of text (positions in UTF-16 code units) with newText.
func applyChange(text string, rng protocol.Range, newText string) (string, error) {
	start, err := offset(text, rng.Start)
	if err != nil {
		return "", err
	}
	end, err := offset(text, rng.End)
	if err != nil {
		return "", err
	}
	if end < start {
		return "", fmt.Errorf("range %v ends before it starts", rng)
	}
	return text[:start] + newText + text[end:], nil
}

// offset returns the byte offset of pos in text. A character beyond the end of its line means the
// end of the line, as the protocol says; a line beyond the last is an error.
func offset(text string, pos protocol.Position) (int, error) {
	i := 0
	for line := uint32(0); line < pos.Line; line++ {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return 0, fmt.Errorf("line %d is beyond the end of the text", pos.Line)
		}
		i += j + 1
	}
	for col := uint32(0); col < pos.Character && i < len(text) && text[i] != '\n'; {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		i += size
	}
	return i, nil
}
