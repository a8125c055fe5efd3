package settings

// Trusted settings are the ones that can run a program or lower approvals. They are taken from the
// command line, the environment and initializationOptions (the editor's launch configuration): a
// workspace's own settings (workspace/configuration, didChangeConfiguration) can be written by a
// repository, so a change they bring is applied only after the user says yes. A change that makes
// things safer (asking again, a tighter sandbox) needs no yes.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/codex"
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
		key:   "agent.kind",
		value: func(s Settings) any { return s.Agent.Kind },
		copy:  func(d *Settings, s Settings) { d.Agent.Kind = s.Agent.Kind },
		what: func(s Settings) string {
			return fmt.Sprintf("run the turns on another agent (hermes.agent.kind = %q)", s.Agent.Kind)
		},
	},
	{
		key:   "agent.command",
		value: func(s Settings) any { return s.Agent.Command },
		copy:  func(d *Settings, s Settings) { d.Agent.Command = s.Agent.Command },
		what: func(s Settings) string {
			return fmt.Sprintf("run the agent %q (hermes.agent.command)", s.Agent.Command)
		},
	},
	{
		key:   "agent.args",
		value: func(s Settings) any { return nonEmpty(s.Agent.Args) },
		copy:  func(d *Settings, s Settings) { d.Agent.Args = slices.Clone(s.Agent.Args) },
		what: func(s Settings) string {
			return fmt.Sprintf("start the agent with the arguments %q (hermes.agent.args)", s.Agent.Args)
		},
	},
	{
		key:   "agent.env",
		value: func(s Settings) any { return nonEmptyMap(s.Agent.Env) },
		copy:  func(d *Settings, s Settings) { d.Agent.Env = maps.Clone(s.Agent.Env) },
		what: func(s Settings) string {
			return fmt.Sprintf("set the agent's environment variables %s (hermes.agent.env)", strings.Join(slices.Sorted(maps.Keys(s.Agent.Env)), ", "))
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

// TrustedChange is one change of a trusted setting that needs the user's yes.
type TrustedChange struct {
	// Key names the setting ("codex.path"), What says what the new value does, for the question
	// "This workspace wants to <What>", and Value is the new value as JSON.
	Key, What, Value string

	field trustedField
}

// Keep puts the setting back in next as it is in cur: the user did not allow the change.
func (c TrustedChange) Keep(next *Settings, cur Settings) { c.field.copy(next, cur) }

// TrustedChanges lists the changes from cur to next of trusted settings that need the user's yes.
func TrustedChanges(cur, next Settings) []TrustedChange {
	var out []TrustedChange
	for _, f := range trustedFields {
		if sameValue(f.value(cur), f.value(next)) {
			continue
		}
		if f.needsYes != nil && !f.needsYes(cur, next) {
			continue
		}
		value, _ := json.Marshal(f.value(next))
		out = append(out, TrustedChange{Key: f.key, What: f.what(next), Value: string(value), field: f})
	}
	return out
}
