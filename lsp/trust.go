package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/lsp/hermesproto"
)

// Trusted settings are the ones that can run a program or lower approvals. They are taken from the
// command line, the environment and initializationOptions (the editor's launch configuration): a
// workspace's own settings (workspace/configuration, didChangeConfiguration) can be written by a
// repository, so a change they bring is applied only after the user says yes, once per folder and
// value. A change that makes things safer (asking again, a tighter sandbox) needs no yes.

// Titles of the question about a trusted setting. "Keep asking" comes first: an editor that
// pre-selects the first action must never grant by an accidental Enter.
const (
	ActionKeepAsking = hermesproto.TrustActionKeepAsking
	ActionAllow      = hermesproto.TrustActionAllow
)

// trustedField is one trusted setting.
type trustedField struct {
	key string
	// value is the setting's value, normalised so that absent and empty compare equal.
	value func(Settings) any
	// copy sets the field of dst from src.
	copy func(dst *Settings, src Settings)
	// needsYes reports whether moving from old to new needs the user's yes; nil means any change does.
	needsYes func(old, new Settings) bool
	// what says what the new value does, for the question: "This workspace wants to <what>".
	what func(Settings) string
}

var trustedFields = []trustedField{
	{
		key:      "yolo",
		value:    func(s Settings) any { return s.Yolo },
		copy:     func(d *Settings, s Settings) { d.Yolo = s.Yolo },
		needsYes: func(old, new Settings) bool { return new.Yolo && !old.Yolo },
		what:     func(Settings) string { return "turn approvals off (hermes.yolo = true)" },
	},
	{
		key:   "approvals.mode",
		value: func(s Settings) any { return s.Approvals.Mode },
		copy:  func(d *Settings, s Settings) { d.Approvals.Mode = s.Approvals.Mode },
		needsYes: func(old, new Settings) bool {
			return new.Approvals.Mode != old.Approvals.Mode && new.Approvals.Mode != "manual"
		},
		what: func(s Settings) string {
			return fmt.Sprintf("turn approvals off (hermes.approvals.mode = %q)", s.Approvals.Mode)
		},
	},
	{
		key:   "codex.approvalPolicy",
		value: func(s Settings) any { return s.Codex.ApprovalPolicy },
		copy:  func(d *Settings, s Settings) { d.Codex.ApprovalPolicy = s.Codex.ApprovalPolicy },
		needsYes: func(old, new Settings) bool {
			return new.Codex.ApprovalPolicy != old.Codex.ApprovalPolicy && new.Codex.ApprovalPolicy != codex.ApprovalUntrusted
		},
		what: func(s Settings) string {
			return fmt.Sprintf("turn approvals off (hermes.codex.approvalPolicy = %q: codex runs commands without asking first)", s.Codex.ApprovalPolicy)
		},
	},
	{
		key:   "codex.sandbox",
		value: func(s Settings) any { return s.Codex.Sandbox },
		copy:  func(d *Settings, s Settings) { d.Codex.Sandbox = s.Codex.Sandbox },
		needsYes: func(old, new Settings) bool {
			return new.Codex.Sandbox != old.Codex.Sandbox && new.Codex.Sandbox == codex.SandboxFullAccess
		},
		what: func(s Settings) string {
			return fmt.Sprintf("turn codex's sandbox off (hermes.codex.sandbox = %q)", s.Codex.Sandbox)
		},
	},
	{
		key:   "codex.path",
		value: func(s Settings) any { return s.Codex.Path },
		copy:  func(d *Settings, s Settings) { d.Codex.Path = s.Codex.Path },
		what:  func(s Settings) string { return fmt.Sprintf("run codex from %q (hermes.codex.path)", s.Codex.Path) },
	},
	{
		key:   "codex.args",
		value: func(s Settings) any { return nonEmpty(s.Codex.Args) },
		copy:  func(d *Settings, s Settings) { d.Codex.Args = slices.Clone(s.Codex.Args) },
		what: func(s Settings) string {
			return fmt.Sprintf("start codex with the arguments %q (hermes.codex.args)", s.Codex.Args)
		},
	},
	{
		key:   "codex.env",
		value: func(s Settings) any { return nonEmptyMap(s.Codex.Env) },
		copy:  func(d *Settings, s Settings) { d.Codex.Env = maps.Clone(s.Codex.Env) },
		what: func(s Settings) string {
			return fmt.Sprintf("set codex's environment variables %s (hermes.codex.env)", strings.Join(slices.Sorted(maps.Keys(s.Codex.Env)), ", "))
		},
	},
	{
		key:   "codex.home",
		value: func(s Settings) any { return s.Codex.Home },
		copy:  func(d *Settings, s Settings) { d.Codex.Home = s.Codex.Home },
		what: func(s Settings) string {
			return fmt.Sprintf("use %q as codex's home (hermes.codex.home)", s.Codex.Home)
		},
	},
	{
		key:   "stateDir",
		value: func(s Settings) any { return s.StateDir },
		copy:  func(d *Settings, s Settings) { d.StateDir = s.StateDir },
		what:  func(s Settings) string { return fmt.Sprintf("keep Hermes's state in %q (hermes.stateDir)", s.StateDir) },
	},
	{
		key:   "fallbackProviders",
		value: func(s Settings) any { return nonEmpty(s.FallbackProviders) },
		copy:  func(d *Settings, s Settings) { d.FallbackProviders = slices.Clone(s.FallbackProviders) },
		what: func(s Settings) string {
			var urls []string
			for _, f := range s.FallbackProviders {
				urls = append(urls, f.BaseURL)
			}
			return fmt.Sprintf("send your prompts to the fallback providers at %s (hermes.fallbackProviders)", strings.Join(urls, ", "))
		},
	},
}

func nonEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nonEmptyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// sameValue compares two setting values by their JSON form.
func sameValue(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// trustedAsk is one change of a trusted setting that needs the user's yes.
type trustedAsk struct {
	field trustedField
	memo  string // folder scope, key and value: the user is asked once for each
}

// gateTrusted returns next with every trusted change a workspace source brought and the user did not
// allow put back to its value in cur. It asks about each change once per folder and value; a change
// toward safety passes without asking. It holds no lock while a question waits.
func (s *Server) gateTrusted(ctx context.Context, cur, next Settings) Settings {
	scope := s.trustScope()
	var asks []trustedAsk
	for _, f := range trustedFields {
		if sameValue(f.value(cur), f.value(next)) {
			continue
		}
		if f.needsYes != nil && !f.needsYes(cur, next) {
			continue
		}
		value, _ := json.Marshal(f.value(next))
		asks = append(asks, trustedAsk{field: f, memo: scope + "\x00" + f.key + "\x00" + string(value)})
	}
	for _, a := range asks {
		s.mu.Lock()
		allowed, answered := s.trustAnswers[a.memo]
		s.mu.Unlock()
		if !answered {
			allowed = s.askTrusted(ctx, a.field.what(next))
			s.mu.Lock()
			s.trustAnswers[a.memo] = allowed
			s.mu.Unlock()
			if !allowed {
				s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
					"Hermes kept hermes.%s as it was: the workspace's settings may not %s without your yes. "+
						"To change it for good, set it where the editor starts hermes-lsp (initializationOptions) or on its command line.",
					a.field.key, a.field.what(next)))
			}
		}
		if allowed {
			s.log.Warn("a workspace changed a trusted setting, allowed by the user", "setting", a.field.key)
			continue
		}
		s.log.Warn("kept a trusted setting the workspace tried to change", "setting", a.field.key)
		a.field.copy(&next, cur)
	}
	return next
}

// askTrusted asks the user whether the workspace may do what; no answer, an error or an editor that
// cannot ask all mean no.
func (s *Server) askTrusted(ctx context.Context, what string) bool {
	s.mu.Lock()
	canAsk := s.caps.showMessage
	timeout := s.settings.Approvals.TimeoutSeconds
	s.mu.Unlock()
	if !canAsk {
		return false
	}
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: "This workspace wants to " + what + ": Allow / Keep asking?\nIt comes from the workspace's settings, which a repository can write; \"Keep asking\" keeps the current value.",
		Actions: []protocol.MessageActionItem{{Title: ActionKeepAsking}, {Title: ActionAllow}},
	}
	ctx, cancel := context.WithTimeout(ctx, secondsOr(timeout, 300))
	defer cancel()
	var choice *protocol.MessageActionItem
	if _, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, params, &choice); err != nil {
		s.log.Info("could not ask about a trusted setting; keeping it", "err", err)
		return false
	}
	return choice != nil && choice.Title == ActionAllow
}

// trustScope names the workspace the settings came from: its folders.
func (s *Server) trustScope() string {
	var paths []string
	for _, f := range s.folders.List() {
		paths = append(paths, f.Path)
	}
	return strings.Join(paths, "\x01")
}
