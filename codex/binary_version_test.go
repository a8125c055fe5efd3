package codex_test

import (
	"encoding/json"
	"os"
	"path/filepath"
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

// TestCompatVersionsInRange: every codex release make test-compat installs
// (tools/codex-compat/<release>/package.json) is in the supported range and other than the pin, and
// the oldest supported release is one of them.
func TestCompatVersionsInRange(t *testing.T) {
	dirs, err := os.ReadDir("../tools/codex-compat")
	if err != nil {
		t.Fatal(err)
	}
	hasMin := false
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join("../tools/codex-compat", d.Name(), "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		var pkg struct {
			Dependencies map[string]string `json:"dependencies"`
		}
		if err := json.Unmarshal(b, &pkg); err != nil {
			t.Fatal(err)
		}
		v := pkg.Dependencies[codex.NpmPackage]
		if v != d.Name() || codex.CompatOf(v).Support != codex.SupportSupported {
			t.Errorf("tools/codex-compat/%s installs %s %q: want the folder's release, inside %s and not the pin", d.Name(), codex.NpmPackage, v, codex.SupportedRange())
		}
		hasMin = hasMin || v == codex.MinVersion
	}
	if !hasMin {
		t.Errorf("make test-compat does not test the oldest supported release, %s: add tools/codex-compat/%[1]s", codex.MinVersion)
	}
}
