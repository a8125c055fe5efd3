package codextest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemcp"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// Real is what a test needs to run the real pinned codex offline: the binary, a fake model on
// loopback, and throwaway HOME, CODEX_HOME and workspace folders, so the user's ~/.codex is never
// touched. CODEX_HOME holds a config.toml that points codex at the fake model
// ([fakemodel.Server.WriteCodexConfig]), so a codex started there needs no -c option.
type Real struct {
	Binary string
	// Compat is what hermes-lsp makes of the binary's release (`codex --version`): make test-compat
	// runs the real-codex tests on each supported release, not only the pinned one.
	Compat    codex.Compat
	Model     *fakemodel.Server
	Home      string // HOME for codex
	CodexHome string // CODEX_HOME
	Work      string // a workspace folder to run turns in
}

// NewReal prepares a real-codex environment. Without the pinned binary the test fails (run
// `make tools`); under -short it is skipped instead.
func NewReal(t testing.TB) *Real {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real codex binary; skipped with -short")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := codex.PinnedBinary(wd)
	if err != nil {
		t.Fatalf("real codex tests need the pinned binary: %v", err)
	}
	compat, err := releaseOf(bin)
	if err != nil {
		t.Fatal(err)
	}
	model, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = model.Close() })
	Watchdog(t, 2*WatchdogAfter) // a real turn runs a process and sandboxed commands

	home := t.TempDir()
	r := &Real{
		Binary:    bin,
		Compat:    compat,
		Model:     model,
		Home:      home,
		CodexHome: filepath.Join(home, ".codex"),
		Work:      filepath.Join(home, "project"),
	}
	for _, d := range []string{r.CodexHome, r.Work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The fake model's provider goes in CODEX_HOME/config.toml too, not only in ProcessOptions'
	// -c overrides: a harness that runs hermes-lsp hands it CodexHome as `hermes.codex.home`, and
	// hermes-lsp refuses model providers in `hermes.codex.args`.
	if err := model.WriteCodexConfig(r.CodexHome); err != nil {
		t.Fatal(err)
	}
	return r
}

// ProcessOptions start codex against the fake model with the throwaway folders.
func (r *Real) ProcessOptions() codex.ProcessOptions {
	return codex.ProcessOptions{
		Binary: r.Binary,
		Config: r.Model.CodexConfig(),
		Home:   r.CodexHome,
		Env:    []string{"HOME=" + r.Home, "OPENAI_API_KEY=", "CODEX_API_KEY="},
		Dir:    r.Work,
	}
}

// CodexEnv is the environment codex gets on top of its parent's: the throwaway HOME, and no API
// key, so that nothing reaches a real account.
func (r *Real) CodexEnv() map[string]string {
	return map[string]string{"HOME": r.Home, "OPENAI_API_KEY": "", "CODEX_API_KEY": ""}
}

// HermesSettings are the hermes settings (initializationOptions, or an editor's "hermes" section)
// that run hermes-lsp on this real codex, with its state in stateDir. They hold no codex.args: the
// fake model's provider is in CodexHome's config.toml, and hermes-lsp refuses providers in args.
// A test adds its own keys to the map it gets.
func (r *Real) HermesSettings(stateDir string) map[string]any {
	return map[string]any{
		"codex": map[string]any{
			"path": r.Binary,
			"home": r.CodexHome,
			"env":  r.CodexEnv(),
		},
		"stateDir": stateDir,
	}
}

// QuestionServer is the MCP server that [Real.EnableQuestions] declares; codex 0.171.0 offers its
// tool to the model as the function [fakemcp.ToolName] in the namespace QuestionNamespace.
const (
	QuestionServer    = "asker"
	QuestionNamespace = "mcp__" + QuestionServer
)

// EnableQuestions rewrites CodexHome's config.toml so that the model can make codex ask the user
// each of its questions: it declares the MCP server QuestionServer (internal/fakemcp: the test
// binary itself, so the package's TestMain must call fakemcp.Main), whose tool asks through MCP
// elicitation, and turns on request_permissions and request_user_input outside Plan mode, which
// are "under development" in codex 0.171.0 and off unless a feature says otherwise.
func (r *Real) EnableQuestions(t testing.TB) {
	t.Helper()
	mcp, err := fakemcp.Config(QuestionServer)
	if err != nil {
		t.Fatal(err)
	}
	features := []string{"features.request_permissions_tool=true", "features.default_mode_request_user_input=true"}
	if err := r.Model.WriteCodexConfig(r.CodexHome, append(mcp, features...)...); err != nil {
		t.Fatal(err)
	}
}

// releases caches what releaseOf read of each binary: binary path -> codex.Compat.
var releases sync.Map

// releaseOf reads the release of a codex binary from `codex --version` ("codex-cli 0.171.0").
func releaseOf(bin string) (codex.Compat, error) {
	if c, ok := releases.Load(bin); ok {
		return c.(codex.Compat), nil
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return codex.Compat{}, fmt.Errorf("%s --version: %w", bin, err)
	}
	fields := strings.Fields(string(out))
	version := ""
	if len(fields) > 0 {
		version = fields[len(fields)-1]
	}
	c := codex.CompatOf(version)
	releases.Store(bin, c)
	return c, nil
}

// RequirePinned skips the test unless the real codex is the pinned release (codex.TestedVersion):
// for a test that only makes sense there, because it compares with what the pin prints or relies
// on how the pin behaves; why says which.
func (r *Real) RequirePinned(t testing.TB, why string) {
	t.Helper()
	if r.Compat.Support != codex.SupportTested {
		t.Skipf("only on the pinned codex %s (%s); this is %s", codex.TestedVersion, why, r.Compat.Version)
	}
}

// SkipIfKnown skips the test when the real codex has the known problem id (codex.KnownProblems): a
// release with it cannot pass the test, and hermes-lsp says so to the user instead.
func (r *Real) SkipIfKnown(t testing.TB, id string) {
	t.Helper()
	if r.Compat.Has(id) {
		t.Skipf("codex %s has the known problem %s", r.Compat.Version, id)
	}
}
