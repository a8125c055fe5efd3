package lsp

// This file holds the server's workarounds for go.lsp.dev/protocol v0.12.0 and go.lsp.dev/jsonrpc2
// v0.10.0 (the versions that build together: protocol v0.12.0 does not build against jsonrpc2 v1,
// and make lint keeps go.mod off v1): each type or function here
// stands in for one of theirs that gets a wire detail wrong, and says which. Keeping them together
// shows what to drop if the libraries are replaced by types generated from the LSP metaModel (one
// more is in lsp/approve: the approval prompt's params).

import (
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

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
