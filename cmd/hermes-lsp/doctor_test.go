package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/acp/acptest"
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
)

// doctorRun runs `hermes-lsp doctor --json args...` and returns its exit status and report.
func doctorRun(t *testing.T, args ...string) (int, doctorReport, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"doctor", "--json"}, args...), nil, &out, &errOut)
	var r doctorReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("doctor's report %q: %v (stderr %s)", out.String(), err, errOut.String())
	}
	return code, r, out.String()
}

func writeSettings(t *testing.T, settings map[string]any) string {
	t.Helper()
	b, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func check(r doctorReport, name string) doctorCheck {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return doctorCheck{}
}

func setting(r doctorReport, key string) doctorSetting {
	for _, s := range r.Settings {
		if s.Key == key {
			return s
		}
	}
	return doctorSetting{}
}

// TestDoctorGood: the pinned codex on the fake model, with the settings an editor would send:
// nothing blocks a turn, and each setting says where it came from.
func TestDoctorGood(t *testing.T) {
	env := codextest.NewReal(t)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("CODEX_API_KEY", "")
	stateDir := filepath.Join(t.TempDir(), "state")
	settings := writeSettings(t, env.HermesSettings(stateDir))
	code, r, out := doctorRun(t, "--settings", settings, env.Work)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	release := "the version hermes-lsp is tested with"
	if env.Compat.Support != codex.SupportTested { // make test-compat
		release = "supported: hermes-lsp supports " + codex.SupportedRange()
	}
	for name, want := range map[string]string{
		"codex":            release,
		"codex app-server": "started and answered",
		"login":            "needs no OpenAI sign-in",
		"state":            stateDir,
		"folder":           env.Work,
	} {
		if c := check(r, name); c.Status != checkOK || !strings.Contains(c.Detail, want) {
			t.Errorf("check %s: %+v, want OK with %q", name, c, want)
		}
	}
	if s := setting(r, "codex.home"); s.Source != "settings file" || !strings.Contains(s.Value, env.CodexHome) {
		t.Errorf("codex.home: %+v", s)
	}
	if s := setting(r, "codex.sandbox"); s.Source != "default" || s.Value != `"workspace-write"` {
		t.Errorf("codex.sandbox: %+v", s)
	}
	if _, err := os.Stat(stateDir); !os.IsNotExist(err) {
		t.Errorf("the doctor created the state folder: %v", err)
	}
}

// TestDoctorBroken: what blocks a turn is a FAIL with what to do, and the exit status is 1.
func TestDoctorBroken(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("CODEX_API_KEY", "")
	t.Run("no codex, state folder a file", func(t *testing.T) {
		stateFile := filepath.Join(t.TempDir(), "state")
		if err := os.WriteFile(stateFile, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		settings := writeSettings(t, map[string]any{"stateDir": stateFile})
		code, r, out := doctorRun(t, "--codex", "/nonexistent/codex", "--settings", settings, t.TempDir())
		if code != 1 {
			t.Errorf("exit %d, want 1:\n%s", code, out)
		}
		if c := check(r, "codex"); c.Status != checkFail || !strings.Contains(c.Fix, "npm install -g "+codex.NpmPackage+"@"+codex.TestedVersion) {
			t.Errorf("codex check: %+v", c)
		}
		if c := check(r, "state"); c.Status != checkFail || !strings.Contains(c.Detail, "not a folder") {
			t.Errorf("state check: %+v", c)
		}
		if s := setting(r, "codex.path"); s.Source != "command line (--codex)" {
			t.Errorf("codex.path: %+v", s)
		}
	})
	t.Run("not signed in", func(t *testing.T) {
		env := codextest.NewReal(t)
		home := t.TempDir() // a codex home without the fake model: codex's own provider, no login
		settings := writeSettings(t, map[string]any{"codex": map[string]any{"path": env.Binary, "home": home, "env": env.CodexEnv()}})
		code, r, out := doctorRun(t, "--settings", settings, env.Work)
		if code != 1 {
			t.Errorf("exit %d, want 1:\n%s", code, out)
		}
		if c := check(r, "login"); c.Status != checkFail || !strings.Contains(c.Fix, "hermes.login") {
			t.Errorf("login check: %+v", c)
		}
	})
	t.Run("settings file broken", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, r, _ := doctorRun(t, "--settings", path, t.TempDir())
		if c := check(r, "settings"); code != 1 || c.Status != checkFail {
			t.Errorf("exit %d, settings check %+v", code, c)
		}
	})
}

// TestDoctorText: the report for a person names each check's status and what to do.
func TestDoctorText(t *testing.T) {
	var out bytes.Buffer
	code := run([]string{"doctor", "--codex", "/nonexistent/codex", t.TempDir()}, nil, &out, &bytes.Buffer{})
	text := out.String()
	if code != 1 || !strings.Contains(text, "FAIL  codex") || !strings.Contains(text, "-> install it") || !strings.Contains(text, "problem blocks a turn") {
		t.Errorf("exit %d, text:\n%s", code, text)
	}
}

// TestDoctorCodexRelease: the doctor places codex's release in the supported range and lists the
// known problems of the release; it refuses one older than the range.
func TestDoctorCodexRelease(t *testing.T) {
	for _, c := range []struct {
		version  string
		status   string
		detail   string
		problems []string
		runs     bool
	}{
		{codex.TestedVersion, checkOK, "the version hermes-lsp is tested with; it supports " + codex.SupportedRange(), nil, true},
		{"0.167.2", checkOK, "supported: hermes-lsp supports " + codex.SupportedRange(), []string{"thread/list ignores includedThreadIds", "turn/interrupt", "modelProviderMismatch"}, true},
		{"0.169.1", checkOK, "supported", []string{"thread/list ignores includedThreadIds"}, true},
		{"0.172.0", checkWarn, "newer than " + codex.TestedVersion, nil, true},
		{"0.150.0", checkFail, "older than " + codex.MinVersion, nil, false},
		{"", checkWarn, "names no version (hermes-lsp supports " + codex.SupportedRange(), nil, true},
	} {
		r := &doctorReport{}
		runs := r.checkCodexRelease("/bin/codex", "codex-cli "+c.version, c.version)
		main := check(*r, "codex")
		if runs != c.runs || main.Status != c.status || !strings.Contains(main.Detail, c.detail) {
			t.Errorf("%s: runs %v, %+v; want %v, %s with %q", c.version, runs, main, c.runs, c.status, c.detail)
		}
		if c.status != checkOK && !strings.Contains(main.Fix, "npm install -g "+codex.NpmPackage+"@"+codex.TestedVersion) {
			t.Errorf("%s: fix %q", c.version, main.Fix)
		}
		var problems []doctorCheck
		for _, pc := range r.Checks {
			if pc.Name == "codex "+c.version {
				problems = append(problems, pc)
			}
		}
		if len(problems) != len(c.problems) {
			t.Errorf("%s: problems %+v, want %q", c.version, problems, c.problems)
			continue
		}
		for i, want := range c.problems {
			if p := problems[i]; p.Status != checkWarn || !strings.Contains(p.Detail, want) || p.Fix == "" {
				t.Errorf("%s: problem %+v, want %q", c.version, p, want)
			}
		}
	}
}

// TestDoctorACPAgent: with --agent acp the doctor checks the agent's program instead of codex: a
// program that is not there fails with how to mend it; one that is passes; the settings show the
// agent.
func TestDoctorACPAgent(t *testing.T) {
	folder := t.TempDir()
	env := func(string) string { return "" }
	r := runDoctor(t.Context(), doctorOptions{Version: "test", Folder: folder, Getenv: env,
		Agent: agenthost.AgentConfig{Kind: agenthost.AgentACP, Command: filepath.Join(folder, "no-such-agent")}})
	if r.OK() || !hasCheck(r, "agent", checkFail) || hasCheck(r, "codex", checkOK) {
		t.Errorf("a missing agent: %+v", r.Checks)
	}
	bin, args, envs, err := acptest.Command("doctor")
	if err != nil {
		t.Fatal(err)
	}
	agentEnv := map[string]string{}
	for _, kv := range envs {
		k, v, _ := strings.Cut(kv, "=")
		agentEnv[k] = v
	}
	r = runDoctor(t.Context(), doctorOptions{Version: "test", Folder: folder, Getenv: env, Timeout: 20 * time.Second,
		Agent: agenthost.AgentConfig{Kind: agenthost.AgentACP, Command: bin, Args: args, Env: agentEnv}})
	if !r.OK() || !hasCheck(r, "agent", checkOK) || !hasCheck(r, "agent starts", checkOK) {
		t.Errorf("an agent that is there: %+v", r.Checks)
	}
	var started string
	for _, c := range r.Checks {
		if c.Name == "agent starts" {
			started = c.Detail
		}
	}
	if !strings.Contains(started, "doctor-agent 2.0.0 answered initialize") || !strings.Contains(started, "supports: threads, resume") || !strings.Contains(started, "lacks: history") {
		t.Errorf("the agent's start: %q", started)
	}
	var kind, argsShown string
	for _, s := range r.Settings {
		switch s.Key {
		case "agent.kind":
			kind = s.Value
		case "agent.args":
			argsShown = s.Value
		}
	}
	if kind != `"acp"` || argsShown != `["-test.run=^$"]` {
		t.Errorf("the agent's settings: %+v", r.Settings)
	}
}

func hasCheck(r *doctorReport, name, status string) bool {
	for _, c := range r.Checks {
		if c.Name == name && c.Status == status {
			return true
		}
	}
	return false
}
