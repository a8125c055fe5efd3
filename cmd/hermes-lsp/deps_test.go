package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShippedBinaryLinksNoTestCode: the server users install must not carry the scripted model, the
// demo or test helpers (they are for tests and hermes-demo only).
func TestShippedBinaryLinksNoTestCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "testing" {
			t.Errorf("hermes-lsp links %s", dep)
		}
		for _, banned := range []string{"/internal/fakemodel", "/internal/demo", "/internal/testbin", "/internal/proctest", "/codextest", "/acptest", "/lsptest"} {
			if strings.HasSuffix(dep, banned) {
				t.Errorf("hermes-lsp links %s", dep)
			}
		}
	}
}
