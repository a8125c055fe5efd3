package codex_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// schemaBundle is the file of codex's schema that the protocol is generated from.
const schemaBundle = "codex_app_server_protocol.schemas.json"

// TestSchemaMatchesPinnedCodex: the schema checked in under codex/schema is what the pinned codex
// prints (`codex app-server generate-json-schema`). When codex's pin moves, this fails until
// `make generate` has refreshed the schema and the Go types generated from it.
func TestSchemaMatchesPinnedCodex(t *testing.T) {
	bin := codextest.NewReal(t).Binary // the pinned codex (the real-codex tests' setup, -short included)
	out := t.TempDir()
	cmd := exec.Command(bin, "app-server", "generate-json-schema", "--out", out)
	cmd.Env = append(os.Environ(), "CODEX_HOME="+t.TempDir())
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s app-server generate-json-schema: %v\n%s", bin, err, b)
	}
	fresh, err := os.ReadFile(filepath.Join(out, schemaBundle))
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(filepath.Join("schema", schemaBundle))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, have) {
		t.Errorf("codex/schema/%s differs from what %s prints: run `make generate` and commit the result", schemaBundle, bin)
	}
}
