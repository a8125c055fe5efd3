package agenthost

// This file reports a session's state: Status, and whether its approvals are auto-approved.

import (
	"slices"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// Where auto-approval comes from, as AutoApprove reports it.
const (
	SourceFlag    = "flag"    // the --yolo flag
	SourceEnv     = "env"     // HERMES_YOLO_MODE
	SourceConfig  = "config"  // the yolo setting
	SourcePolicy  = "policy"  // approvals.mode off, or codex's approval policy "never"
	SourceSession = "session" // SetYolo (hermes.toggleYolo)
)

// AutoApprove says whether a session's approvals are answered without asking anyone, and why.
type AutoApprove struct {
	Effective bool
	// Source is one of the Source constants when Effective, else "". The first that applies wins:
	// flag, env, config, policy, session.
	Source string
}

// AutoApprove reports whether the session's approvals are answered without asking, and why.
func (s *Session) AutoApprove() AutoApprove {
	return autoApprove(s.h.config(), s.Yolo())
}

func autoApprove(cfg Config, sessionYolo bool) AutoApprove {
	switch {
	case cfg.Yolo:
		src := cfg.YoloSource
		if src == "" {
			src = SourceConfig
		}
		return AutoApprove{Effective: true, Source: src}
	case cfg.ApprovalsMode == ApprovalsOff || cfg.ApprovalPolicy == codex.ApprovalNever:
		return AutoApprove{Effective: true, Source: SourcePolicy}
	case sessionYolo:
		return AutoApprove{Effective: true, Source: SourceSession}
	}
	return AutoApprove{}
}

// Status is a snapshot of a session.
type Status struct {
	Folder    string `json:"folder"`
	SessionID string `json:"sessionId"`
	ThreadID  string `json:"threadId"`
	// Turn is the running turn, or the last one (State completed, interrupted, failed), or nil.
	Turn           *hermesproto.TurnState `json:"turn"`
	Usage          hermesproto.Usage      `json:"usage"`
	ContextPercent int                    `json:"contextPercent"`
	Turns          int                    `json:"turns"`
	ToolIterations int                    `json:"toolIterations"`
	Compactions    int                    `json:"compactions"`
	// IneffectiveCompactions counts the compactions in a row that left the context at or above the
	// compaction threshold (compaction.go).
	IneffectiveCompactions int  `json:"ineffectiveCompactions"`
	Yolo                   bool `json:"yolo"`
	// AutoApprove is whether approvals are answered without asking, and why.
	AutoApprove AutoApprove `json:"autoApprove"`
	// Model and Effort are the folder's choice for its turns (empty: the defaults).
	Model  string `json:"model,omitempty"`
	Effort string `json:"effort,omitempty"`
	// Fallback names the fallback provider the session's turns run on, if not the primary.
	Fallback         string                 `json:"fallback,omitempty"`
	PendingApprovals []hermesproto.Approval `json:"pendingApprovals"`
}

// Status returns a snapshot of the session.
func (s *Session) Status() Status {
	cfg := s.h.config()
	st := Status{Folder: s.folder, SessionID: s.id, PendingApprovals: []hermesproto.Approval{}}
	s.status(cfg, &st)
	st.ContextPercent = st.Usage.ContextPercent()
	slices.SortFunc(st.PendingApprovals, func(a, b hermesproto.Approval) int { return a.Asked.Compare(b.Asked) })
	return st
}

// Pending returns the approvals waiting for an answer, oldest first.
func (s *Session) Pending() []hermesproto.Approval { return s.Status().PendingApprovals }
