// Package testbin builds the hermes-lsp binary for the tests that run it as a process: once per
// test binary (one package's tests), shared by parallel tests, and removed when the package's tests
// end. A package that uses it calls [Main] from its TestMain.
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

// pkg is what is built: the module's server command, named by import path so that the build works
// from any package directory of the module.
const pkg = "github.com/hermes-lsp/hermes-lsp/cmd/hermes-lsp"

var built struct {
	sync.Mutex
	managed  bool // Main runs the tests: it removes dir when they end
	dir, bin string
	err      error // the build's failure, the same for every test that asks
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
	built.dir, built.bin, built.err = "", "", nil
	return code
}

// HermesLSP returns the path of hermes-lsp built from this module's cmd/hermes-lsp, building it on
// the first call. Concurrent callers wait for that one build. It fails t when the build fails, and
// when the package's TestMain does not call [Main], since the binary would never be removed.
func HermesLSP(t testing.TB) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if !built.managed {
		t.Fatal("testbin.HermesLSP needs the package's TestMain to call testbin.Main (or testbin.Managed)")
	}
	if built.bin == "" && built.err == nil {
		built.bin, built.err = build()
	}
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// build runs go build into a new temporary folder, which built.dir records for removal.
func build() (string, error) {
	dir, err := os.MkdirTemp("", "hermes-lsp-test-")
	if err != nil {
		return "", fmt.Errorf("build hermes-lsp: %w", err)
	}
	built.dir = dir
	name := "hermes-lsp"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}
