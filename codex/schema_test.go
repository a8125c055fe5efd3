package codex_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// TestSchemaMatchesCodex: the schema checked in under codex/schema for the real codex's release is
// what that codex prints (`codex app-server generate-json-schema`): the pinned release's, which the
// protocol is generated from, and the oldest supported release's (codex/schema/<MinVersion>), which
// the fake checks what hermes-lsp sends against. When codex's pin or the oldest release moves, this
// fails until `make generate` has refreshed the schemas and the Go types generated from them. On
// another release (make test-compat) it is skipped: no schema of it is kept.
func TestSchemaMatchesCodex(t *testing.T) {
	env := codextest.NewReal(t) // the real-codex tests' setup, -short included
	var kept string
	switch env.Compat.Version {
	case codex.TestedVersion:
		kept = filepath.Join("schema", codextest.SchemaBundle)
	case codex.MinVersion:
		kept = filepath.Join("schema", codex.MinVersion, codextest.SchemaBundle)
	default:
		env.RequirePinned(t, "the repository keeps the schema of the pinned and the oldest supported release only")
	}
	out := t.TempDir()
	cmd := exec.Command(env.Binary, "app-server", "generate-json-schema", "--out", out)
	cmd.Env = append(os.Environ(), "CODEX_HOME="+t.TempDir())
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s app-server generate-json-schema: %v\n%s", env.Binary, err, b)
	}
	fresh, err := os.ReadFile(filepath.Join(out, codextest.SchemaBundle))
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, have) {
		t.Errorf("codex/%s differs from what %s (codex %s) prints: run `make generate` and commit the result", kept, env.Binary, env.Compat.Version)
	}
}
