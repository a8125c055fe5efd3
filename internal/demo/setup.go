package demo

// This file prepares the demo's world: credentials, codex's home and environment, the codex binary and
// the example workspace.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// credentials says which OpenAI credentials codex would use: a `codex login` (auth.json under
// $CODEX_HOME or ~/.codex), else OPENAI_API_KEY; "" when there are none.
func credentials(getenv func(string) string) string {
	if authJSON(getenv) != "" {
		return credLogin
	}
	if strings.TrimSpace(getenv("OPENAI_API_KEY")) != "" {
		return credAPIKey
	}
	return ""
}

// authJSON is the user's `codex login`: auth.json under $CODEX_HOME, else under ~/.codex; "" when
// there is none.
func authJSON(getenv func(string) string) string {
	home := getenv("CODEX_HOME")
	if home == "" {
		if h := getenv("HOME"); h != "" {
			home = filepath.Join(h, ".codex")
		}
	}
	if home == "" {
		return ""
	}
	path := filepath.Join(home, "auth.json")
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return path
}

// realCodexHome makes the CODEX_HOME of a turn on the real model: a throwaway folder in the demo's
// temporary one, whose config.toml lets the sandboxed commands write the Go build cache and, with
// creds OPENAI_API_KEY, names a provider that reads the key. The user's own CODEX_HOME would not
// do: hermes-lsp takes neither of those as codex.args (only an allow-list of -c keys), the demo must
// not edit the user's config.toml, and codex itself would write a trust entry for the temporary
// workspace into it (thread/start with the workspace-write sandbox does). So the user's
// config.toml is not read either: codex's defaults pick the model.
//
// With a `codex login`, the folder's auth.json is a symbolic link to the user's. Codex refreshes
// the login's tokens now and then and writes them back (through the link, into the user's file, as
// it would when run on ~/.codex); a copy would leave the user's file holding a refresh token that
// the refresh used up, and the user would have to log in again.
func (d *demo) realCodexHome(creds string) (string, error) {
	codexHome := filepath.Join(d.root, "codex-home")
	var values []string
	switch creds {
	case credAPIKey:
		// Codex 0.171.0 does not take OPENAI_API_KEY as a login for its built-in "openai" provider
		// (its auth loader reads auth.json and, in some commands, CODEX_API_KEY, never
		// OPENAI_API_KEY; `codex login status` with only OPENAI_API_KEY set says "Not logged in"):
		// the key reaches OpenAI through a provider that names the variable.
		values = apiKeyProvider()
	case credLogin:
		// An absolute target: a relative one would be read from codexHome. Removing the demo's
		// folder at the end removes the link, never the user's file.
		auth, err := filepath.Abs(authJSON(d.cfg.Getenv))
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(codexHome, 0o700); err != nil {
			return "", err
		}
		if err := os.Symlink(auth, filepath.Join(codexHome, "auth.json")); err != nil {
			return "", err
		}
	}
	values = append(values, goCacheWritable(d.cfg.Getenv)...)
	if err := fakemodel.WriteConfigTOML(codexHome, values...); err != nil {
		return "", err
	}
	return codexHome, nil
}

// apiKeyProvider is the codex configuration of a model provider that is OpenAI's Responses API
// with the key in OPENAI_API_KEY.
func apiKeyProvider() []string {
	return []string{
		`model_provider="openai_api_key"`,
		`model_providers.openai_api_key.name="OpenAI (OPENAI_API_KEY)"`,
		`model_providers.openai_api_key.base_url="https://api.openai.com/v1"`,
		`model_providers.openai_api_key.env_key="OPENAI_API_KEY"`,
		`model_providers.openai_api_key.wire_api="responses"`,
	}
}

// offlineEnv is codex's environment in offline mode: a throwaway HOME, no API keys, and the user's
// Go build cache, module cache and settings (with HOME moved they would be cold or missing).
func offlineEnv(home string, getenv func(string) string) map[string]string {
	env := map[string]string{"HOME": home, "OPENAI_API_KEY": "", "CODEX_API_KEY": ""}
	for _, name := range []string{"GOCACHE", "GOMODCACHE", "GOENV"} {
		if v := goEnv(name, getenv); v != "" {
			env[name] = v
		}
	}
	return env
}

// goCacheWritable is the codex configuration (a config.toml line) that lets the commands it runs in
// its sandbox (workspace-write) write the user's Go build cache, so that `go test` works there and
// stays quick (a cold cache takes a minute). Nothing when go is missing.
func goCacheWritable(getenv func(string) string) []string {
	dir := goEnv("GOCACHE", getenv)
	if dir == "" || dir == "off" || !filepath.IsAbs(dir) {
		return nil
	}
	return []string{"sandbox_workspace_write.writable_roots=[" + strconv.Quote(dir) + "]"}
}

// goEnv returns a variable of `go env`, or "" when go is missing.
func goEnv(name string, getenv func(string) string) string {
	if v := getenv(name); v != "" {
		return v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// findCodex picks the codex binary: the flag, else the pinned one (from the working directory,
// then from the executable's repository), else codex on PATH.
func findCodex(flagPath string) (string, error) {
	if flagPath != "" {
		p, err := exec.LookPath(flagPath)
		if err != nil {
			return "", fmt.Errorf("--codex %s: %w", flagPath, err)
		}
		return filepath.Abs(p)
	}
	var errs []error
	for _, dir := range searchDirs() {
		p, err := codex.PinnedBinary(dir)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err)
	}
	if p, err := exec.LookPath("codex"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("no codex binary: run `make tools` in the repository, or pass --codex PATH (%v)", errors.Join(errs...))
}

// searchDirs are where the repository may be: the working directory, then the executable's
// folder (bin/hermes-lsp of the repository).
func searchDirs() []string {
	var dirs []string
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(exe))
		}
	}
	return dirs
}

// findExample finds examples/calc in the repository, at or above the working directory or the
// executable.
func findExample() (string, error) {
	for _, start := range searchDirs() {
		for dir := start; ; dir = filepath.Dir(dir) {
			p := filepath.Join(dir, ExampleRel)
			if st, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", fmt.Errorf("cannot find %s: run the demo in the hermes-lsp repository, or pass --workspace DIR", ExampleRel)
}

// codexVersion is " (codex-cli X)", or "" when codex does not say.
func codexVersion(bin string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return ""
	}
	return " (" + strings.TrimSpace(string(out)) + ")"
}

// copyDir copies the regular files and folders under src to dst.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case e.IsDir():
			return os.MkdirAll(target, 0o755)
		case !e.Type().IsRegular():
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm()|0o200)
	})
}
