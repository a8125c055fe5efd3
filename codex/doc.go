// Package codex is a client for OpenAI Codex's app-server: it spawns `codex app-server`, speaks its
// JSON-RPC dialect (one JSON object per line over stdio, no "jsonrpc" member) and decodes the typed
// protocol of codex 0.171.0 leniently, since codex adds fields freely. Older releases down to
// MinVersion are supported too, and a newer one is used (version.go: the range, and the known
// problems of the releases in it).
//
// The layers, bottom up:
//
//   - [Process] owns the child: spawn, a bounded tail of stderr, and a close that always reaps it.
//   - [Conn] is JSON-RPC over JSON lines on any reader and writer: requests with a context,
//     notifications in order, and server-to-client requests that are always answered.
//
// Both are internal/agentproc's and internal/jsonrpc's, which package acp shares; this package
// names them for codex.
//   - [Client] is the protocol: the initialize handshake (which reads codex's release and refuses
//     one older than MinVersion), threads, turns, interrupt (each bounded by its own timeout),
//     steer, compaction, and a [Subscription] per thread so a consumer sees only its own
//     notifications.
//
// The package knows nothing of editors or of the agent host built on top of it.
package codex
