package agenthost

// This file is the models codex offers (model/list), the folder's choice of model and reasoning
// effort for its turns, and the account's rate limits (account/rateLimits).

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// effortName is what a reasoning effort looks like: codex takes any effort its models advertise
// (low, medium, high, xhigh, max, ...), so only the form is checked here.
var effortName = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)

// CheckEffort refuses a reasoning effort that cannot be one.
func CheckEffort(effort string) error {
	if effort != "" && !effortName.MatchString(effort) {
		return fmt.Errorf("%q is not a reasoning effort: use one a model lists in hermes.models (low, medium, high, ...)", Truncate(effort, 40))
	}
	return nil
}

// ModelInfo is a model codex offers.
type ModelInfo struct {
	ID            string   `json:"id"`
	DisplayName   string   `json:"displayName"`
	Efforts       []string `json:"efforts"`
	DefaultEffort string   `json:"defaultEffort"`
	// IsDefault says codex uses it when no model is chosen.
	IsDefault bool `json:"isDefault"`
}

// Models lists the models codex offers (model/list, without hidden ones).
func (h *Host) Models(ctx context.Context) ([]ModelInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, h.config().StartTimeout)
	defer cancel()
	client, _, err := h.codexClient(ctx)
	if err != nil {
		return nil, err
	}
	var out []ModelInfo
	cursor := ""
	for page := 0; page < 5; page++ {
		res, err := client.ListModels(ctx, codex.ModelListParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("model/list: %w", err)
		}
		for _, m := range res.Data {
			info := ModelInfo{ID: m.ID, DisplayName: m.DisplayName, DefaultEffort: m.DefaultReasoningEffort, IsDefault: m.IsDefault, Efforts: []string{}}
			if info.DisplayName == "" {
				info.DisplayName = m.ID
			}
			for _, e := range m.SupportedReasoningEfforts {
				info.Efforts = append(info.Efforts, e.ReasoningEffort)
			}
			out = append(out, info)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	return out, nil
}

// ConfiguredModel is the model codex's configuration names for the folder's turns (config.toml's
// model, or a -c model=... of the settings), "" when it names none (codex then uses its built-in
// default) or codex cannot say.
func (s *Session) ConfiguredModel(ctx context.Context) string {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	client, _, err := s.h.codexClient(ctx)
	if err != nil {
		return ""
	}
	model, err := client.ConfiguredModel(ctx, s.folder)
	if err != nil {
		s.h.log.Debug("config/read", "err", err)
		return ""
	}
	return model
}

// SetModel sets the model and reasoning effort of the folder's next turns (persisted); empty
// strings go back to the defaults.
func (s *Session) SetModel(model, effort string) error {
	if err := CheckEffort(effort); err != nil {
		return err
	}
	if err := s.setModel(model, effort); err != nil {
		return err
	}
	s.flush()
	return nil
}

func rateLimitsOf(snap codex.RateLimitSnapshot) hermesproto.RateLimits {
	window := func(w codex.RateLimitWindow) *hermesproto.RateLimitWindow {
		if w == (codex.RateLimitWindow{}) {
			return nil
		}
		return &hermesproto.RateLimitWindow{UsedPercent: w.UsedPercent, WindowMinutes: w.WindowDurationMins, ResetsAt: w.ResetsAt}
	}
	return hermesproto.RateLimits{Primary: window(snap.Primary), Secondary: window(snap.Secondary), Reached: snap.RateLimitReachedType}
}

// noteRateLimits keeps an account/rateLimits/updated notification. It runs on the client's read
// goroutine.
func (h *Host) noteRateLimits(ev codex.Event) {
	if ev.Method != "account/rateLimits/updated" {
		return
	}
	var n codex.AccountRateLimitsUpdatedNotification
	if err := json.Unmarshal(ev.Params, &n); err != nil {
		h.log.Debug("account/rateLimits/updated", "err", err)
		return
	}
	rl := rateLimitsOf(n.RateLimits)
	h.rateLimits.Store(&rl)
}

// KnownRateLimits returns the account's rate limits as codex last reported them, or nil; it asks
// nothing.
func (h *Host) KnownRateLimits() *hermesproto.RateLimits { return h.rateLimits.Load() }

// RateLimits returns the account's rate limits as codex last reported them, or nil. When codex
// runs and none was reported yet it asks (account/rateLimits/read) once per codex process.
func (h *Host) RateLimits(ctx context.Context) *hermesproto.RateLimits {
	if rl := h.rateLimits.Load(); rl != nil {
		return rl
	}
	h.codexMu.Lock()
	client, gen := h.agent, h.gen
	h.codexMu.Unlock()
	if client == nil || h.rateLimitsRead.Load() == int64(gen) {
		return nil
	}
	h.rateLimitsRead.Store(int64(gen))
	snapshot, err := client.ReadRateLimits(ctx)
	if err != nil {
		h.log.Debug("account/rateLimits/read", "err", err)
		return nil
	}
	rl := rateLimitsOf(*snapshot)
	h.rateLimits.Store(&rl)
	return &rl
}
