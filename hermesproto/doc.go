// Package hermesproto is the hermes-lsp extension protocol on top of LSP: the command names
// (workspace/executeCommand), each command's arguments and result, the hermes/turnEvent
// notification and its event, hermes.status, and the titles of the actions and code actions the
// server offers.
//
// It is the one owner of these shapes. The agent host (agenthost) emits a turn's events, results,
// usage and approvals as these types, and the lsp package sends them as they are; the VS Code extension's
// TypeScript types (editors/vscode/src/hermesproto.ts) are generated from this package by tygo
// (`make generate`, configured by tygo.yaml here); docs/protocol.md describes them; the golden files
// in testdata pin their JSON, and the tests check that the generated file and the documentation keep
// up with them.
//
// The package imports nothing of hermes-lsp's: it sits below agenthost and lsp, and what the server
// sends is defined here only, so that a change of codex's Go types cannot change the wire without a
// change here. Fields tagged json:"-" are for the server's own use and never sent.
package hermesproto
