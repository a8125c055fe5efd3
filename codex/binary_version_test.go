package codex_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// TestTestedVersionIsThePin: codex.TestedVersion is what tools/codex/package.json installs.
func TestTestedVersionIsThePin(t *testing.T) {
	b, err := os.ReadFile("../tools/codex/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if got := pkg.Dependencies[codex.NpmPackage]; got != codex.TestedVersion {
		t.Errorf("tools/codex/package.json pins %s %q, codex.TestedVersion is %q", codex.NpmPackage, got, codex.TestedVersion)
	}
}
