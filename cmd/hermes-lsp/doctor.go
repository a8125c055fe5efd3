package main

// This file is `hermes-lsp doctor`: it checks what a server needs to run a turn in a folder (the
// codex binary and its version, codex's sign-in, the state folder) and prints the settings in
// force with where each came from. Neovim's :checkhealth reads its --json report.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Statuses of a doctor's check.
const (
	checkOK   = "OK"
	checkWarn = "WARN"
	checkFail = "FAIL" // a turn cannot run until it is fixed
)

// doctorCheck is one finding.
type doctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Fix says what to do, for a WARN or FAIL.
	Fix string `json:"fix,omitempty"`
}

// doctorSetting is a setting in force and where its value came from: "default", "command line",
// "environment" or "settings file".
type doctorSetting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// doctorReport is the doctor's answer.
type doctorReport struct {
	Version  string          `json:"version"`
	Folder   string          `json:"folder"`
	Checks   []doctorCheck   `json:"checks"`
	Settings []doctorSetting `json:"settings"`
}

// OK reports whether nothing blocks a turn.
func (r *doctorReport) OK() bool {
	for _, c := range r.Checks {
		if c.Status == checkFail {
			return false
		}
	}
	return true
}

// doctorOptions are the doctor's inputs: what the server would get from its command line, its
// environment and the editor's settings.
type doctorOptions struct {
	Version string
	// Folder is the workspace folder a turn would run in.
	Folder string
	// CodexFlag and YoloFlag are the server's --codex and --yolo.
	CodexFlag string
	YoloFlag  bool
	// Agent is the agent of the server's --agent flags and HERMES_AGENT_* (no Kind: none).
	Agent agenthost.AgentConfig
	// SettingsFile holds the editor's hermes settings as JSON (what it sends in
	// initializationOptions.hermes); empty: none.
	SettingsFile string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Timeout bounds each step that runs codex (default 30 s).
	Timeout time.Duration
}

// runDoctor checks everything and returns the report; it never fails, a problem is a check.
func runDoctor(ctx context.Context, o doctorOptions) *doctorReport {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	r := &doctorReport{Version: o.Version, Folder: o.Folder}
	r.add(doctorCheck{Name: "hermes-lsp", Status: checkOK, Detail: fmt.Sprintf("%s (%s, %s/%s)", o.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)})
	folderOK := r.checkFolder(o.Folder)
	st, ok := r.settings(ctx, o)
	if !ok {
		return r
	}
	if st.Agent.Kind == string(agenthost.AgentACP) {
		r.checkAgent(ctx, o, st)
		r.checkStateDir(st.StateDir)
		return r
	}
	bin, found := r.checkCodexBinary(ctx, o, st)
	r.checkStateDir(st.StateDir)
	if found && folderOK {
		r.checkCodexRuns(ctx, o, st, bin)
	}
	return r
}

func (r *doctorReport) add(c doctorCheck) { r.Checks = append(r.Checks, c) }

// checkFolder checks that the folder named is one.
//
//hermes:ownfile the folder named on the command line: only whether it is one
func (r *doctorReport) checkFolder(folder string) bool {
	fi, err := os.Stat(folder)
	switch {
	case err != nil:
		r.add(doctorCheck{Name: "folder", Status: checkFail, Detail: err.Error(), Fix: "name a folder that exists: hermes-lsp doctor PATH"})
		return false
	case !fi.IsDir():
		r.add(doctorCheck{Name: "folder", Status: checkFail, Detail: folder + " is not a folder", Fix: "name the workspace folder, not a file"})
		return false
	}
	r.add(doctorCheck{Name: "folder", Status: checkOK, Detail: folder})
	return true
}

// settings are the settings in force, as the server would have them, with their sources.
func (r *doctorReport) settings(ctx context.Context, o doctorOptions) (settings.Settings, bool) {
	st := settings.Default()
	from := map[string]string{}
	if o.SettingsFile != "" {
		raw, err := workspace.ReadAnywhere(ctx, o.SettingsFile, 1<<20) // named on the command line
		if err == nil {
			var warnings []string
			st, warnings, err = settings.Parse(raw, st)
			for _, w := range warnings {
				r.add(doctorCheck{Name: "settings", Status: checkWarn, Detail: w})
			}
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil {
				for _, k := range flatKeys("", m) {
					from[k] = "settings file"
				}
			}
		}
		if err != nil {
			r.add(doctorCheck{Name: "settings", Status: checkFail, Detail: fmt.Sprintf("%s: %v", o.SettingsFile, err), Fix: "fix the settings file: a JSON object of hermes settings (docs/protocol.md)"})
			return st, false
		}
	}
	if o.CodexFlag != "" {
		st.Codex.Path, from["codex.path"] = o.CodexFlag, "command line (--codex)"
	}
	applyAgentFlags(&st, o, from)
	if st.StateDir == "" {
		st.StateDir = agenthost.DefaultStateDir()
		if o.Getenv("XDG_STATE_HOME") != "" {
			from["stateDir"] = "environment (XDG_STATE_HOME)"
		}
	}
	switch {
	case o.YoloFlag:
		st.Yolo, from["yolo"] = true, "command line (--yolo)"
	case o.Getenv("HERMES_YOLO_MODE") != "":
		on, warning := agenthost.YoloFromEnv()
		if warning != "" {
			r.add(doctorCheck{Name: "settings", Status: checkWarn, Detail: warning})
		}
		if on {
			st.Yolo, from["yolo"] = true, "environment (HERMES_YOLO_MODE)"
		}
	}
	if st.Codex.Home == "" && o.Getenv("CODEX_HOME") != "" {
		st.Codex.Home, from["codex.home"] = o.Getenv("CODEX_HOME"), "environment (CODEX_HOME)"
	}
	if st.Yolo || st.Approvals.Mode == agenthost.ApprovalsOff {
		r.add(doctorCheck{Name: "approvals", Status: checkWarn, Detail: "every command and patch is accepted without asking (auto-approval is on)", Fix: "drop --yolo / HERMES_YOLO_MODE / approvals.mode off to be asked again"})
	}
	r.Settings = settingRows(st, from)
	return st, true
}

var versionRE = regexp.MustCompile(`\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b`)

// checkCodexBinary finds codex as the server would and reads its version.
func (r *doctorReport) checkCodexBinary(ctx context.Context, o doctorOptions, st settings.Settings) (string, bool) {
	name := orDefault(st.Codex.Path, "codex")
	install := fmt.Sprintf("install it (npm install -g %s@%s) or set its path (--codex, or hermes.codex.path)", codex.NpmPackage, codex.TestedVersion)
	bin, err := exec.LookPath(name)
	if err != nil {
		r.add(doctorCheck{Name: "codex", Status: checkFail, Detail: fmt.Sprintf("%s not found: %v", name, err), Fix: install})
		return "", false
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		r.add(doctorCheck{Name: "codex", Status: checkFail, Detail: fmt.Sprintf("%s --version: %v", bin, err), Fix: "check that " + bin + " is codex; " + install})
		return bin, false
	}
	line := strings.TrimSpace(firstLine(string(out)))
	return bin, r.checkCodexRelease(bin, line, versionRE.FindString(line))
}

// checkCodexRelease says how codex's release stands against the range hermes-lsp supports, and
// lists the release's known problems; it reports false when hermes-lsp refuses the release.
func (r *doctorReport) checkCodexRelease(bin, line, version string) bool {
	c := codex.CompatOf(version)
	install := fmt.Sprintf("npm install -g %s@%s, or set hermes.codex.path (or --codex) to a codex from %s", codex.NpmPackage, codex.TestedVersion, codex.SupportedRange())
	switch c.Support {
	case codex.SupportTested:
		r.add(doctorCheck{Name: "codex", Status: checkOK, Detail: fmt.Sprintf("%s: %s (the version hermes-lsp is tested with; it supports %s)", bin, line, codex.SupportedRange())})
	case codex.SupportSupported:
		r.add(doctorCheck{Name: "codex", Status: checkOK, Detail: fmt.Sprintf("%s: %s (supported: hermes-lsp supports %s and is tested with %s)", bin, line, codex.SupportedRange(), codex.TestedVersion)})
	case codex.SupportTooOld:
		r.add(doctorCheck{Name: "codex", Status: checkFail, Detail: fmt.Sprintf("%s: %s; hermes-lsp refuses it", bin, c.Outside()), Fix: install})
		return false
	case codex.SupportUnknown:
		r.add(doctorCheck{Name: "codex", Status: checkWarn, Detail: fmt.Sprintf("%s: %q names no version (hermes-lsp supports %s)", bin, line, codex.SupportedRange()), Fix: "to be sure: " + install})
	default:
		r.add(doctorCheck{Name: "codex", Status: checkWarn, Detail: fmt.Sprintf("%s: %s", bin, c.Outside()), Fix: "if something fails: " + install})
	}
	for _, p := range c.Problems {
		r.add(doctorCheck{Name: "codex " + c.Version, Status: checkWarn, Detail: "known problem: " + p.What,
			Fix: fmt.Sprintf("%s; codex %s does not have it", p.Handling, codex.TestedVersion)})
	}
	return true
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// checkStateDir says where state goes and whether the server can keep it private there.
//
//hermes:ownfile the state folder, as the server would make it
func (r *doctorReport) checkStateDir(dir string) {
	fi, err := os.Lstat(dir)
	switch {
	case os.IsNotExist(err):
		parent := existingParent(dir)
		if err := writable(parent); err != nil {
			r.add(doctorCheck{Name: "state", Status: checkFail, Detail: fmt.Sprintf("%s does not exist and %s is not writable: %v", dir, parent, err), Fix: "set hermes.stateDir to a folder you can write"})
			return
		}
		r.add(doctorCheck{Name: "state", Status: checkOK, Detail: dir + " (created, private, at the first turn)"})
	case err != nil:
		r.add(doctorCheck{Name: "state", Status: checkFail, Detail: err.Error(), Fix: "set hermes.stateDir to a folder you can write"})
	case fi.Mode()&os.ModeSymlink != 0:
		r.add(doctorCheck{Name: "state", Status: checkFail, Detail: dir + " is a symbolic link: the server refuses it", Fix: "point hermes.stateDir at the real folder"})
	case !fi.IsDir():
		r.add(doctorCheck{Name: "state", Status: checkFail, Detail: dir + " is not a folder", Fix: "set hermes.stateDir to a folder"})
	default:
		if err := writable(dir); err != nil {
			r.add(doctorCheck{Name: "state", Status: checkFail, Detail: fmt.Sprintf("%s is not writable: %v", dir, err), Fix: "fix its permissions (chmod 700) or set hermes.stateDir"})
			return
		}
		mode := fi.Mode().Perm()
		if runtime.GOOS != "windows" && mode&0o077 != 0 {
			r.add(doctorCheck{Name: "state", Status: checkWarn, Detail: fmt.Sprintf("%s is open to other users (%04o)", dir, mode), Fix: "the server makes it private (0700) when it starts; chmod 700 it now"})
			return
		}
		r.add(doctorCheck{Name: "state", Status: checkOK, Detail: fmt.Sprintf("%s (%04o)", dir, mode)})
	}
}

// existingParent is dir's nearest parent that exists.
//
//hermes:ownfile the state folder's parents, to say where it would be made
func existingParent(dir string) string {
	for {
		parent := filepath.Dir(dir)
		if _, err := os.Stat(parent); err == nil || parent == dir {
			return parent
		}
		dir = parent
	}
}

// writable creates and removes a file in dir.
//
//hermes:ownfile a file of the doctor's own, made and removed in the state folder
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".hermes-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkCodexRuns starts codex as the server would (in the folder, with the settings, its state in
// a folder of its own) and asks who it is signed in as.
func (r *doctorReport) checkCodexRuns(ctx context.Context, o doctorOptions, st settings.Settings, bin string) {
	//hermes:ownfile a temporary state folder of the doctor's own
	tmp, err := os.MkdirTemp("", "hermes-doctor-")
	if err != nil {
		r.add(doctorCheck{Name: "codex app-server", Status: checkFail, Detail: err.Error()})
		return
	}
	//hermes:ownfile the doctor's temporary state folder
	defer os.RemoveAll(tmp)
	cfg := st.HostConfig()
	cfg.CodexPath = bin
	cfg.StateDir = tmp // the doctor leaves the real state as it is
	cfg.StartTimeout = o.Timeout
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	h, err := agenthost.New(cfg)
	if err != nil {
		r.add(doctorCheck{Name: "codex app-server", Status: checkFail, Detail: err.Error(), Fix: "fix the settings it names"})
		return
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	began := time.Now()
	if err := h.Prewarm(ctx); err != nil {
		r.add(doctorCheck{Name: "codex app-server", Status: checkFail, Detail: err.Error(), Fix: "run `" + bin + " app-server` by hand to see why it does not start"})
		return
	}
	r.add(doctorCheck{Name: "codex app-server", Status: checkOK, Detail: fmt.Sprintf("started and answered in %.1f s", time.Since(began).Seconds())})
	acc, err := h.Account(ctx)
	switch {
	case err != nil:
		r.add(doctorCheck{Name: "login", Status: checkWarn, Detail: "codex did not say: " + err.Error()})
	case acc == nil:
		r.add(doctorCheck{Name: "login", Status: checkWarn, Detail: "codex stopped before it could say"})
	case acc.Account != nil:
		who := acc.Account.Type
		if acc.Account.Email != "" {
			who = acc.Account.Email
			if acc.Account.PlanType != "" {
				who += " (" + acc.Account.PlanType + ")"
			}
		}
		r.add(doctorCheck{Name: "login", Status: checkOK, Detail: "codex is signed in as " + who})
	case !acc.RequiresOpenAIAuth:
		r.add(doctorCheck{Name: "login", Status: checkOK, Detail: "codex's model provider needs no OpenAI sign-in"})
	case o.Getenv("CODEX_API_KEY") != "" || o.Getenv("OPENAI_API_KEY") != "":
		r.add(doctorCheck{Name: "login", Status: checkWarn, Detail: "codex is not signed in; an API key is in the environment, which codex may use",
			Fix: "to be sure, sign in from the editor (hermes.login) or run `codex login --with-api-key`"})
	default:
		r.add(doctorCheck{Name: "login", Status: checkFail, Detail: "codex is not signed in",
			Fix: "sign in from the editor (VS Code: \"Hermes: Sign In\"; Neovim: :Hermes login; Helix: :lsp-workspace-command hermes.login), or run `codex login`"})
	}
}

// WriteText prints the report for a person.
func (r *doctorReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "hermes-lsp doctor: %s\n\n", r.Folder)
	fails := 0
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  %-4s  %-16s %s\n", c.Status, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, "        %-16s -> %s\n", "", c.Fix)
		}
		if c.Status == checkFail {
			fails++
		}
	}
	if len(r.Settings) > 0 {
		b.WriteString("\nsettings in force (the editor's own settings are not visible here: pass them with --settings FILE):\n")
		for _, s := range r.Settings {
			fmt.Fprintf(&b, "  %-26s %-40s %s\n", s.Key, s.Value, s.Source)
		}
	}
	switch fails {
	case 0:
		b.WriteString("\nNothing blocks a turn.\n")
	case 1:
		b.WriteString("\n1 problem blocks a turn (FAIL above).\n")
	default:
		fmt.Fprintf(&b, "\n%d problems block a turn (FAIL above).\n", fails)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// doctor is `hermes-lsp doctor [flags] [FOLDER]`: exit status 0 when nothing blocks a turn, 1 when
// something does, 2 on bad usage.
func doctor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hermes-lsp doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		codexBin = fs.String("codex", "", "the codex binary, as the server's --codex")
		agentKnd = fs.String("agent", "", "as the server's --agent")
		agentCmd = fs.String("agent-command", "", "as the server's --agent-command")
		agentArg stringList
		yolo     = fs.Bool("yolo", false, "as the server's --yolo")
		settings = fs.String("settings", "", "a JSON `FILE` with the editor's hermes settings (what it sends as initializationOptions.hermes)")
		asJSON   = fs.Bool("json", false, "print the report as JSON")
		timeout  = fs.Duration("timeout", 30*time.Second, "how long codex may take to start and answer")
	)
	fs.Var(&agentArg, "agent-arg", "as the server's --agent-arg")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: hermes-lsp doctor [flags] [FOLDER]\n\nChecks what a turn in FOLDER (default: the current folder) needs: the codex binary and its\nversion, codex's sign-in, the state folder; and prints the settings in force with their sources.\nExit status 1 when something blocks a turn.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "hermes-lsp doctor: one folder at most, got %d\n", fs.NArg())
		return exitUsage
	}
	folder := fs.Arg(0)
	if folder == "" {
		folder = "."
	}
	if abs, err := filepath.Abs(folder); err == nil {
		folder = abs
	}
	agent, err := agentFromFlags(*agentKnd, *agentCmd, agentArg, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-lsp doctor:", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r := runDoctor(ctx, doctorOptions{Version: version, Folder: folder, CodexFlag: *codexBin, YoloFlag: *yolo, Agent: agent, SettingsFile: *settings, Timeout: *timeout})
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "hermes-lsp doctor:", err)
		return 1
	}
	if !r.OK() {
		return 1
	}
	return 0
}
