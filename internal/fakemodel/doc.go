// Package fakemodel is a scripted fake of the OpenAI Responses API (and of chat completions, and of
// Anthropic's Messages API) on loopback, good enough to run the real codex binary (and Claude
// Code, through ANTHROPIC_BASE_URL: see [Server.EnqueueAnthropic]) offline against it.
//
// A [Server] answers each POST /v1/responses with the next queued [Reply] (an assistant message, a
// tool call (exec_command, apply_patch or any other function), a failure, an HTTP error, a usage
// limit, or a hang) as a stream of server-sent events, and records every request so tests can check what codex sent. With
// an empty queue it answers like a tiny model: it echoes the last tool output, or says hello.
//
// Point codex at it with [Server.CodexConfig], as -c options:
//
//	srv, err := fakemodel.Start()
//	...
//	defer srv.Close()
//	srv.Enqueue(fakemodel.Exec("echo hi"), fakemodel.Message("Done."))
//	args := []string{"exec"}
//	for _, kv := range srv.CodexConfig() {
//		args = append(args, "-c", kv)
//	}
//
// or with [Server.WriteCodexConfig], as the config.toml of a throwaway CODEX_HOME: that is the way
// for a codex that hermes-lsp starts, since its `hermes.codex.args` refuse model providers.
//
// It is ordinary code, not only for tests: the shipped binary's offline demo runs on it too.
package fakemodel
