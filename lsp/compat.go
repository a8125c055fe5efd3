package lsp

// This file holds the server's workarounds for go.lsp.dev/protocol v0.12.0 and go.lsp.dev/jsonrpc2
// v0.10.0 (the versions that build together: protocol v0.12.0 does not build against jsonrpc2 v1,
// and make lint keeps go.mod off v1): each type or function here
// stands in for one of theirs that gets a wire detail wrong, and says which. Keeping them together
// shows what to drop if the libraries are replaced by types generated from the LSP metaModel.

import (
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
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

// showDocumentParams are window/showDocument's params. protocol.ShowDocumentParams drops takeFocus
// when false (omitempty), and editors that default a missing takeFocus to true would steal the
// focus: this sends it always. (protocol v0.12.0 also has no ShowDocument in its Client interface:
// the server calls the method by name.)
type showDocumentParams struct {
	URI       protocol.URI `json:"uri"`
	External  bool         `json:"external,omitempty"`
	TakeFocus bool         `json:"takeFocus"`
}

// approvalPromptParams are an approval's window/showMessageRequest params: protocol's
// MessageActionItem has no room for the approvalId its items carry for editors that keep an item's
// own properties (additionalPropertiesSupport).
type approvalPromptParams struct {
	Type    protocol.MessageType `json:"type"`
	Message string               `json:"message"`
	Actions []approvalAction     `json:"actions"`
}

// approvalAction is an approval prompt's action item.
type approvalAction struct {
	Title      string `json:"title"`
	ApprovalID string `json:"approvalId,omitempty"`
}

// cancelID reads the id of a $/cancelRequest. protocol.CancelHandler ignores numeric ids, which is
// what editors send; jsonrpc2 v0.10.0 ids are int32 or string, so a number beyond int32 (which the
// framing stream maps to an internal id) is not found.
func cancelID(params json.RawMessage) (jsonrpc2.ID, bool) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil {
		return jsonrpc2.ID{}, false
	}
	var n int64
	var str string
	switch {
	case json.Unmarshal(p.ID, &n) == nil && n == int64(int32(n)):
		return jsonrpc2.NewNumberID(int32(n)), true
	case json.Unmarshal(p.ID, &str) == nil:
		return jsonrpc2.NewStringID(str), true
	}
	return jsonrpc2.ID{}, false
}

// initializeResult is initialize's answer, built as JSON objects: protocol v0.12.0's
// ServerCapabilities types the sync, code action and workspace options as interface{} fields and
// LSP 3.16 structs, which marshal fields the server does not mean to advertise.
func initializeResult(commands []string, version string) map[string]any {
	return map[string]any{
		"capabilities": map[string]any{
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    protocol.TextDocumentSyncKindIncremental,
				"save":      map[string]any{"includeText": true},
			},
			"executeCommandProvider": map[string]any{"commands": commands, "workDoneProgress": true},
			"hoverProvider":          true,
			"inlayHintProvider":      true, // LSP 3.17; protocol v0.12.0 has no field for it
			"codeActionProvider": map[string]any{
				"codeActionKinds": []protocol.CodeActionKind{protocol.QuickFix, protocol.Refactor, protocol.Source},
			},
			"workspace": map[string]any{
				"workspaceFolders": map[string]any{"supported": true, "changeNotifications": true},
			},
		},
		"serverInfo": map[string]any{"name": "hermes-lsp", "version": version},
	}
}
