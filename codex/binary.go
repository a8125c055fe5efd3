package codex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// PinnedBinaryRel is where `make tools` installs the pinned codex's native binary, relative to the
// repository root (the version is named in tools/codex/package.json).
const PinnedBinaryRel = "tools/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"

// PinnedBinaryEnv names the environment variable that points at the pinned binary; the Makefile sets
// it for tests.
const PinnedBinaryEnv = "HERMES_CODEX_BIN"

// PinnedBinary finds the pinned codex binary: $HERMES_CODEX_BIN when set, else PinnedBinaryRel under
// the first directory at or above dir that holds a go.mod. The error says how to install it.
//
//hermes:ownfile the repository's pinned codex, for tests and the demo
func PinnedBinary(dir string) (string, error) {
	if p := os.Getenv(PinnedBinaryEnv); p != "" {
		if err := executable(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w (run `make tools`)", PinnedBinaryEnv, p, err)
		}
		return p, nil
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, PinnedBinaryRel)
			if err := executable(p); err != nil {
				return "", fmt.Errorf("pinned codex not installed at %s: %w (run `make tools`)", p, err)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("pinned codex not found: no go.mod above the working directory (run `make tools` in the repository)")
		}
		dir = parent
	}
}

// executable checks that path is a file that can be run.
//
//hermes:ownfile the codex binary to run
func executable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}
