package agenthost

// This file starts codex for the host, and keeps what hermes-lsp makes of its release.

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// startCodex starts codex as cfg says, its start (spawn and initialize) bounded by cfg.StartTimeout:
// a codex that never answers initialize must fail the first turn within that bound, not hold it
// until the turn timeout. The error says what to do next.
func (h *Host) startCodex(ctx context.Context, cfg Config) (Agent, error) {
	opts := h.codexOptions(cfg)
	opts.StartTimeout = cfg.StartTimeout
	if !cfg.Agent.IsCodex() {
		return h.startOther(ctx, cfg, opts)
	}
	client, err := cfg.StartCodex(ctx, opts)
	if err == nil {
		compat := client.Compat()
		h.compat.Store(&compat)
		if !compat.Inside() {
			h.log.Warn("codex outside the supported range", "warning", CodexWarning(compat))
		}
		if cfg.OnCodexStarted != nil {
			cfg.OnCodexStarted(compat)
		}
		return newCodexAgent(client), nil
	}
	var tooOld *codex.TooOldError
	if errors.As(err, &tooOld) {
		h.compat.Store(&tooOld.Compat)
		return nil, fmt.Errorf("%w. %s", err, codexRemedy(false))
	}
	var timeout *codex.StartTimeoutError
	if errors.As(err, &timeout) {
		return nil, fmt.Errorf("%w: check hermes.codex.path or raise hermes.codex.startTimeoutSeconds", err)
	}
	return nil, fmt.Errorf("%w. Check that codex is installed (npm install -g @openai/codex) or set its path (hermes codex.path)", err)
}

// startOther starts an agent other than codex, as cfg.Agent says.
func (h *Host) startOther(ctx context.Context, cfg Config, opts codex.Options) (Agent, error) {
	if cfg.StartAgent == nil {
		return nil, fmt.Errorf("agent.kind %q: this hermes-lsp cannot run such an agent", cfg.Agent.Kind)
	}
	agent, err := cfg.StartAgent(ctx, cfg.Agent.clone(), opts)
	if err != nil {
		return nil, fmt.Errorf("starting the agent %q: %w. Check agent.command and agent.args (hermes-lsp doctor shows them)", cfg.Agent.Command, err)
	}
	h.other.Store(&otherAgent{agent})
	return agent, nil
}

// otherAgent is the agent other than codex that the host last started.
type otherAgent struct{ Agent }

// AgentInfo says what the agent the host runs is and supports: the one last started, or, before
// any, what the configuration names (codex with everything it supports).
func (h *Host) AgentInfo() AgentInfo {
	cfg := h.config()
	if cfg.Agent.IsCodex() {
		info := AgentInfo{Kind: AgentCodex, Name: "codex", Supports: codexCapabilities}
		if c, ok := h.CodexCompat(); ok {
			info.Version, info.Compat = c.Version, &c
		}
		return info
	}
	// Asked each time: what an agent supports may grow as it runs (an ACP agent's models are known
	// once a session offers them).
	if other := h.other.Load(); other != nil {
		if info := other.Info(); info.Kind == cfg.Agent.Kind {
			return info
		}
	}
	return AgentInfo{Kind: cfg.Agent.Kind, Name: cfg.Agent.Command, Unknown: true}
}

// CodexCompat is what hermes-lsp makes of the release of the codex it last started (or refused to
// run, as older than codex.MinVersion); false before it has started one.
func (h *Host) CodexCompat() (codex.Compat, bool) {
	c := h.compat.Load()
	if c == nil {
		return codex.Compat{}, false
	}
	return *c, true
}

// CodexWarning tells a person how their codex stands when its release is outside the supported
// range, and what to do; "" when it is inside.
func CodexWarning(c codex.Compat) string {
	if c.Inside() {
		return ""
	}
	return c.Outside() + ". " + codexRemedy(c.Support != codex.SupportTooOld)
}

// codexRemedy says how to get a supported codex; mayWork says the codex in use may do meanwhile.
func codexRemedy(mayWork bool) string {
	install := fmt.Sprintf("install %[1]s@%[2]s (npm install -g %[1]s@%[2]s) or set hermes.codex.path to a codex from %[3]s",
		codex.NpmPackage, codex.TestedVersion, codex.SupportedRange())
	if mayWork {
		return "If something fails, " + install + "."
	}
	return "To use hermes-lsp, " + install + "."
}

// Capabilities says what the agent supports: codex's are known without starting it; another agent
// is started (if it is not running) to learn its own.
func (h *Host) Capabilities(ctx context.Context) (AgentInfo, error) {
	if h.config().Agent.IsCodex() {
		return h.AgentInfo(), nil
	}
	if _, _, err := h.codexClient(ctx); err != nil {
		return AgentInfo{}, err
	}
	return h.AgentInfo(), nil
}
