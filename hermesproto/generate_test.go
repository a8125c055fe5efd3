package hermesproto_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gzuidhof/tygo/config"
	"github.com/gzuidhof/tygo/tygo"
)

// TestGeneratedTypeScript: the VS Code extension's protocol types are what tygo makes of this
// package now. It runs the generator pinned in go.mod, with tygo.yaml, tygo-events.yaml, tygo-questions.yaml and tygo-changes.yaml, into
// temporary files and compares them with the checked-in editors/vscode/src/hermesproto_*.ts, so the
// two never drift: a change here needs `make generate` (and the extension then type-checks against
// the new types).
//
// It is a test rather than `make generate && git diff --exit-code`, so that it runs wherever the Go
// tests run (`go test ./...`, CI), needs neither git nor a clean work tree, and says what to do.
func TestGeneratedTypeScript(t *testing.T) {
	for _, file := range []string{"tygo.yaml", "tygo-events.yaml", "tygo-questions.yaml", "tygo-changes.yaml"} {
		// tygo's own reader, so that the file means here what it means to `go tool tygo` (it exits
		// the test binary with a message if the file cannot be read).
		cfg := config.ReadFromFilepath(file)
		if len(cfg.Packages) != 1 {
			t.Fatalf("%s: %d packages, want 1", file, len(cfg.Packages))
		}
		checkedIn := filepath.Join("..", filepath.FromSlash(cfg.Packages[0].OutputPath))
		cfg.Packages[0].OutputPath = filepath.Join(t.TempDir(), filepath.Base(checkedIn))
		if err := tygo.New(&cfg).Generate(); err != nil {
			t.Fatal(err)
		}
		fresh, err := os.ReadFile(cfg.Packages[0].OutputPath)
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(checkedIn)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fresh, have) {
			t.Errorf("%s is out of date with hermesproto: run `make generate` and commit the result", checkedIn)
		}
	}
}
