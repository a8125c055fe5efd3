// Command fakemodel serves the scripted fake model (internal/fakemodel) of the VS Code e2e on
// 127.0.0.1, for trying the extension by hand in a real editor without an API key: it writes a codex
// home whose config.toml points codex at it, prints one JSON line naming that folder, then serves
// until its standard input closes (or it is signalled). The script is the e2e's: run a command,
// update hello.txt with a patch, then answer; after that the fake model echoes or says hello.
//
//	go run ./editors/vscode/e2e/fakemodel [-codex-home DIR]
//	{"baseUrl":"http://127.0.0.1:PORT/v1","codexHome":"/tmp/hermes-fakemodel-codex-..."}
//
// Put codexHome in the workspace's `hermes.codex.home` (see editors/vscode/README.md); no
// `hermes.codex.args` are needed, and hermes-lsp would refuse a model provider there anyway. Without
// -codex-home the folder is a new temporary one, removed when the fake model stops; with it, DIR's
// config.toml is replaced (so never give it your ~/.codex).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// The e2e's script (editors/vscode/e2e_test.go enqueues the same).
const (
	ExecCommand = "echo from-vscode > vscode_made.txt"
	FinalAnswer = "Done in VS Code."
)

// HelloPatch updates hello.txt, which the e2e's workspace holds.
var HelloPatch = fakemodel.UpdateFilePatch("hello.txt", "This line is old.", "This line was patched in VS Code.")

func main() {
	noScript := flag.Bool("no-script", false, "queue nothing: the fake model only echoes tool output or says hello")
	codexHome := flag.String("codex-home", "", "write the codex configuration into this `folder` (default: a new temporary one, removed at the end)")
	flag.Parse()
	if err := run(*noScript, *codexHome); err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
}

// run serves the fake model, with its codex configuration in codexHome (or a temporary folder),
// until stdin closes or a signal comes.
func run(noScript bool, codexHome string) error {
	srv, err := fakemodel.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	if !noScript {
		srv.Enqueue(fakemodel.Exec(ExecCommand), fakemodel.Patch(HelloPatch), fakemodel.Message(FinalAnswer))
	}
	if codexHome == "" {
		if codexHome, err = os.MkdirTemp("", "hermes-fakemodel-codex-"); err != nil {
			return err
		}
		// The folder is useless once the fake model is gone: its config.toml names this server.
		defer os.RemoveAll(codexHome)
	} else if codexHome, err = filepath.Abs(codexHome); err != nil {
		return err
	}
	// hermes-lsp refuses model providers in `hermes.codex.args`; codex reads them from its home.
	if err := srv.WriteCodexConfig(codexHome); err != nil {
		return err
	}
	line, _ := json.Marshal(map[string]any{"baseUrl": srv.BaseURL(), "codexHome": codexHome})
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
	return nil
}
