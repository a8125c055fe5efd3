package agenthost

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/adrg/xdg"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// Approvals modes.
const (
	// ApprovalsManual asks the Approver for every request codex makes; without an answer it declines.
	ApprovalsManual = "manual"
	// ApprovalsOff accepts every exec and patch request; codex's sandbox stays the boundary.
	ApprovalsOff = "off"
)

// Config is how the host runs codex and treats its requests. The editor layer fills it from the
// editor's settings; zero fields take the defaults named on each.
type Config struct {
	// CodexPath is the codex binary (default "codex" on PATH).
	CodexPath string
	// CodexArgs are extra arguments after `app-server` (for example "-c", "key=value").
	CodexArgs []string
	// CodexHome is CODEX_HOME for codex (default: codex's own, ~/.codex).
	CodexHome string
	// CodexEnv is extra environment for codex.
	CodexEnv map[string]string
	// Model is the model for new and resumed threads (default: codex's configuration).
	Model string
	// ApprovalPolicy is codex's approval policy (default "untrusted": codex asks before every
	// command outside its safe list and every patch, which is what brings approvals to the editor).
	ApprovalPolicy string
	// Sandbox is codex's sandbox mode (default "workspace-write").
	Sandbox string

	// ApprovalsMode is "manual" (default) or "off".
	ApprovalsMode string
	// ApprovalTimeout bounds how long an approval waits for a person before it is declined (default 5m).
	ApprovalTimeout time.Duration
	// Yolo accepts every exec and patch request without asking (--yolo, HERMES_YOLO_MODE or the
	// yolo setting).
	Yolo bool
	// YoloSource says where Yolo came from, for AutoApprove: SourceFlag, SourceEnv or SourceConfig
	// (the default).
	YoloSource string
	// StartTimeout bounds starting codex, up to its answer to initialize (default 30s).
	StartTimeout time.Duration
	// TurnTimeout bounds a turn: on expiry it is interrupted and codex retired (default 10m).
	TurnTimeout time.Duration

	// Fallbacks are the fallback chain after the primary (codex's own provider), in order: when a
	// turn fails on the primary for quota, it is retried on the first; when a fallback fails too
	// (quota or any error), on the next (see session_fallback.go).
	Fallbacks []FallbackProvider
	// FallbackCooldown is how long a provider that failed a turn is skipped when its error does not
	// say when its limit resets (default 5m); a session's turns are back on the primary once the
	// primary's cooldown has passed.
	FallbackCooldown time.Duration

	// ClientVersion is the version reported to codex in initialize's clientInfo (default "dev").
	ClientVersion string

	// StateDir holds the per-folder state and the transcripts (default $XDG_STATE_HOME/hermes-lsp).
	StateDir string

	// Approver answers approvals in manual mode; nil declines them all (fail closed).
	Approver Approver
	// Logger receives the host's logs; nil discards them.
	Logger *slog.Logger

	// StartCodex starts a codex client; nil means codex.Start. Tests put a fake here.
	StartCodex func(ctx context.Context, opts codex.Options) (*codex.Client, error)
	// Agent says which agent runs the turns: codex (the default) or another agent.
	Agent AgentConfig
	// StartAgent starts an agent of a kind other than codex (AgentConfig.Kind), with opts as codex
	// would be started (its requests go to opts.OnRequest, its events to opts.OnNotification too);
	// nil refuses such a kind.
	StartAgent func(ctx context.Context, agent AgentConfig, opts codex.Options) (Agent, error)
	// OnCodexStarted, when set, is told what hermes-lsp makes of the release of each codex the host
	// starts (CodexWarning words it when it is outside the supported range). It runs while the host
	// starts codex: it must return at once and not call the host.
	OnCodexStarted func(codex.Compat)
}

// Defaults.
const (
	DefaultApprovalTimeout  = 5 * time.Minute
	DefaultTurnTimeout      = 10 * time.Minute
	DefaultStartTimeout     = 30 * time.Second
	DefaultFallbackCooldown = 5 * time.Minute
)

// withDefaults returns c with its zero fields set, or an error for a value no default can mend.
func (c Config) withDefaults() (Config, error) {
	if c.CodexPath == "" {
		c.CodexPath = "codex"
	}
	if err := oneOf("codex.approvalPolicy", &c.ApprovalPolicy, codex.ApprovalUntrusted, codex.ApprovalOnRequest, codex.ApprovalNever); err != nil {
		return c, err
	}
	if err := oneOf("codex.sandbox", &c.Sandbox, codex.SandboxWorkspaceWrite, codex.SandboxReadOnly, codex.SandboxFullAccess); err != nil {
		return c, err
	}
	if err := oneOf("approvals.mode", &c.ApprovalsMode, ApprovalsManual, ApprovalsOff); err != nil {
		return c, err
	}
	if c.ApprovalTimeout <= 0 {
		c.ApprovalTimeout = DefaultApprovalTimeout
	}
	if c.TurnTimeout <= 0 {
		c.TurnTimeout = DefaultTurnTimeout
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.FallbackCooldown <= 0 {
		c.FallbackCooldown = DefaultFallbackCooldown
	}
	names := make(map[string]bool, len(c.Fallbacks))
	for i, f := range c.Fallbacks {
		if f.Kind != FallbackResponses && f.Kind != FallbackChat {
			return c, fmt.Errorf("fallbackProviders[%d] (%s): kind %q: want responses or chat", i, f.Name, f.Kind)
		}
		if f.BaseURL == "" || f.Model == "" {
			return c, fmt.Errorf("fallbackProviders[%d] (%s): baseUrl and model are required", i, f.Name)
		}
		if f.Name == "" {
			c.Fallbacks[i].Name = fmt.Sprintf("fallback%d", i+1)
		}
		// A name is the provider's id in codex's configuration and in what the user reads: one
		// provider each, or the chain could not say which one answered.
		if name := c.Fallbacks[i].Name; names[name] {
			return c, fmt.Errorf("fallbackProviders[%d]: the name %q is taken by an earlier provider: give each its own", i, name)
		}
		names[c.Fallbacks[i].Name] = true
	}
	if c.StateDir == "" {
		c.StateDir = DefaultStateDir()
	}
	if c.ClientVersion == "" {
		c.ClientVersion = "dev"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.StartCodex == nil {
		c.StartCodex = codex.Start
	}
	if err := c.Agent.check(); err != nil {
		return c, err
	}
	return c, nil
}

// Validate checks a configuration as New would, without creating anything.
func Validate(cfg Config) error {
	_, err := cfg.withDefaults()
	return err
}

// DefaultStateDir is where the host keeps its state unless told otherwise: hermes-lsp under the
// user's XDG state home (~/.local/state/hermes-lsp).
func DefaultStateDir() string {
	return xdg.StateHome + "/hermes-lsp"
}

// ParseApprovalsMode reads approvals.mode as editors and YAML-minded users write it: "manual",
// "off", or the boolean false (YAML 1.1 reads an unquoted off as false), which means off; true means
// manual.
func ParseApprovalsMode(v any) (string, error) {
	switch m := v.(type) {
	case nil:
		return ApprovalsManual, nil
	case bool:
		if m {
			return ApprovalsManual, nil
		}
		return ApprovalsOff, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(m)) {
		case "", "manual", "on", "true":
			return ApprovalsManual, nil
		case "off", "false", "none":
			return ApprovalsOff, nil
		}
		return "", fmt.Errorf("approvals.mode %q: want \"manual\" or \"off\"", m)
	}
	return "", fmt.Errorf("approvals.mode: want \"manual\", \"off\" or false, got %T", v)
}

// YoloFromEnv reports whether HERMES_YOLO_MODE asks for yolo mode: only 1, true, yes or on (any
// case) do. Any other value leaves it off, and warning says why, so that a value nobody understands
// (HERMES_YOLO_MODE=disabled) fails closed instead of turning every prompt off.
func YoloFromEnv() (on bool, warning string) {
	return parseYolo(os.Getenv("HERMES_YOLO_MODE"))
}

func parseYolo(raw string) (bool, string) {
	switch v := strings.ToLower(strings.TrimSpace(raw)); v {
	case "1", "true", "yes", "on":
		return true, ""
	case "", "0", "false", "no", "off":
		return false, ""
	}
	return false, fmt.Sprintf("HERMES_YOLO_MODE=%q is not 1, true, yes or on: auto-approval stays off", raw)
}

// oneOf sets *v to allowed[0] when empty and refuses a value not in allowed: a setting this host
// does not understand fails closed.
func oneOf(key string, v *string, allowed ...string) error {
	if *v == "" {
		*v = allowed[0]
	}
	if slices.Contains(allowed, *v) {
		return nil
	}
	last := len(allowed) - 1
	return fmt.Errorf("%s %q: want %s or %s", key, *v, strings.Join(allowed[:last], ", "), allowed[last])
}
