package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedGoIsCurrent: codex/protocol_gen.go is what the generator writes from the checked-in
// schema today; a change to either without `make generate` fails here.
func TestGeneratedGoIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	fresh := filepath.Join(t.TempDir(), "protocol_gen.go")
	if err := run(filepath.Join(root, "codex", "schema", "codex_app_server_protocol.schemas.json"), fresh); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(filepath.Join(root, "codex", "protocol_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, have) {
		t.Error("codex/protocol_gen.go is out of date with codex/schema: run `make generate` and commit the result")
	}
}
