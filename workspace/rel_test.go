package workspace_test

import (
	"path/filepath"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/workspace"
)

func TestRel(t *testing.T) {
	base := t.TempDir() // absolute on every system
	p := filepath.Join(base, "p")
	j := func(parts ...string) string { return filepath.Join(append([]string{base}, parts...)...) }
	for _, tc := range []struct {
		folder, path, want string
		inside             bool
	}{
		{p, j("p", "src", "main.go"), filepath.Join("src", "main.go"), true},
		{p + string(filepath.Separator), j("p", "a.go"), "a.go", true},
		{p, p, ".", true},
		{p, j("pq", "a.go"), j("pq", "a.go"), false},
		{p, p + string(filepath.Separator) + ".." + string(filepath.Separator) + "q", p + string(filepath.Separator) + ".." + string(filepath.Separator) + "q", false},
		{p, j("elsewhere"), j("elsewhere"), false},
		{"", j("p", "a.go"), j("p", "a.go"), false},
		{p, "a.go", "a.go", false},
	} {
		got, inside := workspace.Rel(tc.folder, tc.path)
		if got != tc.want || inside != tc.inside {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", tc.folder, tc.path, got, inside, tc.want, tc.inside)
		}
	}
}
