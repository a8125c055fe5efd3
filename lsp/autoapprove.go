package lsp

import (
	"context"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Auto-approval is never silent: whenever it becomes effective in a folder the user gets a Warning,
// hermes.status reports it with its source, and every progress report of a turn says so.

func autoApproveStatus(a agenthost.AutoApprove) hermesproto.AutoApproveStatus {
	st := hermesproto.AutoApproveStatus{Effective: a.Effective}
	if a.Effective {
		src := a.Source
		st.Source = &src
	}
	return st
}

// autoApproveWhy says in words where auto-approval comes from.
func autoApproveWhy(a agenthost.AutoApprove, st *settings.Settings) string {
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

// autoApproveOf returns a folder's auto-approval; not effective when the folder has no session.
func (s *Server) autoApproveOf(folder string) agenthost.AutoApprove {
	h, err := s.hostOrErr()
	if err != nil {
		return agenthost.AutoApprove{}
	}
	sess, err := h.Session(folder)
	if err != nil {
		return agenthost.AutoApprove{}
	}
	return sess.AutoApprove()
}

// warnAutoApprove shows a Warning for each folder where auto-approval has become effective (or
// changed its source) since the last warning.
func (s *Server) warnAutoApprove(ctx context.Context) {
	st := s.settings.Load()
	for _, f := range s.folders.List() {
		auto := s.autoApproveOf(f.Path)
		s.mu.Lock()
		warned := s.warnedAuto[f.Path]
		if auto.Effective {
			s.warnedAuto[f.Path] = auto.Source
		} else {
			delete(s.warnedAuto, f.Path)
		}
		s.mu.Unlock()
		if !auto.Effective || warned == auto.Source {
			continue
		}
		s.log.Warn("auto-approval is in effect", "folder", f.Path, "source", auto.Source)
		s.editor.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes is auto-approving in "+f.Name+
			": every command and patch codex asks for runs without asking you ("+autoApproveWhy(auto, st)+").")
	}
}

// toggleYolo turns the session's auto-approval on or off, or says why it cannot: auto-approval set
// by the command line, the environment or the settings is not the session's to turn off.
func (s *Server) toggleYolo(ctx context.Context, folder workspace.Folder, sess *agenthost.Session) hermesproto.ToggleYoloResult {
	auto := sess.AutoApprove()
	switch {
	case auto.Effective && auto.Source != agenthost.SourceSession:
		s.editor.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes auto-approve in "+folder.Name+" stays on: "+
			autoApproveWhy(auto, s.settings.Load())+". Turn it off there.")
	case auto.Effective:
		sess.SetYolo(false)
		s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes auto-approve in "+folder.Name+" is off: approvals are asked again.")
	default:
		sess.SetYolo(true)
	}
	s.warnAutoApprove(ctx)
	now := sess.AutoApprove()
	res := hermesproto.ToggleYoloResult{Folder: folder.Path, Yolo: now.Effective, AutoApprove: autoApproveStatus(now)}
	if now == auto {
		res.Reason = autoApproveWhy(auto, s.settings.Load())
	}
	return res
}

// secondsOr turns a number of seconds from the settings into a duration, or def seconds when unset.
func secondsOr(seconds, def float64) time.Duration {
	if seconds <= 0 {
		seconds = def
	}
	return time.Duration(seconds * float64(time.Second))
}
