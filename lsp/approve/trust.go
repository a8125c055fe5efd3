package approve

// This file asks the user about a change of a trusted setting (lsp/settings) that a workspace's own
// settings brought, once per set of folders and value.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
)

// GateTrusted returns next with every trusted change a workspace source brought and the user did
// not allow put back to its value in cur. It asks about each change once per set of folders and
// value; a change toward safety passes without asking. It holds no lock while a question waits.
func (ap *Approver) GateTrusted(ctx context.Context, cur, next settings.Settings) settings.Settings {
	scope := ap.trustScope()
	asks := settings.TrustedChanges(cur, next)
	for _, a := range asks {
		ap.mu.Lock()
		memo := scope + "\x00" + a.Key + "\x00" + a.Value
		allowed, answered := ap.trustAnswers[memo]
		ap.mu.Unlock()
		if !answered {
			allowed = ap.askTrusted(ctx, a.What)
			ap.mu.Lock()
			ap.trustAnswers[memo] = allowed
			ap.mu.Unlock()
			if !allowed {
				ap.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
					"Hermes kept hermes.%s as it was: the workspace's settings may not %s without your yes. "+
						"To change it for good, set it where the editor starts hermes-lsp (initializationOptions) or on its command line.",
					a.Key, a.What))
			}
		}
		if allowed {
			ap.cfg.Log.Warn("a workspace changed a trusted setting, allowed by the user", "setting", a.Key)
			continue
		}
		ap.cfg.Log.Warn("kept a trusted setting the workspace tried to change", "setting", a.Key)
		a.Keep(&next, cur)
	}
	return next
}

// askTrusted asks the user whether the workspace may do what; no answer, an error or an editor that
// cannot ask all mean no.
func (ap *Approver) askTrusted(ctx context.Context, what string) bool {
	ed := ap.cfg.Editor
	timeout := ap.cfg.Settings().Approvals.TimeoutSeconds
	if !ed.Caps().ShowMessage {
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
	if err := ed.Ask(ctx, protocol.MethodWindowShowMessageRequest, params, &choice); err != nil {
		ap.cfg.Log.Info("could not ask about a trusted setting; keeping it", "err", err)
		return false
	}
	return choice != nil && choice.Title == hermesproto.TrustActionAllow
}

// trustScope names the workspace the settings came from: its folders.
func (ap *Approver) trustScope() string {
	var paths []string
	for _, f := range ap.cfg.Folders.List() {
		paths = append(paths, f.Path)
	}
	return strings.Join(paths, "\x01")
}

// secondsOr turns a number of seconds from the settings into a duration, or def seconds when unset.
func secondsOr(seconds, def float64) time.Duration {
	if seconds <= 0 {
		seconds = def
	}
	return time.Duration(seconds * float64(time.Second))
}
