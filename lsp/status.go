package lsp

// This file is hermes.status: each folder's thread, turn, tokens, approvals and auto-approval,
// the account's rate limits, and who codex is signed in as.

import (
	"context"
	"os"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
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
	st := hermesproto.Status{Folders: folders, RateLimits: rl}
	st.Account, st.SignedIn = login.Account(ctx, s.log, h)
	return st
}
