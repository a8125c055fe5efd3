// Command fakemodel serves the scripted fake model (internal/fakemodel) of the VS Code e2e on
// 127.0.0.1, for trying the extension by hand in a real editor without an API key: it prints one JSON
// line with the codex `-c` settings that point codex at it, then serves until its standard input
// closes (or it is signalled). The script is the e2e's: run a command, update hello.txt with a patch,
// then answer; after that the fake model echoes or says hello.
//
//	go run ./editors/vscode/e2e/fakemodel
//	{"baseUrl":"http://127.0.0.1:PORT/v1","codexArgs":["-c","model_provider=\"fake\"",...]}
//
// Put codexArgs in the workspace's `hermes.codex.args` (see editors/vscode/README.md).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// The e2e's script (editors/vscode/e2e_test.go enqueues the same).
const (
	ExecCommand = "echo from-vscode > vscode_made.txt"
	FinalAnswer = "Done in VS Code."
)

// HelloPatch updates hello.txt, which the e2e's workspace holds.
const HelloPatch = "*** Begin Patch\n*** Update File: hello.txt\n@@\n Hello from the workspace.\n-This line is old.\n+This line was patched in VS Code.\n*** End Patch\n"

func main() {
	noScript := flag.Bool("no-script", false, "queue nothing: the fake model only echoes tool output or says hello")
	flag.Parse()
	srv, err := fakemodel.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
	defer srv.Close()
	if !*noScript {
		srv.Enqueue(fakemodel.Exec(ExecCommand), fakemodel.Patch(HelloPatch), fakemodel.Message(FinalAnswer))
	}
	args := []string{}
	for _, kv := range srv.CodexConfig() {
		args = append(args, "-c", kv)
	}
	line, _ := json.Marshal(map[string]any{"baseUrl": srv.BaseURL(), "codexArgs": args})
	fmt.Println(string(line))

	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	for _, l := range srv.Log() {
		fmt.Fprintln(os.Stderr, "fakemodel:", l)
	}
}
