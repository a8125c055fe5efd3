package lsp

// This file applies the `hermes` settings (lsp/settings) that the editor pulls or pushes.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
)

// pullConfiguration asks the editor for the `hermes` section and applies it.
func (s *Server) pullConfiguration(ctx context.Context) {
	var res []json.RawMessage
	err := s.editor.Call(ctx, protocol.MethodWorkspaceConfiguration, &protocol.ConfigurationParams{
		Items: []protocol.ConfigurationItem{{Section: "hermes"}},
	}, &res)
	if err != nil {
		s.log.Info("workspace/configuration failed; keeping the settings in force", "err", err)
		return
	}
	if len(res) == 0 || settings.IsEmpty(res[0]) {
		return // Helix answers null: keep what is in force
	}
	s.applySettings(ctx, res[0])
}

// didChangeConfiguration applies pushed settings, or pulls them when the push carries none.
func (s *Server) didChangeConfiguration(params json.RawMessage) {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	_ = json.Unmarshal(params, &p)
	s.goAsync("configuration", func(ctx context.Context) {
		canPull := s.editor.Caps().Configuration
		raw := bytes.TrimSpace(p.Settings)
		if settings.IsEmpty(raw) && canPull {
			s.pullConfiguration(ctx)
			return
		}
		s.applySettings(ctx, raw)
	})
}

// applySettings parses settings a workspace source brought (workspace/configuration or
// didChangeConfiguration) over the ones in force and reconfigures the host. A bad value is shown to
// the user and changes nothing; a change of a trusted setting waits for the user's yes (lsp/approve).
// Changes apply one at a time, in order.
func (s *Server) applySettings(ctx context.Context, raw json.RawMessage) {
	s.settings.Lock()
	defer s.settings.Unlock()
	current := *s.settings.Load()
	st, warnings, err := settings.ParseWithMinTurn(raw, current, minTurnTimeoutSeconds(s.opts))
	for _, w := range warnings {
		s.log.Warn(w)
	}
	if err != nil {
		s.editor.ShowMessage(ctx, protocol.MessageTypeError, "Hermes settings not applied: "+err.Error())
		return
	}
	st = s.approvals.GateTrusted(ctx, current, st)
	if st.CommandPrefix != current.CommandPrefix {
		s.log.Warn("hermes.commandPrefix changes apply after a restart of the server")
		st.CommandPrefix = current.CommandPrefix
	}
	s.settings.Store(&st)
	h := s.host.Load()
	if st.InstructionHints != current.InstructionHints || st.Review.Enabled != current.Review.Enabled || st.Edits.Review != current.Edits.Review {
		s.edits.Add("") // every document's hints, findings and changes again
	}
	if st.InlineStatus != current.InlineStatus || st.Edits.Review != current.Edits.Review {
		s.lines.Refresh()
	}
	if h != nil {
		if err := h.Reconfigure(s.hostConfig(st)); err != nil {
			s.editor.ShowMessage(ctx, protocol.MessageTypeError, "Hermes settings not applied: "+err.Error())
			return
		}
	}
	s.log.Info("settings applied", "approvals", st.Approvals.Mode, "yolo", st.Yolo, "turnEvents", st.TurnEvents)
	s.editor.LogMessage(ctx, protocol.MessageTypeLog, fmt.Sprintf("Hermes: settings applied (approvals %s, yolo %v)", st.Approvals.Mode, st.Yolo))
	s.approvals.WarnAuto(ctx)
}

// minTurnTimeoutSeconds is the least turnTimeoutSeconds the server takes: settings.MinTurnTimeoutSeconds, or
// Options.MinTurnTimeout when set.
func minTurnTimeoutSeconds(opts Options) float64 {
	if opts.MinTurnTimeout > 0 {
		return opts.MinTurnTimeout.Seconds()
	}
	return settings.MinTurnTimeoutSeconds
}

func trimPrefix(command, prefix string) (string, bool) {
	if !strings.HasPrefix(command, prefix) {
		return "", false
	}
	return strings.TrimPrefix(command, prefix), true
}
