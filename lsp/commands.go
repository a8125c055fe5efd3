package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Command names, without the configurable prefix.
const (
	CmdAsk            = "hermes.ask"
	CmdCancel         = "hermes.cancel"
	CmdApprove        = "hermes.approve"
	CmdNewThread      = "hermes.newThread"
	CmdCompact        = "hermes.compact"
	CmdToggleYolo     = "hermes.toggleYolo"
	CmdShowTranscript = "hermes.showTranscript"
	CmdStatus         = "hermes.status"
)

var commandNames = []string{CmdAsk, CmdCancel, CmdApprove, CmdNewThread, CmdCompact, CmdToggleYolo, CmdShowTranscript, CmdStatus}

// askArgs are hermes.ask's arguments.
type askArgs struct {
	Prompt      string                `json:"prompt"`
	URI         string                `json:"uri"`
	Range       *protocol.Range       `json:"range"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}

// folderArgs are the arguments of commands that act on one folder.
type folderArgs struct {
	URI string `json:"uri"`
}

type approveArgs struct {
	ApprovalID string `json:"approvalId"`
	Decision   string `json:"decision"`
}

// AskResult is hermes.ask's answer, sent at once: the turn runs on.
type AskResult struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Folder   string `json:"folder"`
	Steered  bool   `json:"steered,omitempty"`
}

// askHelp tells a person how to give hermes.ask a prompt.
const askHelp = `hermes.ask needs a prompt: pass [{"prompt": "what to do", "uri": "file:///..."}]. ` +
	`In an editor that cannot ask for text (Helix), write "hermes: what to do" on a line (a comment works) ` +
	`and choose "Hermes: run instruction" from the code actions.`

// args decodes a command's first argument into v. A bare string is taken as the prompt.
func args(p *protocol.ExecuteCommandParams, v any) error {
	if len(p.Arguments) == 0 || p.Arguments[0] == nil {
		return nil
	}
	if str, ok := p.Arguments[0].(string); ok {
		if a, ok := v.(*askArgs); ok {
			a.Prompt = str
			return nil
		}
	}
	raw, err := json.Marshal(p.Arguments[0])
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("bad arguments for %s: %s", p.Command, typeError(err))
	}
	return nil
}

func (s *Server) executeCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	prefix := s.currentSettings().CommandPrefix
	name, ok := trimPrefix(p.Command, prefix)
	if !ok {
		return nil, errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	invalid := func(err error) error { return errorf(jsonrpc2.InvalidParams, "%v", err) }
	switch name {
	case CmdAsk:
		var a askArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return s.ask(ctx, a, p.WorkDoneToken)
	case CmdCancel:
		var a folderArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return s.cancel(ctx, a)
	case CmdApprove:
		var a approveArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return s.approve(a)
	case CmdNewThread, CmdCompact, CmdToggleYolo, CmdShowTranscript:
		var a folderArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		folder, sess, err := s.sessionFor(a.URI)
		if err != nil {
			return nil, invalid(err)
		}
		switch name {
		case CmdNewThread:
			if err := sess.NewThread(); err != nil {
				return nil, invalid(err)
			}
			s.showMessage(ctx, protocol.MessageTypeInfo, "Hermes: the next prompt in "+folder.Name+" starts a new thread.")
			return map[string]any{"folder": folder.Path}, nil
		case CmdCompact:
			turn, err := sess.Compact(ctx)
			if err != nil {
				return nil, invalid(err)
			}
			s.watchTurn(ctx, folder, turn, "compacting the context", p.WorkDoneToken)
			return AskResult{ThreadID: turn.ThreadID(), TurnID: turn.TurnID(), Folder: folder.Path}, nil
		case CmdToggleYolo:
			return s.toggleYolo(ctx, folder, sess), nil
		case CmdShowTranscript:
			return s.showTranscript(ctx, folder, sess)
		}
	case CmdStatus:
		return s.status(), nil
	}
	return nil, errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
}

// resolveFolder picks the workspace folder of uri: the deepest containing it, else the only folder.
func (s *Server) resolveFolder(uri string) (workspace.Folder, error) {
	return s.folders.Resolve(uri)
}

func (s *Server) hostOrErr() (*agenthost.Host, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.host == nil {
		return nil, errors.New("the server is not initialized")
	}
	return s.host, nil
}

func (s *Server) sessionFor(uri string) (workspace.Folder, *agenthost.Session, error) {
	folder, err := s.resolveFolder(uri)
	if err != nil {
		return folder, nil, err
	}
	h, err := s.hostOrErr()
	if err != nil {
		return folder, nil, err
	}
	sess, err := h.Session(folder.Path)
	return folder, sess, err
}

// ask starts a turn (or steers the running one) and answers at once.
func (s *Server) ask(ctx context.Context, a askArgs, token *protocol.ProgressToken) (any, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, errorf(jsonrpc2.InvalidParams, "%s", askHelp)
	}
	folder, sess, err := s.sessionFor(a.URI)
	if err != nil {
		return nil, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	prompt, err := s.buildPrompt(ctx, folder, a)
	if err != nil {
		return nil, errorf(jsonrpc2.InvalidParams, "hermes.ask: %v", err)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	turn, err := sess.Run(ctx, agenthost.Input{Prompt: prompt})
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeError, "Hermes could not start the turn: "+err.Error())
		return nil, errorf(jsonrpc2.InternalError, "%v", err)
	}
	res := AskResult{ThreadID: turn.ThreadID(), TurnID: turn.TurnID(), Folder: folder.Path, Steered: turn.Steered()}
	if !turn.Steered() {
		s.watchTurn(ctx, folder, turn, a.Prompt, token)
	}
	return res, nil
}

// buildPrompt adds to the person's words where they are: the file, the selected lines as the
// editor's buffer has them (unsaved edits count), and the diagnostics in the range.
func (s *Server) buildPrompt(ctx context.Context, folder workspace.Folder, a askArgs) (string, error) {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(a.Prompt))
	if a.URI == "" {
		return b.String(), nil
	}
	path, err := workspace.PathFromURI(a.URI)
	if err != nil {
		return b.String(), nil
	}
	rel, err := filepath.Rel(folder.Path, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		rel = path
	}
	b.WriteString("\n\nFile: " + rel)
	if a.Range == nil {
		return b.String(), nil
	}
	start, end := a.Range.Start.Line, a.Range.End.Line
	if end < start {
		start, end = end, start // a selection made upwards, taken in order as Documents.Lines does
	}
	if end > start && a.Range.End.Character == 0 && a.Range.End.Line == end {
		end-- // a selection of whole lines ends at the start of the next one
	}
	text, ok := s.docs.Lines(a.URI, start, end)
	if !ok {
		var err error
		if text, err = linesFromDisk(ctx, path, start, end); err != nil {
			if errors.Is(err, errNotRegular) {
				return "", fmt.Errorf("%s is not a regular file: Hermes reads context only from regular files", rel)
			}
			s.log.Info("no context lines from disk", "path", path, "err", err)
		}
		ok = err == nil
	}
	if ok {
		fmt.Fprintf(&b, " (lines %d-%d)\n```%s\n%s\n```", start+1, end+1, fenceLang(path), strings.TrimRight(text, "\n"))
	}
	diags := a.Diagnostics
	if len(diags) == 0 {
		s.mu.Lock()
		diags = s.diagnostics[a.URI]
		s.mu.Unlock()
	}
	var in []protocol.Diagnostic
	for _, d := range diags {
		if d.Range.Start.Line <= end && d.Range.End.Line >= start {
			in = append(in, d)
		}
	}
	if len(in) > 0 {
		b.WriteString("\nDiagnostics in this range:")
		for _, d := range in {
			fmt.Fprintf(&b, "\n- line %d: %s", d.Range.Start.Line+1, d.Message)
			if d.Source != "" {
				b.WriteString(" (" + d.Source + ")")
			}
		}
	}
	return b.String(), nil
}

func fenceLang(path string) string {
	return strings.TrimPrefix(filepath.Ext(path), ".")
}

// cancel interrupts the folder's turn; without a uri, every running turn.
func (s *Server) cancel(ctx context.Context, a folderArgs) (any, error) {
	var views []*turnView
	s.mu.Lock()
	for _, tv := range s.turns {
		views = append(views, tv)
	}
	s.mu.Unlock()
	if a.URI != "" || s.folders.Len() == 1 {
		folder, err := s.resolveFolder(a.URI)
		if err != nil {
			return nil, errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		views = views[:0]
		s.mu.Lock()
		if tv := s.turns[folder.Path]; tv != nil {
			views = append(views, tv)
		}
		s.mu.Unlock()
	}
	if len(views) == 0 {
		return map[string]any{"cancelled": 0}, nil
	}
	for _, tv := range views {
		if err := tv.turn.Interrupt(ctx); err != nil {
			return nil, errorf(jsonrpc2.InternalError, "stop the turn in %s: %v", tv.folder.Name, err)
		}
	}
	return map[string]any{"cancelled": len(views)}, nil
}

// approve answers a pending approval.
func (s *Server) approve(a approveArgs) (any, error) {
	d, ok := agenthost.ParseDecision(a.Decision)
	if !ok {
		return nil, errorf(jsonrpc2.InvalidParams, `hermes.approve: decision %q: want "once", "session", "deny" or "stop"`, a.Decision)
	}
	h, err := s.hostOrErr()
	if err != nil {
		return nil, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	if err := h.Resolve(a.ApprovalID, d); err != nil {
		return nil, errorf(jsonrpc2.InvalidParams, "hermes.approve: %v", err)
	}
	return map[string]any{"approvalId": a.ApprovalID, "decision": d}, nil
}

func (s *Server) showTranscript(ctx context.Context, folder workspace.Folder, sess *agenthost.Session) (any, error) {
	st := sess.Status()
	if st.ThreadID == "" {
		return nil, errorf(jsonrpc2.InvalidParams, "no transcript yet in %s: ask something first", folder.Name)
	}
	_, md, err := agenthost.TranscriptPaths(s.stateDir(), st.ThreadID)
	if err != nil {
		return nil, errorf(jsonrpc2.InvalidParams, "no transcript for %s: %v", folder.Name, err)
	}
	if _, err := os.Stat(md); err != nil {
		return nil, errorf(jsonrpc2.InvalidParams, "no transcript yet for thread %s in %s", st.ThreadID, folder.Name)
	}
	if !s.showDocument(ctx, md, true) {
		s.showMessage(ctx, protocol.MessageTypeInfo, "Hermes transcript: "+md)
	}
	return map[string]any{"path": md, "uri": workspace.URIFromPath(md)}, nil
}

func (s *Server) stateDir() string {
	if d := s.currentSettings().StateDir; d != "" {
		return d
	}
	return agenthost.DefaultStateDir()
}

// FolderStatus is one folder of hermes.status.
type FolderStatus struct {
	Folder           string            `json:"folder"`
	ThreadID         string            `json:"threadId"`
	Turn             *TurnState        `json:"turn"`
	Usage            agenthost.Usage   `json:"usage"`
	ContextPercent   int               `json:"contextPercent"`
	PendingApprovals []ApprovalSummary `json:"pendingApprovals"`
	// Yolo is whether approvals are answered without asking, whatever the source (AutoApprove says it).
	Yolo        bool              `json:"yolo"`
	AutoApprove AutoApproveStatus `json:"autoApprove"`
	Fallback    string            `json:"fallback,omitempty"`
	Compactions int               `json:"compactions"`
}

// TurnState is a turn's id and state (running, completed, interrupted, failed).
type TurnState struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// ApprovalSummary is a pending approval as hermes.status lists it.
type ApprovalSummary struct {
	ApprovalID string `json:"approvalId"`
	Kind       string `json:"kind"`
	Summary    string `json:"summary"`
}

func (s *Server) status() map[string]any {
	folders := []FolderStatus{}
	h, err := s.hostOrErr()
	if err != nil {
		return map[string]any{"folders": folders}
	}
	for _, f := range s.folders.List() {
		sess, err := h.Session(f.Path)
		if err != nil {
			continue
		}
		st := sess.Status()
		fs := FolderStatus{
			Folder: f.Path, ThreadID: st.ThreadID, Usage: st.Usage, ContextPercent: st.ContextPercent,
			PendingApprovals: []ApprovalSummary{}, Yolo: st.AutoApprove.Effective, AutoApprove: autoApproveStatus(st.AutoApprove),
			Fallback: st.Fallback, Compactions: st.Compactions,
		}
		if st.Turn != nil {
			fs.Turn = &TurnState{ID: st.Turn.ID, State: st.Turn.State}
		}
		for _, a := range st.PendingApprovals {
			fs.PendingApprovals = append(fs.PendingApprovals, ApprovalSummary{ApprovalID: a.ID, Kind: a.Kind, Summary: a.Summary})
		}
		folders = append(folders, fs)
	}
	return map[string]any{"folders": folders}
}
