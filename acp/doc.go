// Package acp is the client side of the Agent Client Protocol (ACP, stable v1): how Claude's, Gemini
// CLI's, codex-acp and other agents speak to editors. It spawns an agent, speaks JSON-RPC 2.0 to it
// over its stdio (one message a line) and decodes what it sends leniently.
//
// The layers, bottom up:
//
//   - the process and the connection are internal/agentproc's and internal/jsonrpc's, which package
//     codex uses too: the agent leads a process group of its own (a job object on Windows), its
//     stderr is kept in a bounded tail, Close always reaps it, and every request of the agent's is
//     answered;
//   - the protocol's types (protocol_gen*.go) are generated from ACP's JSON schema (acp/schema, the
//     release acp/schema/VERSION names) by acp/internal/protogen; its unions (ContentBlock,
//     SessionUpdate, ToolCallContent, RequestPermissionOutcome, ...) decode leniently (union.go): a
//     variant this package does not know is kept as raw JSON, a member of the wrong type is left
//     zero, and neither is an error that would drop the rest of an update;
//   - [Client] is the protocol: initialize, sessions (new, load, resume, list), prompts, cancel,
//     modes and configuration options, authentication; the agent's requests and notifications go
//     to the [Handler] the caller gives.
//
// What an agent writes is hostile: this package never panics on it and bounds each message (as
// codex's are), but it leaves its text as it came; the host cleans what it shows.
//
// ACP's draft v2 is not spoken: this package sends what v1 agents expect and decodes what they
// send.
package acp
