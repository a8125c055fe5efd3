// The hermes-lsp extension protocol's TypeScript types, generated from the Go package hermesproto
// by `make generate` into three files (tygo.yaml, tygo-events.yaml, tygo-questions.yaml): the
// commands, codex's questions, and the rest.
// This file only puts them under one name; edit the Go types, not these files.

export * from './hermesproto_commands';
export * from './hermesproto_events';
export * from './hermesproto_questions';
