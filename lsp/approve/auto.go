package approve

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Auto-approval is never silent: whenever it becomes effective in a folder the user gets a Warning,
// hermes.status reports it with its source, and every progress report of a turn says so.

// AutoStatus is a folder's auto-approval as hermes.status reports it.
func AutoStatus(a agenthost.AutoApprove) hermesproto.AutoApproveStatus {
	st := hermesproto.AutoApproveStatus{Effective: a.Effective}
	if a.Effective {
		src := a.Source
		st.Source = &src
	}
	return st
}

// why says in words where auto-approval comes from.
func why(a agenthost.AutoApprove, st *settings.Settings) string {
	switch a.Source {
	case agenthost.SourceFlag:
		return "hermes-lsp was started with --yolo"
	case agenthost.SourceEnv:
		return "HERMES_YOLO_MODE is set in hermes-lsp's environment"
	case agenthost.SourceConfig:
		return "yolo is set in your settings (hermes.yolo)"
	case agenthost.SourcePolicy:
		if st.Approvals.Mode == agenthost.ApprovalsOff {
			return "approvals are off in your settings (hermes.approvals.mode)"
		}
		return "codex's approval policy is \"never\" in your settings (hermes.codex.approvalPolicy)"
	case agenthost.SourceSession:
		return "you turned auto-approve on for this session (hermes.toggleYolo)"
	}
	return ""
}

// Auto returns a folder's auto-approval; not effective when the folder has no session.
func (ap *Approver) Auto(folder string) agenthost.AutoApprove {
	h := ap.cfg.Host()
	if h == nil {
		return agenthost.AutoApprove{}
	}
	sess, err := h.Session(folder)
	if err != nil {
		return agenthost.AutoApprove{}
	}
	return sess.AutoApprove()
}

// WarnAuto shows a Warning for each folder where auto-approval has become effective (or changed
// its source) since the last warning.
func (ap *Approver) WarnAuto(ctx context.Context) {
	st := ap.cfg.Settings()
	for _, f := range ap.cfg.Folders.List() {
		auto := ap.Auto(f.Path)
		ap.mu.Lock()
		warned := ap.warnedAuto[f.Path]
		if auto.Effective {
			ap.warnedAuto[f.Path] = auto.Source
		} else {
			delete(ap.warnedAuto, f.Path)
		}
		ap.mu.Unlock()
		if !auto.Effective || warned == auto.Source {
			continue
		}
		ap.cfg.Log.Warn("auto-approval is in effect", "folder", f.Path, "source", auto.Source)
		ap.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes is auto-approving in "+f.Name+
			": every command and patch codex asks for runs without asking you ("+why(auto, st)+").")
	}
}

// ToggleYolo is hermes.toggleYolo: it turns the session's auto-approval on or off, or says why it
// cannot: auto-approval set by the command line, the environment or the settings is not the
// session's to turn off.
func (ap *Approver) ToggleYolo(ctx context.Context, folder workspace.Folder, sess *agenthost.Session) hermesproto.ToggleYoloResult {
	ed := ap.cfg.Editor
	auto := sess.AutoApprove()
	switch {
	case auto.Effective && auto.Source != agenthost.SourceSession:
		ed.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes auto-approve in "+folder.Name+" stays on: "+
			why(auto, ap.cfg.Settings())+". Turn it off there.")
	case auto.Effective:
		sess.SetYolo(false)
		ed.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes auto-approve in "+folder.Name+" is off: approvals are asked again.")
	default:
		sess.SetYolo(true)
	}
	ap.WarnAuto(ctx)
	now := sess.AutoApprove()
	res := hermesproto.ToggleYoloResult{Folder: folder.Path, Yolo: now.Effective, AutoApprove: AutoStatus(now)}
	if now == auto {
		res.Reason = why(auto, ap.cfg.Settings())
	}
	return res
}
