// Package agentstest sets up real Agent Client Protocol agents to run offline in tests: codex-acp
// (@agentclientprotocol/codex-acp, which runs codex app-server), Gemini CLI (`gemini --acp`) and
// Claude's adapter (@agentclientprotocol/claude-agent-acp). Each gets a throwaway home and a fake
// model that plays a script of [Turn]s: codex-acp the Responses API of package fakemodel (through
// CODEX_HOME/config.toml), Claude its Messages API (through ANTHROPIC_BASE_URL), Gemini a file of
// canned responses (its --fake-responses-non-strict flag).
//
// [New] returns what a test needs to start one: [Agent.Command], [Agent.Args], [Agent.Environ] and
// the workspace folder; the fake stops when the test ends. The agents are npm packages that `make
// test-agents` installs into tools/agents/node_modules (and `make test-agents-claude` Claude's into
// tools/agents-claude/node_modules); New skips the test when one is not installed, unless
// HERMES_AGENTS_REQUIRE names it.
package agentstest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The agents this package knows, by the names [New] takes.
const (
	CodexACP = "codex-acp"
	Gemini   = "gemini"
	Claude   = "claude"
)

// Names lists the agents, in the order the smoke tests run them.
var Names = []string{CodexACP, Gemini, Claude}

// RequireEnv names the environment variable that lists, comma-separated, the agents that must be
// installed: [New] fails the test instead of skipping it when one of them is missing, so that
// `make test-agents` cannot pass by skipping.
const RequireEnv = "HERMES_AGENTS_REQUIRE"

// DirEnv and ClaudeDirEnv name the environment variables that override where the agents are
// installed: the folders holding node_modules (by default tools/agents and tools/agents-claude of
// the repository).
const (
	DirEnv       = "HERMES_AGENTS_DIR"
	ClaudeDirEnv = "HERMES_AGENTS_CLAUDE_DIR"
)

// A Turn is what the fake model does for one prompt: edit a file when Edit is set, then answer.
type Turn struct {
	// Prompt picks the turn: a model request belongs to the turn whose Prompt its newest matching
	// user message contains.
	Prompt string
	Edit   *Edit
	Answer string
}

// An Edit is a change the model makes with the agent's own edit tool: the lines Old (whole lines,
// without the last newline) of the file at Path, relative to the workspace folder, become New.
type Edit struct {
	Path, Old, New string
}

// An Agent is one real ACP agent set up to run offline: start Command with Args, in Work, with
// the environment [Agent.Environ]. Its fake model plays the turns given to [New] and stops when
// the test ends.
type Agent struct {
	Name    string
	Command string   // the program: an npm package's bin
	Args    []string // its arguments
	// Env is what the agent's environment adds to this process's (and overrides in it): the
	// throwaway home, the fake model's address, the settings that keep the agent offline.
	Env []string
	// Home is the throwaway HOME (its own dot folders under it); Work the workspace folder, the
	// cwd of session/new, holding README.md ("# project\n").
	Home, Work string
	// AskMode is the session mode (session/set_mode) under which the agent asks before it edits a
	// file, or "" when it asks in the mode it starts in.
	AskMode string
}

// New sets up the agent name (one of [Names]) in a temporary folder of t, its fake model playing
// turns. It skips t when the agent is not installed (fails it if [RequireEnv] names it).
func New(t testing.TB, name string, turns ...Turn) *Agent {
	t.Helper()
	setup, ok := setups[name]
	if !ok {
		t.Fatalf("agentstest: unknown agent %q (known: %s)", name, strings.Join(Names, ", "))
	}
	command, err := setup.find()
	if err != nil {
		if required(name) {
			t.Fatalf("%s: %v", name, err)
		}
		t.Skipf("%s: %v", name, err)
	}
	root := t.TempDir()
	a := &Agent{Name: name, Command: command, Home: filepath.Join(root, "home"), Work: filepath.Join(root, "project")}
	for _, dir := range []string{a.Home, a.Work} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(a.Work, "README.md"), []byte("# project\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a.Env = []string{
		"HOME=" + a.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(a.Home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(a.Home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(a.Home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(a.Home, ".cache"),
	}
	if err := setup.prepare(t, a, turns); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return a
}

// Environ is the agent's whole environment: this process's, less every variable that could lead
// to a real account or configuration (OPENAI_*, CODEX_*, ANTHROPIC_*, CLAUDE_*, GEMINI_*, GOOGLE_*,
// XDG_*), then a.Env.
func (a *Agent) Environ() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, p := range []string{"OPENAI_", "CODEX_", "ANTHROPIC_", "CLAUDE_", "GEMINI_", "GOOGLE_", "XDG_"} {
			if strings.HasPrefix(kv, p) {
				return true
			}
		}
		return false
	})
	return append(env, a.Env...)
}

// setup is how one agent is found and prepared.
type setup struct {
	// find returns the agent's program, or why it is not installed.
	find func() (string, error)
	// prepare starts the agent's fake (stopped by t's cleanup) and fills in a's Args, Env and
	// AskMode.
	prepare func(t testing.TB, a *Agent, turns []Turn) error
}

var setups = map[string]setup{
	CodexACP: {find: npmBin(DirEnv, "tools/agents", "codex-acp"), prepare: prepareCodexACP},
	Gemini:   {find: npmBin(DirEnv, "tools/agents", "gemini"), prepare: prepareGemini},
	Claude:   {find: npmBin(ClaudeDirEnv, "tools/agents-claude", "claude-agent-acp"), prepare: prepareClaude},
}

// required reports whether [RequireEnv] names the agent.
func required(name string) bool {
	return slices.Contains(strings.Split(os.Getenv(RequireEnv), ","), name)
}

// npmBin returns a finder of the program bin in node_modules/.bin of the folder that env names,
// else of rel in the repository (the folder above the working directory that holds go.mod).
func npmBin(env, rel, bin string) func() (string, error) {
	return func() (string, error) {
		dir := os.Getenv(env)
		if dir == "" {
			root, err := moduleRoot()
			if err != nil {
				return "", err
			}
			dir = filepath.Join(root, filepath.FromSlash(rel))
		}
		p := filepath.Join(dir, "node_modules", ".bin", bin)
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("not installed (%w): run `make test-agents` (or set %s)", err, env)
		}
		return p, nil
	}
}

// moduleRoot returns the nearest folder at or above the working directory that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// findTurn returns the turn whose Prompt the text contains; with several, the one with the
// longest Prompt, so that a prompt may extend another.
func findTurn(turns []Turn, text string) (Turn, bool) {
	best, found := Turn{}, false
	for _, t := range turns {
		if t.Prompt != "" && strings.Contains(text, t.Prompt) && (!found || len(t.Prompt) > len(best.Prompt)) {
			best, found = t, true
		}
	}
	return best, found
}
