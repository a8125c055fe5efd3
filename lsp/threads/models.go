package threads

import (
	"context"
	"fmt"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Models is hermes.models: the models codex offers, the folder's current one marked.
func (t *Threads) Models(ctx context.Context, sess *agenthost.Session) ([]hermesproto.ModelInfo, error) {
	h := t.cfg.Host()
	if h == nil {
		return nil, errorf(jsonrpc2.InternalError, "the server is not initialized")
	}
	list, err := h.Models(ctx)
	if err != nil {
		return nil, errorf(jsonrpc2.InternalError, "list the models: %v", err)
	}
	current := t.currentModel(ctx, sess)
	out := make([]hermesproto.ModelInfo, 0, len(list))
	for _, m := range list {
		out = append(out, hermesproto.ModelInfo{
			ID: m.ID, DisplayName: m.DisplayName, Efforts: m.Efforts, DefaultEffort: m.DefaultEffort,
			Current: m.ID == current || (current == "" && m.IsDefault),
		})
	}
	return out, nil
}

// SetModel is hermes.setModel: the folder's next turns use a.Model and a.Effort.
func (t *Threads) SetModel(ctx context.Context, folder workspace.Folder, sess *agenthost.Session, a hermesproto.SetModelArgs) (hermesproto.SetModelResult, error) {
	if err := settings.CheckModelName(a.Model); err != nil {
		return hermesproto.SetModelResult{}, errorf(jsonrpc2.InvalidParams, "hermes.setModel: %v", err)
	}
	if err := CheckEffort(a.Effort); err != nil {
		return hermesproto.SetModelResult{}, err
	}
	if err := t.checkModelEffort(ctx, sess, a.Model, a.Effort); err != nil {
		return hermesproto.SetModelResult{}, err
	}
	if err := sess.SetModel(a.Model, a.Effort); err != nil {
		return hermesproto.SetModelResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	what := a.Model
	if what == "" {
		what = "the default model"
	}
	if a.Effort != "" {
		what += ", " + a.Effort + " effort"
	}
	t.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Hermes: %s's next turns use %s.", folder.Name, what))
	return hermesproto.SetModelResult{Folder: folder.Path, Model: a.Model, Effort: a.Effort}, nil
}

// currentModel is the model the folder's next turn uses: the folder's choice (hermes.setModel),
// else the settings' codex.model, else the one codex's own configuration names (config.toml); ""
// when none is named, and codex uses its built-in default.
func (t *Threads) currentModel(ctx context.Context, sess *agenthost.Session) string {
	if m := sess.Status().Model; m != "" {
		return m
	}
	if m := t.cfg.Settings().Codex.Model; m != "" {
		return m
	}
	return sess.ConfiguredModel(ctx)
}

// CheckEffort refuses what cannot be a reasoning effort, with an InvalidParams error.
func CheckEffort(effort string) error {
	if err := agenthost.CheckEffort(effort); err != nil {
		return errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	return nil
}

// checkModelEffort refuses an effort the model does not list (model "" is the folder's current
// one, else codex's default). When codex cannot list its models, or does not list the model, the
// choice is kept: codex has the last word.
func (t *Threads) checkModelEffort(ctx context.Context, sess *agenthost.Session, model, effort string) error {
	if effort == "" {
		return nil
	}
	h := t.cfg.Host()
	if h == nil {
		return nil
	}
	list, err := h.Models(ctx)
	if err != nil {
		return nil
	}
	if model == "" {
		model = t.currentModel(ctx, sess)
	}
	for _, m := range list {
		if m.ID == model || (model == "" && m.IsDefault) {
			if !slices.Contains(m.Efforts, effort) {
				return errorf(jsonrpc2.InvalidParams, "%s has no reasoning effort %q: use one of %v", m.ID, effort, m.Efforts)
			}
			return nil
		}
	}
	return nil
}
