//go:build helix

package helix_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

// session is a Helix running in a tmux server of the test's own, on a file of env's workspace, with
// the README's languages.toml (plus the test's codex settings and extra lines in its hermes table).
type session struct {
	t       *testing.T
	tmux    string
	socket  string
	logFile string
}

// startHelix starts HERMES_HX on file (a name in env.Work) in 160x45 tmux, with the README's
// languages.toml for that Helix; extra is added to its [language-server.hermes-lsp.config.hermes]
// table. The tmux server and codex end with the test.
func startHelix(t *testing.T, env *codextest.Real, file, extra string) *session {
	t.Helper()
	hx := os.Getenv("HERMES_HX")
	if hx == "" {
		t.Fatal("set HERMES_HX to a Helix binary (make test-helix HX=/path/to/hx; see editors/helix/README.md)")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatalf("the Helix test drives Helix through tmux: %v", err)
	}
	tmp := t.TempDir()
	// languages.toml runs "hermes-lsp" from PATH.
	bindir := filepath.Dir(testbin.HermesLSP(t))
	if err := os.MkdirAll(filepath.Join(env.Work, ".git"), 0o755); err != nil { // Helix's workspace root
		t.Fatal(err)
	}

	// The README's languages.toml, with the test's codex and state folder.
	home := filepath.Join(tmp, "home")
	cfgDir := filepath.Join(home, ".config", "helix")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The README's languages.toml for this Helix: the release's own file when there is one
	// (languages-25.01.1.toml), else languages.toml (25.07.1, and snapshots after it).
	langFile := "languages.toml"
	if out, err := exec.Command(hx, "--version").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) >= 2 {
			if _, err := os.Stat("languages-" + f[1] + ".toml"); err == nil {
				langFile = "languages-" + f[1] + ".toml"
			}
		}
	}
	t.Logf("Helix's languages.toml: %s", langFile)
	snippet, err := os.ReadFile(langFile)
	if err != nil {
		t.Fatal(err)
	}
	// No codex args: the fake model's provider is in env.CodexHome/config.toml (codextest.NewReal).
	s := &session{t: t, tmux: tmux, socket: filepath.Join(tmp, "tmux.sock"), logFile: filepath.Join(tmp, "hermes-lsp.log")}
	lt := replaceOnce(t, string(snippet), `args = ["--stdio"]`,
		fmt.Sprintf(`args = ["--stdio", "--log-file", %q, "--log-level", "debug"]`, s.logFile))
	lt = replaceOnce(t, lt, "[language-server.hermes-lsp.config.hermes.codex]\n",
		fmt.Sprintf("[language-server.hermes-lsp.config.hermes.codex]\npath = %q\nhome = %q\nenv = { HOME = %q, OPENAI_API_KEY = \"\", CODEX_API_KEY = \"\" }\n",
			env.Binary, env.CodexHome, env.Home))
	lt = replaceOnce(t, lt, "[language-server.hermes-lsp.config.hermes]\n",
		fmt.Sprintf("[language-server.hermes-lsp.config.hermes]\nstateDir = %q\n%s", filepath.Join(tmp, "state"), extra))
	if err := os.WriteFile(filepath.Join(cfgDir, "languages.toml"), []byte(lt), 0o644); err != nil {
		t.Fatal(err)
	}

	envs := []string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"PATH=" + bindir + ":" + os.Getenv("PATH"), "TERM=xterm-256color", "OPENAI_API_KEY=", "CODEX_API_KEY=",
	}
	shell := "cd " + shellQuote(env.Work) + " && exec env " + strings.Join(quoteAll(envs), " ") + " " + shellQuote(hx) + " " + shellQuote(file)
	if out, err := s.tm("new-session", "-d", "-s", "hx", "-x", "160", "-y", "45", shell); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	t.Cleanup(func() {
		_, _ = s.tm("kill-server")
		proctest.EndCodex(t, env.CodexHome)
	})
	return s
}

// tm runs a tmux command on the session's server.
func (s *session) tm(args ...string) (string, error) {
	out, err := exec.Command(s.tmux, append([]string{"-S", s.socket}, args...)...).CombinedOutput()
	return string(out), err
}

// screen is what Helix shows now.
func (s *session) screen() string {
	out, _ := s.tm("capture-pane", "-p", "-t", "hx")
	return out
}

// press sends keys.
func (s *session) press(k ...string) {
	s.t.Helper()
	if out, err := s.tm(append([]string{"send-keys", "-t", "hx"}, k...)...); err != nil {
		s.t.Fatalf("tmux send-keys %q: %v %s", k, err, out)
	}
}

// keys sends keys and gives Helix time to take them before the next ones.
func (s *session) keys(k ...string) {
	s.t.Helper()
	s.press(k...)
	time.Sleep(200 * time.Millisecond)
}

// command runs :cmd and Enter.
func (s *session) command(cmd string) {
	s.t.Helper()
	s.keys(":")
	s.keys("-l", cmd)
	s.keys("Enter")
}

// waitFor waits up to d for the screen to meet cond (looking every 5 ms), and returns it.
func (s *session) waitFor(what string, d time.Duration, cond func(string) bool) string {
	s.t.Helper()
	for end := time.Now().Add(d); ; time.Sleep(5 * time.Millisecond) {
		scr := s.screen()
		if cond(scr) {
			return scr
		}
		if time.Now().After(end) {
			b, _ := os.ReadFile(s.logFile)
			s.t.Fatalf("timed out waiting for %s; screen:\n%s\nserver log:\n%s", what, scr, b)
		}
	}
}

func contains(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// pickFrom moves a menu's selection from its first item, the first line that first matches, to the
// first line that target matches, and chooses it.
func (s *session) pickFrom(scr string, first, target func(line string) bool, what string) {
	s.t.Helper()
	from, to := -1, -1
	for i, l := range strings.Split(scr, "\n") {
		if from < 0 && first(l) {
			from = i
		}
		if from >= 0 && to < 0 && target(l) {
			to = i
		}
	}
	if from < 0 || to < 0 {
		s.t.Fatalf("no %s in the menu:\n%s", what, scr)
	}
	for range to - from {
		s.keys("Down")
	}
	s.press("Enter") // the caller waits for what the choice does
}

// pick chooses the code action holding title in the menu on scr.
func (s *session) pick(scr, title string) {
	s.t.Helper()
	s.pickFrom(scr, func(l string) bool { return strings.Contains(l, "Hermes: ") }, func(l string) bool { return strings.Contains(l, title) }, title)
}

// codeAction opens the code actions (space a), waits for title among them and chooses it.
func (s *session) codeAction(title string) {
	s.t.Helper()
	s.keys("Escape")
	s.keys("Space")
	s.keys("a")
	s.pick(s.waitFor(title, 10*time.Second, contains(title)), title)
}
