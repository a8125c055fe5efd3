package agenthost

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// startCodex starts codex as cfg says, its start (spawn and initialize) bounded by cfg.StartTimeout:
// a codex that never answers initialize must fail the first turn within that bound, not hold it
// until the turn timeout. The error says what to do next.
func (h *Host) startCodex(ctx context.Context, cfg Config) (*codex.Client, error) {
	opts := h.codexOptions(cfg)
	opts.StartTimeout = cfg.StartTimeout
	client, err := cfg.StartCodex(ctx, opts)
	if err == nil {
		return client, nil
	}
	var timeout *codex.StartTimeoutError
	if errors.As(err, &timeout) {
		return nil, fmt.Errorf("%w: check hermes.codex.path or raise hermes.codex.startTimeoutSeconds", err)
	}
	return nil, fmt.Errorf("%w. Check that codex is installed (npm install -g @openai/codex) or set its path (hermes codex.path)", err)
}
