package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedGoIsCurrent: acp/protocol_gen*.go are what the generator writes from the checked-in
// schema today; a change to either, or to the generator, without `make generate` fails here.
func TestGeneratedGoIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	dir := t.TempDir()
	if err := run(filepath.Join(root, "acp", "schema", "schema.json"), filepath.Join(dir, "protocol_gen.go")); err != nil {
		t.Fatal(err)
	}
	fresh, err := filepath.Glob(filepath.Join(dir, "protocol_gen*.go"))
	if err != nil {
		t.Fatal(err)
	}
	have, err := filepath.Glob(filepath.Join(root, "acp", "protocol_gen*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != len(have) {
		t.Fatalf("the generator writes %d files, acp/ has %d: run `make generate` and commit the result", len(fresh), len(have))
	}
	for _, f := range fresh {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(root, "acp", filepath.Base(f)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("acp/%s is out of date with acp/schema: run `make generate` and commit the result", filepath.Base(f))
		}
	}
}
