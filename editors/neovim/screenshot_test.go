//go:build screenshot

package neovim_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
	"github.com/hermes-lsp/hermes-lsp/internal/proctest"
	"github.com/hermes-lsp/hermes-lsp/internal/testbin"
)

// TestNeovimScreenshot runs hermes.nvim in a Neovim with a screen (tmux), asks a question with
// :HermesAsk, replies from the Hermes buffer's input area, and writes the screen with its colours
// to $HERMES_SCREENSHOTS/neovim-chat.ansi for docs/images (make screenshots). Build tag screenshot.
func TestNeovimScreenshot(t *testing.T) {
	dir := os.Getenv("HERMES_SCREENSHOTS")
	if dir == "" {
		t.Fatal("set HERMES_SCREENSHOTS to the folder for the screen (make screenshots does)")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatal(err)
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	pluginDir, _ := filepath.Abs(".")
	env := codextest.NewReal(t)
	env.Model.Enqueue(
		fakemodel.Exec("go test ./..."),
		fakemodel.MessageChunks("`Sum` adds the numbers from 1 to n with a loop, and ", "its test passes:\n\n",
			"```go\nfor i := 1; i <= n; i++ {\n\ttotal += i\n}\n```\n\nA closed form, `n*(n+1)/2`, would do it in one step."),
		fakemodel.Message("Yes: for `n = 0` the loop does not run and `Sum` returns **0**."),
	)
	if err := os.Mkdir(filepath.Join(env.Work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package calc\n\n// Sum returns 1 + 2 + ... + n.\nfunc Sum(n int) int {\n\ttotal := 0\n\tfor i := 1; i <= n; i++ {\n\t\ttotal += i\n\t}\n\treturn total\n}\n"
	if err := os.WriteFile(filepath.Join(env.Work, "calc.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	settings := env.HermesSettings(filepath.Join(tmp, "state"))
	settings["yolo"] = true
	settingsJSON, _ := json.Marshal(settings)
	setup := filepath.Join(tmp, "setup.lua")
	lua := "vim.o.termguicolors = true\nrequire('hermes').setup({ cmd = { " + luaString(testbin.HermesLSP(t)) + " }, settings = vim.json.decode(" + luaString(string(settingsJSON)) + "), height = 22 })\n"
	if err := os.WriteFile(setup, []byte(lua), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home")
	socket := filepath.Join(tmp, "tmux.sock")
	tm := func(args ...string) string {
		out, _ := exec.Command(tmux, append([]string{"-S", socket}, args...)...).CombinedOutput()
		return string(out)
	}
	shell := "cd '" + env.Work + "' && exec env HOME='" + home + "' XDG_CONFIG_HOME='" + home + "/.config' XDG_STATE_HOME='" + home +
		"/.local/state' XDG_DATA_HOME='" + home + "/.local/share' TERM=xterm-256color OPENAI_API_KEY= CODEX_API_KEY= '" + nvim +
		"' --clean -n --cmd 'set rtp^=" + pluginDir + "' -c 'luafile " + setup + "' calc.go"
	tm("new-session", "-d", "-s", "nv", "-x", "120", "-y", "44", shell)
	t.Cleanup(func() {
		tm("kill-server")
		proctest.EndCodex(t, env.CodexHome)
	})
	waitFor := func(what, sub string) {
		t.Helper()
		for end := time.Now().Add(60 * time.Second); !strings.Contains(tm("capture-pane", "-p", "-t", "nv"), sub); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("timed out waiting for %s:\n%s", what, tm("capture-pane", "-p", "-t", "nv"))
			}
		}
	}
	keys := func(k ...string) {
		tm(append([]string{"send-keys", "-t", "nv"}, k...)...)
		time.Sleep(300 * time.Millisecond)
	}
	waitFor("Neovim", "func Sum")
	waitFor("the auto-approval warning", "auto-approving") // visible, as it must be; then out of the way
	keys("Escape")
	keys("-l", ":4,10HermesAsk Explain Sum and run its test")
	keys("Enter")
	waitFor("the answer", "closed form")
	keys(":HermesOpen", "Enter")
	keys("G", "i")
	keys("-l", "Does it work for n = 0?")
	keys("Escape")
	keys("Enter")
	waitFor("the second answer", "returns")
	time.Sleep(500 * time.Millisecond)
	keys("Escape") // the final message's hit-enter prompt
	keys("-l", ":redraw")
	keys("Enter")
	if err := os.WriteFile(filepath.Join(dir, "neovim-chat.ansi"), []byte(tm("capture-pane", "-e", "-p", "-t", "nv")), 0o644); err != nil {
		t.Fatal(err)
	}
	keys(":qa!", "Enter")
}

// luaString quotes s as a Lua long string.
func luaString(s string) string { return "[==[" + s + "]==]" }
