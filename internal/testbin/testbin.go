// Package testbin builds the module's commands (hermes-lsp, hermes-demo) for the tests that run
// them as processes: each once per test binary (one package's tests), into one folder (so that
// hermes-demo finds hermes-lsp beside it, as installed), shared by parallel tests, and removed when
// the package's tests end. A package that uses it calls [Main] from its TestMain.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// cmdPrefix names the module's commands by import path, so that the build works from any package
// directory of the module.
const cmdPrefix = "github.com/hermes-lsp/hermes-lsp/cmd/"

var built struct {
	sync.Mutex
	managed bool   // Main runs the tests: it removes dir when they end
	dir     string // where the commands are built
	bins    map[string]result
}

// result is one command's build: its path, or the failure, the same for every test that asks.
type result struct {
	bin string
	err error
}

// Runner is what TestMain is given: a *testing.M.
type Runner interface{ Run() int }

// Main runs the package's tests with m, then removes the binary they built, and returns the exit
// code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }
//
// A TestMain that passes m on (goleak.VerifyTestMain) passes [Managed](m) instead.
func Main(m Runner) int {
	return Managed(m).Run()
}

// Managed returns m such that its Run also removes, once the tests end, the binary they built.
func Managed(m Runner) Runner {
	built.Lock()
	built.managed = true
	built.Unlock()
	return managed{m}
}

type managed struct{ m Runner }

func (r managed) Run() int {
	code := r.m.Run()
	built.Lock()
	defer built.Unlock()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	built.dir, built.bins = "", nil
	return code
}

// HermesLSP returns the path of hermes-lsp built from this module's cmd/hermes-lsp, building it on
// the first call. Concurrent callers wait for that one build. It fails t when the build fails, and
// when the package's TestMain does not call [Main], since the binary would never be removed.
func HermesLSP(t testing.TB) string {
	t.Helper()
	return Command(t, "hermes-lsp")
}

// Command returns the path of the module's command cmd/name, built as HermesLSP builds hermes-lsp.
func Command(t testing.TB, name string) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if !built.managed {
		t.Fatal("testbin needs the package's TestMain to call testbin.Main (or testbin.Managed)")
	}
	r, ok := built.bins[name]
	if !ok {
		r.bin, r.err = build(name)
		if built.bins == nil {
			built.bins = make(map[string]result)
		}
		built.bins[name] = r
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.bin
}

// build runs go build of cmd/name into the build folder, made on the first build and recorded in
// built.dir for removal.
func build(name string) (string, error) {
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "hermes-lsp-test-")
		if err != nil {
			return "", fmt.Errorf("build %s: %w", name, err)
		}
		built.dir = dir
	}
	file := name
	if runtime.GOOS == "windows" {
		file += ".exe"
	}
	bin := filepath.Join(built.dir, file)
	if out, err := exec.Command("go", "build", "-o", bin, cmdPrefix+name).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", cmdPrefix+name, err, out)
	}
	return bin, nil
}
