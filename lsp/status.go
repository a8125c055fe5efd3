package lsp

// This file is hermes.status: each folder's thread, turn, tokens, approvals and auto-approval,
// the account's rate limits, who codex is signed in as, and the codex release; and the message that
// tells the user, once, that their codex is outside the releases hermes-lsp supports.

import (
	"context"
	"os"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/approve"
	"github.com/hermes-lsp/hermes-lsp/lsp/login"
	"github.com/hermes-lsp/hermes-lsp/lsp/undo"
)

func (s *Server) status(ctx context.Context) hermesproto.Status {
	folders := []hermesproto.FolderStatus{}
	h, err := s.hostOrErr()
	if err != nil {
		return hermesproto.Status{Folders: folders}
	}
	rl := h.RateLimits(ctx)
	for _, f := range s.folders.List() {
		sess, err := h.Session(f.Path)
		if err != nil {
			continue
		}
		st := sess.Status()
		fs := hermesproto.FolderStatus{
			Folder: f.Path, ThreadID: st.ThreadID, Usage: st.Usage, ContextPercent: st.ContextPercent,
			PendingApprovals: []hermesproto.ApprovalSummary{}, Yolo: st.AutoApprove.Effective, AutoApprove: approve.AutoStatus(st.AutoApprove),
			Fallback: st.Fallback, Compactions: st.Compactions, IneffectiveCompactions: st.IneffectiveCompactions,
			UndoableTurns: undo.Undoable(sess),
			Model:         st.Model, Effort: st.Effort,
		}
		if st.ThreadID != "" {
			if _, md, err := agenthost.TranscriptPaths(h.StateDir(), st.ThreadID); err == nil {
				// A running turn's runner writes the transcript's start as it begins: name it
				// then too, not only once the file is there.
				//hermes:ownfile the thread's transcript, in the state folder
				if _, err := os.Stat(md); err == nil || (st.Turn != nil && st.Turn.State == agenthost.StatusRunning) {
					fs.TranscriptPath = md
				}
			}
		}
		if st.Turn != nil {
			fs.Turn = &hermesproto.TurnState{ID: st.Turn.ID, State: st.Turn.State}
		}
		for _, a := range st.PendingApprovals {
			fs.PendingApprovals = append(fs.PendingApprovals, hermesproto.ApprovalSummary{ApprovalID: a.ID, Kind: a.Kind, Summary: a.Summary, Questions: a.Questions})
		}
		folders = append(folders, fs)
	}
	st := hermesproto.Status{Folders: folders, RateLimits: rl, Codex: codexStatus(h), Agent: agentStatus(h)}
	st.Account, st.SignedIn = login.Account(ctx, s.log, h)
	return st
}

// codexStatus is hermes.status's codex: the release of the codex the host last started (or refused
// as too old), or nil before it has.
func codexStatus(h *agenthost.Host) *hermesproto.CodexStatus {
	c, ok := h.CodexCompat()
	if !ok {
		return nil
	}
	cs := &hermesproto.CodexStatus{Version: c.Version, MinVersion: codex.MinVersion, TestedVersion: codex.TestedVersion, Warning: agenthost.CodexWarning(c)}
	for _, p := range c.Problems {
		cs.KnownProblems = append(cs.KnownProblems, p.What)
	}
	return cs
}

// agentStatus is hermes.status's agent: what runs the turns and what it supports.
func agentStatus(h *agenthost.Host) *hermesproto.AgentStatus {
	info := h.AgentInfo()
	as := &hermesproto.AgentStatus{Kind: string(info.Kind), Name: info.Name, Version: info.Version, Supports: []string{}, Lacks: []string{}}
	if !info.Unknown {
		as.Supports, as.Lacks = info.Supports.Features()
	}
	return as
}

// codexStarted hears of each codex the host starts (agenthost.Config.OnCodexStarted): the first
// whose release is outside the supported range is told to the user in a message, once per server.
// A release older than the range never gets here: the host refuses it, and the failed turn says why.
func (s *Server) codexStarted(c codex.Compat) {
	warning := agenthost.CodexWarning(c)
	if warning == "" || !s.codexTold.CompareAndSwap(false, true) {
		return
	}
	s.goAsync("codex release warning", func(ctx context.Context) {
		s.editor.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes: "+warning)
	})
}
