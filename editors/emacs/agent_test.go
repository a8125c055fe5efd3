package emacs_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitializationOptions: hermes-lsp-settings as the server gets them (json-serialize, as eglot
// and lsp-mode send them, false as :json-false): the agent's settings as written in the README, codex's and the agent's
// :args as JSON arrays though written as lists, :env an object; and how hermes-lsp-status names an
// agent, from eglot's plists and lsp-mode's hash tables, its words cleaned.
func TestInitializationOptions(t *testing.T) {
	emacs := needEmacs(t)
	plugin, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	out, err := emacsRun(t, emacs, nil, "--eval", `(progn
  (add-to-list 'load-path "`+plugin+`")
  (require 'hermes-lsp)
  (defun say (tag value) (princ (format "%s %s\n" tag value)))
  ;; As eglot's jsonrpc and lsp-mode serialize their messages.
  (defun wire (object) (json-serialize object :false-object :json-false :null-object nil))
  (setq hermes-lsp-settings
        '(:codex (:path "/opt/codex" :args ("-c" "model=\"x\""))
          :agent (:kind "acp" :command "gemini" :args ("--acp") :env (:GEMINI_API_KEY "k"))))
  (let ((before (copy-tree hermes-lsp-settings)))
    (say "LISTS" (wire (hermes-lsp--initialization-options)))
    (say "UNCHANGED" (equal before hermes-lsp-settings)))
  (setq hermes-lsp-settings '(:agent (:kind "acp" :command "claude-agent-acp" :args ["--x"]) :turnEvents :json-false))
  (say "VECTORS" (wire (hermes-lsp--initialization-options)))
  (say "ACP" (hermes-lsp--agent-line '(:kind "acp" :name "gemini-cli\e[2J\n" :version "0.61.0" :lacks ["compact" "login"])))
  (say "CODEX" (hermes-lsp--agent-line (json-parse-string "{\"kind\":\"codex\",\"name\":\"codex\",\"version\":\"0.171.0\",\"lacks\":[]}")))
  (say "NONE" (hermes-lsp--agent-line nil)))`)
	if err != nil {
		t.Fatalf("emacs: %v\n%s", err, out)
	}
	said := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if tag, rest, ok := strings.Cut(line, " "); ok && strings.ToUpper(tag) == tag {
			said[tag] = rest
		}
	}
	var lists struct {
		Hermes struct {
			Codex struct {
				Path string   `json:"path"`
				Args []string `json:"args"`
			} `json:"codex"`
			Agent struct {
				Kind    string            `json:"kind"`
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"agent"`
			TurnEvents bool `json:"turnEvents"`
		} `json:"hermes"`
	}
	if err := json.Unmarshal([]byte(said["LISTS"]), &lists); err != nil {
		t.Fatalf("initializationOptions with :args as lists: %v\n%s", err, out)
	}
	h := lists.Hermes
	if h.Codex.Path != "/opt/codex" || strings.Join(h.Codex.Args, " ") != `-c model="x"` || h.Agent.Kind != "acp" || h.Agent.Command != "gemini" ||
		strings.Join(h.Agent.Args, " ") != "--acp" || h.Agent.Env["GEMINI_API_KEY"] != "k" || !h.TurnEvents {
		t.Errorf("initializationOptions: %s", said["LISTS"])
	}
	if said["UNCHANGED"] != "t" {
		t.Errorf("hermes-lsp-settings were changed in place")
	}
	if want := `{"hermes":{"agent":{"kind":"acp","command":"claude-agent-acp","args":["--x"]},"turnEvents":false}}`; said["VECTORS"] != want {
		t.Errorf("initializationOptions with :args a vector: %s, want %s", said["VECTORS"], want)
	}
	if want := "gemini-cli[2J 0.61.0 (ACP; lacks compact, login)"; said["ACP"] != want {
		t.Errorf("the ACP agent's line: %q, want %q", said["ACP"], want)
	}
	if said["CODEX"] != "codex 0.171.0" || said["NONE"] != "nil" {
		t.Errorf("codex's line %q, no agent's %q", said["CODEX"], said["NONE"])
	}
}
