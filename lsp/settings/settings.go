// Package settings are the server's `hermes` settings: their shape and defaults, parsing them with
// every value bounded, and which of them are trusted (can run a program or lower approvals) and so
// change only with the user's yes when a workspace brings them.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// Settings are the server's `hermes` settings, as docs/protocol.md documents them.
type Settings struct {
	Codex CodexSettings `json:"codex"`
	// Agent says which agent runs the turns: codex (the default) or an ACP agent.
	Agent              AgentSettings                `json:"agent"`
	Approvals          ApprovalSettings             `json:"approvals"`
	Yolo               bool                         `json:"yolo"`
	TurnTimeoutSeconds float64                      `json:"turnTimeoutSeconds"`
	FallbackProviders  []agenthost.FallbackProvider `json:"fallbackProviders"`
	Prewarm            bool                         `json:"prewarm"`
	OpenTranscript     bool                         `json:"openTranscript"`
	TurnEvents         bool                         `json:"turnEvents"`
	CommandPrefix      string                       `json:"commandPrefix"`
	// InlineStatus shows a turn's state as an inlay hint at the end of the line it was asked from.
	InlineStatus bool `json:"inlineStatus"`
	// InstructionHints marks `hermes:` lines nobody has run yet with a Hint diagnostic.
	InstructionHints bool `json:"instructionHints"`
	// Review says whether reviews show, and when one starts by itself.
	Review ReviewSettings `json:"review"`
	// Edits says what the server makes of the agent's edits.
	Edits    EditsSettings `json:"edits"`
	StateDir string        `json:"stateDir"`

	openTranscriptSet bool // the user chose; else it follows the client's showDocument support
}

// CodexSettings say how to run codex.
type CodexSettings struct {
	Path           string            `json:"path"`
	Args           []string          `json:"args"`
	Home           string            `json:"home"`
	Env            map[string]string `json:"env"`
	Model          string            `json:"model"`
	ApprovalPolicy string            `json:"approvalPolicy"`
	Sandbox        string            `json:"sandbox"`
	// StartTimeoutSeconds bounds starting codex, up to its answer to initialize (default 30).
	StartTimeoutSeconds float64 `json:"startTimeoutSeconds"`
}

// AgentSettings say which agent runs the turns (trusted: they can run a program).
type AgentSettings struct {
	// Kind is "codex" (the default) or "acp".
	Kind    string            `json:"kind"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// ApprovalSettings say how approvals are answered.
type ApprovalSettings struct {
	Mode           string  `json:"mode"` // manual or off; the boolean false means off
	TimeoutSeconds float64 `json:"timeoutSeconds"`
}

// OpenTranscriptSet reports whether the settings chose openTranscript (else it follows the
// client's showDocument support).
func (st Settings) OpenTranscriptSet() bool { return st.openTranscriptSet }

// Default are the settings before the editor says anything.
func Default() Settings {
	return Settings{
		Codex:              CodexSettings{ApprovalPolicy: "untrusted", Sandbox: "workspace-write", StartTimeoutSeconds: agenthost.DefaultStartTimeout.Seconds()},
		Approvals:          ApprovalSettings{Mode: agenthost.ApprovalsManual, TimeoutSeconds: agenthost.DefaultApprovalTimeout.Seconds()},
		TurnTimeoutSeconds: agenthost.DefaultTurnTimeout.Seconds(),
		InlineStatus:       true,
		InstructionHints:   true,
		Review:             ReviewSettings{Enabled: true},
		Edits:              EditsSettings{Review: true},
	}
}

// HostConfig is the agent host's configuration for these settings.
func (st Settings) HostConfig() agenthost.Config {
	return agenthost.Config{
		CodexPath:       st.Codex.Path,
		CodexArgs:       slices.Clone(st.Codex.Args),
		CodexHome:       st.Codex.Home,
		CodexEnv:        st.Codex.Env,
		Model:           st.Codex.Model,
		ApprovalPolicy:  st.Codex.ApprovalPolicy,
		Sandbox:         st.Codex.Sandbox,
		ApprovalsMode:   st.Approvals.Mode,
		ApprovalTimeout: time.Duration(st.Approvals.TimeoutSeconds * float64(time.Second)),
		Yolo:            st.Yolo,
		TurnTimeout:     time.Duration(st.TurnTimeoutSeconds * float64(time.Second)),
		Fallbacks:       slices.Clone(st.FallbackProviders),
		StateDir:        st.StateDir,
		StartTimeout:    time.Duration(st.Codex.StartTimeoutSeconds * float64(time.Second)),
		Agent: agenthost.AgentConfig{
			Kind: agenthost.AgentKind(st.Agent.Kind), Command: st.Agent.Command,
			Args: slices.Clone(st.Agent.Args), Env: maps.Clone(st.Agent.Env),
		},
	}
}

// known lists every settings key, nested keys with a dot.
var known = map[string][]string{
	// token is the socket token (handshake.go), read before settings are parsed; it is no setting.
	"":          {"codex", "agent", "approvals", "yolo", "turnTimeoutSeconds", "fallbackProviders", "prewarm", "openTranscript", "turnEvents", "commandPrefix", "stateDir", "inlineStatus", "instructionHints", "review", "edits", "token"},
	"review":    {"enabled", "afterTurn"},
	"edits":     {"review"},
	"codex":     {"path", "args", "home", "env", "model", "approvalPolicy", "sandbox", "startTimeoutSeconds"},
	"agent":     {"kind", "command", "args", "env"},
	"approvals": {"mode", "timeoutSeconds"},
}

// Bounds of settings that are not trusted (trust.go), whatever their source: a workspace can set
// them (a repository writes its own .vscode/settings.json, and VS Code sends those values in
// initializationOptions too), so they must not disarm anything. A shorter approval wait would
// decline every command before its question showed; a shorter turn deadline would end every turn
// as it starts. A timeout outside its bounds is brought inside them with a warning (0 stays: it is
// the default); a model name that cannot be one is refused.
const (
	// MinApprovalTimeoutSeconds is the least approvals.timeoutSeconds.
	MinApprovalTimeoutSeconds = 10
	// MinTurnTimeoutSeconds is the least turnTimeoutSeconds.
	MinTurnTimeoutSeconds = 30
	// MaxTimeoutSeconds is the most either timeout may be: a week, past which a wait is no wait.
	MaxTimeoutSeconds = 7 * 24 * 60 * 60
	// MaxModelLength is the most characters of a model name, in settings and commands alike.
	MaxModelLength = 200
)

// Parse applies raw settings over base. raw is the `hermes` object, or an object holding
// it under "hermes" (as didChangeConfiguration sends it). A null or empty raw keeps base (Helix
// answers workspace/configuration with null). Unknown keys, and timeouts brought inside their
// bounds, come back as warnings; a value of the wrong type, or one that cannot be meant (a
// negative timeout, a model name too long or holding control characters), is an error that names
// the key, and base is kept whole.
func Parse(raw json.RawMessage, base Settings) (Settings, []string, error) {
	return ParseWithMinTurn(raw, base, MinTurnTimeoutSeconds)
}

// ParseWithMinTurn is [Parse] with the least turn timeout a server takes (lsp.Options.MinTurnTimeout,
// which tests lower).
func ParseWithMinTurn(raw json.RawMessage, base Settings, minTurnSeconds float64) (Settings, []string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return base, nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return base, nil, fmt.Errorf("settings must be an object: %v", err)
	}
	if inner, ok := top["hermes"]; ok {
		return ParseWithMinTurn(inner, base, minTurnSeconds)
	}
	st := base
	st.Codex.Args = slices.Clone(base.Codex.Args)
	var warnings []string
	warnings = append(warnings, unknownKeys("", top)...)

	field := func(key string, into any) error {
		v, ok := top[key]
		if !ok || string(v) == "null" {
			return nil
		}
		if err := json.Unmarshal(v, into); err != nil {
			return fmt.Errorf("hermes.%s: %s", key, TypeError(err))
		}
		return nil
	}
	if v, ok := top["codex"]; ok && string(v) != "null" {
		var codex map[string]json.RawMessage
		if err := json.Unmarshal(v, &codex); err != nil {
			return base, nil, fmt.Errorf("hermes.codex: must be an object")
		}
		warnings = append(warnings, unknownKeys("codex", codex)...)
		sub := Settings{Codex: st.Codex}
		if err := json.Unmarshal(v, &sub.Codex); err != nil {
			return base, nil, fmt.Errorf("hermes.codex: %s", TypeError(err))
		}
		st.Codex = sub.Codex
	}
	if v, ok := top["agent"]; ok && string(v) != "null" {
		var agent map[string]json.RawMessage
		if err := json.Unmarshal(v, &agent); err != nil {
			return base, nil, fmt.Errorf("hermes.agent: must be an object")
		}
		warnings = append(warnings, unknownKeys("agent", agent)...)
		sub := AgentSettings{}
		if err := json.Unmarshal(v, &sub); err != nil {
			return base, nil, fmt.Errorf("hermes.agent: %s", TypeError(err))
		}
		st.Agent = sub
	}
	if v, ok := top["approvals"]; ok && string(v) != "null" {
		var ap map[string]json.RawMessage
		if err := json.Unmarshal(v, &ap); err != nil {
			return base, nil, fmt.Errorf("hermes.approvals: must be an object")
		}
		warnings = append(warnings, unknownKeys("approvals", ap)...)
		if m, ok := ap["mode"]; ok {
			var mode any
			_ = json.Unmarshal(m, &mode)
			parsed, err := agenthost.ParseApprovalsMode(mode)
			if err != nil {
				return base, nil, fmt.Errorf("hermes.%s", err)
			}
			st.Approvals.Mode = parsed
		}
		if t, ok := ap["timeoutSeconds"]; ok && string(t) != "null" {
			if err := json.Unmarshal(t, &st.Approvals.TimeoutSeconds); err != nil {
				return base, nil, fmt.Errorf("hermes.approvals.timeoutSeconds: %s", TypeError(err))
			}
		}
	}
	for _, f := range []struct {
		key  string
		into any
	}{
		{"yolo", &st.Yolo}, {"turnTimeoutSeconds", &st.TurnTimeoutSeconds}, {"fallbackProviders", &st.FallbackProviders},
		{"prewarm", &st.Prewarm}, {"openTranscript", &st.OpenTranscript}, {"turnEvents", &st.TurnEvents},
		{"commandPrefix", &st.CommandPrefix}, {"stateDir", &st.StateDir},
		{"inlineStatus", &st.InlineStatus}, {"instructionHints", &st.InstructionHints}, {"review", &st.Review},
		{"edits", &st.Edits},
	} {
		if err := field(f.key, f.into); err != nil {
			return base, nil, err
		}
	}
	if v, ok := top["review"]; ok && string(v) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) == nil {
			warnings = append(warnings, unknownKeys("review", m)...)
		}
		if st.Review.AfterTurn.MinToolCalls < 0 {
			return base, nil, fmt.Errorf("hermes.review.afterTurn.minToolCalls must not be negative")
		}
	}
	if v, ok := top["edits"]; ok && string(v) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) == nil {
			warnings = append(warnings, unknownKeys("edits", m)...)
		}
	}
	if _, ok := top["openTranscript"]; ok {
		st.openTranscriptSet = true
	}
	if err := CheckCodexArgs(st.Codex.Args); err != nil {
		return base, nil, fmt.Errorf("hermes.codex.args: %w", err)
	}
	if st.TurnTimeoutSeconds < 0 || st.Approvals.TimeoutSeconds < 0 || st.Codex.StartTimeoutSeconds < 0 {
		return base, nil, fmt.Errorf("hermes: timeouts must not be negative")
	}
	if w := clampSeconds("approvals.timeoutSeconds", &st.Approvals.TimeoutSeconds, MinApprovalTimeoutSeconds); w != "" {
		warnings = append(warnings, w)
	}
	if w := clampSeconds("turnTimeoutSeconds", &st.TurnTimeoutSeconds, minTurnSeconds); w != "" {
		warnings = append(warnings, w)
	}
	if err := CheckModelName(st.Codex.Model); err != nil {
		return base, nil, fmt.Errorf("hermes.codex.model: %w", err)
	}
	// Let the host validate what it alone understands (policies, sandbox, fallbacks).
	if err := agenthost.Validate(st.HostConfig()); err != nil {
		return base, nil, fmt.Errorf("hermes: %w", err)
	}
	return st, warnings, nil
}

// clampSeconds brings *seconds, the timeout of key, inside [least, MaxTimeoutSeconds] and says what
// it did, or "" when it was inside already. 0 stays: it means the default.
func clampSeconds(key string, seconds *float64, least float64) string {
	was := *seconds
	switch {
	case was == 0:
		return ""
	case was < least:
		*seconds = least
	case was > MaxTimeoutSeconds:
		*seconds = MaxTimeoutSeconds
	default:
		return ""
	}
	return fmt.Sprintf("hermes.%s %g is outside %g..%d seconds: %g is used", key, was, least, MaxTimeoutSeconds, *seconds)
}

// CheckModelName refuses what cannot be a model name: more than MaxModelLength characters, or
// control or format characters (a terminal escape, a line break, a bidirectional override). The
// error shows the name as one short line of plain text.
func CheckModelName(model string) error {
	if n := utf8.RuneCountInString(model); n > MaxModelLength {
		return fmt.Errorf("%q is %d characters long: a model name has at most %d", safetext.LineCut(model, 40), n, MaxModelLength)
	}
	if safetext.LineCut(model, MaxModelLength) != model {
		return fmt.Errorf("%q holds control characters: not a model name", safetext.LineCut(model, 40))
	}
	return nil
}

func unknownKeys(prefix string, m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		if !slices.Contains(known[prefix], k) {
			name := k
			if prefix != "" {
				name = prefix + "." + k
			}
			out = append(out, "unknown setting hermes."+name+" (ignored)")
		}
	}
	sort.Strings(out)
	return out
}

// TypeError turns a json error into words a person can act on.
func TypeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		where := te.Field
		if where != "" {
			where = " at " + where
		}
		return fmt.Sprintf("expected %s%s, got a %s", te.Type, where, te.Value)
	}
	return err.Error()
}

// ReviewSettings are the `review` settings.
type ReviewSettings struct {
	// Enabled shows reviews at all: the command, the code actions, the findings.
	Enabled bool `json:"enabled"`
	// AfterTurn starts a review of the uncommitted changes after a completed turn that changed
	// files with at least MinToolCalls tool calls (0: never).
	AfterTurn struct {
		MinToolCalls int `json:"minToolCalls"`
	} `json:"afterTurn"`
}

// EditsSettings are the `edits` settings.
type EditsSettings struct {
	// Review makes the hunks of the agent's patches changes under review (lsp/changes): shown where
	// they are, kept or reverted one by one.
	Review bool `json:"review"`
}

// IsEmpty reports settings that say nothing: absent, null or {}.
func IsEmpty(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null" || string(raw) == "{}"
}
