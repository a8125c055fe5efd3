package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
)

// This file asks the user about a change of a trusted setting (lsp/settings) that a workspace's own
// settings brought, once per folder and value.

// gateTrusted returns next with every trusted change a workspace source brought and the user did not
// allow put back to its value in cur. It asks about each change once per folder and value; a change
// toward safety passes without asking. It holds no lock while a question waits.
func (s *Server) gateTrusted(ctx context.Context, cur, next settings.Settings) settings.Settings {
	scope := s.trustScope()
	asks := settings.TrustedChanges(cur, next)
	for _, a := range asks {
		s.mu.Lock()
		memo := scope + "\x00" + a.Key + "\x00" + a.Value
		allowed, answered := s.trustAnswers[memo]
		s.mu.Unlock()
		if !answered {
			allowed = s.askTrusted(ctx, a.What)
			s.mu.Lock()
			s.trustAnswers[memo] = allowed
			s.mu.Unlock()
			if !allowed {
				s.editor.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
					"Hermes kept hermes.%s as it was: the workspace's settings may not %s without your yes. "+
						"To change it for good, set it where the editor starts hermes-lsp (initializationOptions) or on its command line.",
					a.Key, a.What))
			}
		}
		if allowed {
			s.log.Warn("a workspace changed a trusted setting, allowed by the user", "setting", a.Key)
			continue
		}
		s.log.Warn("kept a trusted setting the workspace tried to change", "setting", a.Key)
		a.Keep(&next, cur)
	}
	return next
}

// askTrusted asks the user whether the workspace may do what; no answer, an error or an editor that
// cannot ask all mean no.
func (s *Server) askTrusted(ctx context.Context, what string) bool {
	timeout := s.settings.Load().Approvals.TimeoutSeconds
	if !s.editor.Caps().ShowMessage {
		return false
	}
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: "This workspace wants to " + what + ": Allow / Keep asking?\nIt comes from the workspace's settings, which a repository can write; \"Keep asking\" keeps the current value.",
		Actions: []protocol.MessageActionItem{{Title: hermesproto.TrustActionKeepAsking}, {Title: hermesproto.TrustActionAllow}},
	}
	ctx, cancel := context.WithTimeout(ctx, secondsOr(timeout, 300))
	defer cancel()
	var choice *protocol.MessageActionItem
	if err := s.editor.Ask(ctx, protocol.MethodWindowShowMessageRequest, params, &choice); err != nil {
		s.log.Info("could not ask about a trusted setting; keeping it", "err", err)
		return false
	}
	return choice != nil && choice.Title == hermesproto.TrustActionAllow
}

// trustScope names the workspace the settings came from: its folders.
func (s *Server) trustScope() string {
	var paths []string
	for _, f := range s.folders.List() {
		paths = append(paths, f.Path)
	}
	return strings.Join(paths, "\x01")
}
