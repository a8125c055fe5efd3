package agenthost

// This file is the Agent that codex's app-server is: its client, with the requests the host makes
// by method name given names of their own.

import (
	"context"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// codexAgent is codex's app-server as the host's Agent.
type codexAgent struct {
	*codex.Client
}

// newCodexAgent returns client as an Agent.
func newCodexAgent(client *codex.Client) *codexAgent { return &codexAgent{Client: client} }

func (a *codexAgent) Info() AgentInfo {
	compat := a.Client.Compat()
	return AgentInfo{
		Kind: AgentCodex, Name: "codex", Version: compat.Version, UserAgent: a.Client.Info().UserAgent,
		Compat: &compat, Supports: codexCapabilities,
	}
}

func (a *codexAgent) Subscribe(threadID string) Stream { return a.Client.Subscribe(threadID) }

func (a *codexAgent) StartTurn(ctx context.Context, p codex.TurnStartParams) (*codex.Turn, Stream, error) {
	t, sub, err := a.Client.StartTurn(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	return t, sub, nil
}

func (a *codexAgent) StartReview(ctx context.Context, threadID string, target codex.ReviewTarget) (*codex.Turn, Stream, error) {
	t, sub, err := a.Client.StartReview(ctx, threadID, target)
	if err != nil {
		return nil, nil, err
	}
	return t, sub, nil
}

func (a *codexAgent) ListThreads(ctx context.Context, p codex.ThreadListParams) (*codex.ThreadListResponse, error) {
	var res codex.ThreadListResponse
	if err := a.Call(ctx, "thread/list", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (a *codexAgent) NameThread(ctx context.Context, threadID, name string) error {
	return a.Call(ctx, "thread/name/set", codex.ThreadSetNameParams{ThreadID: threadID, Name: name}, nil)
}

func (a *codexAgent) ListTurns(ctx context.Context, p codex.ThreadTurnsListParams) (*codex.ThreadTurnsListResponse, error) {
	var res codex.ThreadTurnsListResponse
	if err := a.Call(ctx, "thread/turns/list", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (a *codexAgent) ListModels(ctx context.Context, p codex.ModelListParams) (*codex.ModelListResponse, error) {
	var res codex.ModelListResponse
	if err := a.Call(ctx, "model/list", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// configReadParams and configRead are codex's config/read (its effective configuration as seen
// from a folder: config.toml, the project's layers, -c overrides), of which only the model is read.
type configReadParams struct {
	Cwd string `json:"cwd"`
}

type configRead struct {
	Config struct {
		Model string `json:"model"`
	} `json:"config"`
}

func (a *codexAgent) ConfiguredModel(ctx context.Context, folder string) (string, error) {
	var res configRead
	if err := a.Call(ctx, "config/read", configReadParams{Cwd: folder}, &res); err != nil {
		return "", err
	}
	return res.Config.Model, nil
}

func (a *codexAgent) ReadRateLimits(ctx context.Context) (*codex.RateLimitSnapshot, error) {
	var res struct {
		RateLimits codex.RateLimitSnapshot `json:"rateLimits"`
	}
	if err := a.Call(ctx, "account/rateLimits/read", nil, &res); err != nil {
		return nil, err
	}
	return &res.RateLimits, nil
}

// CodexAgent is client as an Agent: for a StartAgent that runs codex's protocol itself (tests, and
// adapters that wrap it).
func CodexAgent(client *codex.Client) Agent { return newCodexAgent(client) }
