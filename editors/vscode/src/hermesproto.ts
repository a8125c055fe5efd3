// The hermes-lsp extension protocol's TypeScript types, generated from the Go package hermesproto
// by `make generate` into four files (hermesproto/tygo*.yaml): the commands, the changes under
// review, codex's questions, and the rest.
// This file only puts them under one name; edit the Go types, not these files.

export * from './hermesproto_commands';
export * from './hermesproto_events';
export * from './hermesproto_questions';
export * from './hermesproto_changes';
