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
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/review"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// The commands' names, arguments and results are hermesproto's, the one definition of the protocol;
// the names below keep lsp's API (and its tests and internal/demo) as it was.

// Command names, without the configurable prefix.
const (
	CmdAsk            = hermesproto.CmdAsk
	CmdCancel         = hermesproto.CmdCancel
	CmdApprove        = hermesproto.CmdApprove
	CmdNewThread      = hermesproto.CmdNewThread
	CmdCompact        = hermesproto.CmdCompact
	CmdToggleYolo     = hermesproto.CmdToggleYolo
	CmdShowTranscript = hermesproto.CmdShowTranscript
	CmdStatus         = hermesproto.CmdStatus
	CmdUndoTurn       = hermesproto.CmdUndoTurn
	CmdThreads        = hermesproto.CmdThreads
	CmdResumeThread   = hermesproto.CmdResumeThread
	CmdModels         = hermesproto.CmdModels
	CmdSetModel       = hermesproto.CmdSetModel
	CmdReview         = hermesproto.CmdReview
	CmdDismissFinding = hermesproto.CmdDismissFinding
	CmdDismissReview  = hermesproto.CmdDismissReview
	CmdLogin          = hermesproto.CmdLogin
)

var commandNames = hermesproto.Commands()

type (
	askArgs     = hermesproto.AskArgs
	folderArgs  = hermesproto.FolderArgs
	approveArgs = hermesproto.ApproveArgs
)

// AskResult is hermes.ask's answer, sent at once: the turn runs on.
type AskResult = hermesproto.AskResult

// askHelp tells a person how to give hermes.ask a prompt.
const askHelp = `hermes.ask needs a prompt: pass [{"prompt": "what to do", "uri": "file:///..."}]. ` +
	`In an editor that cannot ask for text (Helix), write "hermes: what to do" on a line (a comment works) ` +
	`and choose "Hermes: run instruction" from the code actions.`

// commandParams is workspace/executeCommand's params with the arguments kept as sent: each command
// decodes its one argument into its own type, once (args).
type commandParams struct {
	Command       string                  `json:"command"`
	Arguments     []json.RawMessage       `json:"arguments,omitempty"`
	WorkDoneToken *protocol.ProgressToken `json:"workDoneToken,omitempty"`
}

// args decodes a command's first argument into v. A bare string is taken as the prompt.
func args(p *commandParams, v any) error {
	if len(p.Arguments) == 0 || len(p.Arguments[0]) == 0 || string(p.Arguments[0]) == "null" {
		return nil
	}
	raw := p.Arguments[0]
	if a, ok := v.(*askArgs); ok && raw[0] == '"' {
		if err := json.Unmarshal(raw, &a.Prompt); err != nil {
			return fmt.Errorf("bad arguments for %s: %s", p.Command, settings.TypeError(err))
		}
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("bad arguments for %s: %s", p.Command, settings.TypeError(err))
	}
	return nil
}

func (s *Server) executeCommand(ctx context.Context, p *commandParams) (any, error) {
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
		return result(s.ask(ctx, a, p.WorkDoneToken))
	case CmdCancel:
		var a folderArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.cancel(ctx, a))
	case CmdApprove:
		var a approveArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.approve(a))
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
			return hermesproto.NewThreadResult{Folder: folder.Path}, nil
		case CmdCompact:
			turn, err := sess.Compact(ctx)
			if err != nil {
				return nil, invalid(err)
			}
			s.watchTurn(ctx, folder, turn, "compacting the context", p.WorkDoneToken)
			return hermesproto.CompactResult{ThreadID: turn.ThreadID(), TurnID: turn.TurnID(), Folder: folder.Path}, nil
		case CmdToggleYolo:
			return s.toggleYolo(ctx, folder, sess), nil
		case CmdShowTranscript:
			return result(s.showTranscript(ctx, folder, sess))
		}
	case CmdStatus:
		return s.status(ctx), nil
	case CmdThreads, CmdModels:
		var a folderArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		if name == CmdThreads {
			return result(s.threads(ctx, a))
		}
		return result(s.models(ctx, a))
	case CmdResumeThread:
		var a hermesproto.ResumeThreadArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.resumeThread(ctx, a))
	case CmdSetModel:
		var a hermesproto.SetModelArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.setModel(ctx, a))
	case CmdReview:
		var a hermesproto.ReviewArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.review(ctx, a, p.WorkDoneToken))
	case CmdDismissFinding:
		var a hermesproto.FindingRef
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		n := s.findings.Dismiss(ctx, "", func(f *review.Finding) bool { return f.ReviewID == a.ReviewID && f.FindingID == a.FindingID })
		return hermesproto.DismissResult{Dismissed: n}, nil
	case CmdDismissReview:
		var a folderArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		folder, _, err := s.sessionFor(a.URI)
		if err != nil {
			return nil, invalid(err)
		}
		return hermesproto.DismissResult{Dismissed: s.findings.Dismiss(ctx, folder.Path, func(*review.Finding) bool { return true })}, nil
	case CmdLogin:
		var a hermesproto.LoginArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.login(ctx, a))
	case CmdUndoTurn:
		var a hermesproto.UndoTurnArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.undoTurn(ctx, a))
	}
	return nil, errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
}

// result is a command's answer for executeCommand: no result at all (not a zero one) with an error.
func result[T any](v T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
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
func (s *Server) ask(ctx context.Context, a askArgs, token *protocol.ProgressToken) (AskResult, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return AskResult{}, errorf(jsonrpc2.InvalidParams, "%s", askHelp)
	}
	if err := settings.CheckModelName(a.Model); err != nil {
		return AskResult{}, errorf(jsonrpc2.InvalidParams, "hermes.ask: %v", err)
	}
	if err := checkEffort(a.Effort); err != nil {
		return AskResult{}, err
	}
	folder, sess, err := s.sessionFor(a.URI)
	inPrompt := a
	if err != nil {
		// A `hermes:` line in a thread's transcript continues that thread, in its folder.
		f, threadID, ok := s.transcriptThread(a.URI)
		if !ok {
			return AskResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		if folder, sess, err = s.sessionFor(string(uri.File(f.Path))); err != nil {
			return AskResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		if err := sess.ResumeThread(ctx, threadID); err != nil {
			return AskResult{}, errorf(jsonrpc2.InvalidParams, "continue the transcript's thread: %v", err)
		}
		inPrompt.URI, inPrompt.Range, inPrompt.Diagnostics = "", nil, nil // the transcript is no file of the folder
	}
	prompt, err := s.buildPrompt(ctx, folder, inPrompt)
	if err != nil {
		return AskResult{}, errorf(jsonrpc2.InvalidParams, "hermes.ask: %v", err)
	}
	if ctx.Err() != nil {
		return AskResult{}, ctx.Err()
	}
	in := agenthost.Input{Prompt: prompt, Title: a.Prompt, Model: a.Model, Effort: a.Effort}
	var early *earlyToken
	if token == nil && !s.turnRunning(folder.Path) {
		early = s.createTokenEarly() // beside the turn's start: a new turn needs one
	}
	turn, err := sess.Run(ctx, in) // an automatic review gives way; another one refuses
	if errors.Is(err, agenthost.ErrReviewRunning) {
		return AskResult{}, errorf(jsonrpc2.InvalidParams, "a review is running in %s: wait for it, or stop it (hermes.cancel)", folder.Name)
	}
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeError, "Hermes could not start the turn: "+err.Error())
		return AskResult{}, errorf(jsonrpc2.InternalError, "%v", err)
	}
	res := AskResult{ThreadID: turn.ThreadID(), TurnID: turn.TurnID(), Folder: folder.Path, Steered: turn.Steered()}
	var tv *turnView
	if turn.Steered() {
		s.mu.Lock()
		tv = s.turns[folder.Path]
		s.mu.Unlock()
	} else {
		tv = s.watchTurnWith(ctx, folder, turn, a.Prompt, token, early)
	}
	if tv != nil && a.URI != "" && a.Range != nil {
		// The turn shows where it was asked: hover and an inlay hint on that line.
		s.origins.Add(a.URI, s.docs.Mark(a.URI, a.Range.Start.Line, ""), tv.rec)
		s.refreshInlayHints()
		s.hints.add(a.URI) // the line has been run: its hint goes
	}
	return res, nil
}

// buildPrompt adds to the person's words where they are (see withContext), and names the files
// of the folder with unsaved changes in the editor: what codex reads of them on disk is older.
func (s *Server) buildPrompt(ctx context.Context, folder workspace.Folder, a askArgs) (string, error) {
	prompt, err := s.withContext(ctx, folder, a)
	if err != nil {
		return "", err
	}
	var unsaved []string
	for _, f := range s.docs.OpenFiles(folder.Path) {
		if f.Text != f.Saved {
			rel, _ := workspace.Rel(folder.Path, f.Path)
			unsaved = append(unsaved, rel)
		}
	}
	if len(unsaved) > 0 {
		prompt += "\n\nUnsaved in the editor (the files on disk are older; do not overwrite them without saying so): " + strings.Join(unsaved, ", ")
	}
	return prompt, nil
}

// withContext adds to the person's words where they are: the file, the selected lines as the
// editor's buffer has them (unsaved edits count), and the diagnostics in the range.
func (s *Server) withContext(ctx context.Context, folder workspace.Folder, a askArgs) (string, error) {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(a.Prompt))
	if a.URI == "" {
		return b.String(), nil
	}
	path, err := workspace.PathFromURI(a.URI)
	if err != nil {
		return b.String(), nil
	}
	rel, _ := workspace.Rel(folder.Path, path)
	if rel == "." {
		return b.String(), nil // the folder itself (a chat buffer asks so): no file to name
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
		if text, err = linesFromDisk(ctx, folder.Path, path, start, end); err != nil {
			if errors.Is(err, workspace.ErrNotRegular) {
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
func (s *Server) cancel(ctx context.Context, a folderArgs) (hermesproto.CancelResult, error) {
	var views []*turnView
	s.mu.Lock()
	for _, tv := range s.turns {
		views = append(views, tv)
	}
	s.mu.Unlock()
	if a.URI != "" || s.folders.Len() == 1 {
		folder, err := s.resolveFolder(a.URI)
		if err != nil {
			return hermesproto.CancelResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		views = views[:0]
		s.mu.Lock()
		if tv := s.turns[folder.Path]; tv != nil {
			views = append(views, tv)
		}
		s.mu.Unlock()
	}
	for _, tv := range views {
		if err := tv.turn.Interrupt(ctx); err != nil {
			return hermesproto.CancelResult{}, errorf(jsonrpc2.InternalError, "stop the turn in %s: %v", tv.folder.Name, err)
		}
	}
	return hermesproto.CancelResult{Cancelled: len(views)}, nil
}

// approve answers a pending approval.
func (s *Server) approve(a approveArgs) (hermesproto.ApproveResult, error) {
	d, ok := agenthost.ParseDecision(a.Decision)
	if !ok {
		return hermesproto.ApproveResult{}, errorf(jsonrpc2.InvalidParams, `hermes.approve: decision %q: want "once", "session", "deny" or "stop"`, a.Decision)
	}
	h, err := s.hostOrErr()
	if err != nil {
		return hermesproto.ApproveResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	if err := h.Resolve(a.ApprovalID, d); err != nil {
		return hermesproto.ApproveResult{}, errorf(jsonrpc2.InvalidParams, "hermes.approve: %v", err)
	}
	return hermesproto.ApproveResult{ApprovalID: a.ApprovalID, Decision: hermesproto.Decision(d)}, nil
}

func (s *Server) showTranscript(ctx context.Context, folder workspace.Folder, sess *agenthost.Session) (hermesproto.ShowTranscriptResult, error) {
	var none hermesproto.ShowTranscriptResult
	st := sess.Status()
	if st.ThreadID == "" {
		return none, errorf(jsonrpc2.InvalidParams, "no transcript yet in %s: ask something first", folder.Name)
	}
	_, md, err := agenthost.TranscriptPaths(s.stateDir(), st.ThreadID)
	if err != nil {
		return none, errorf(jsonrpc2.InvalidParams, "no transcript for %s: %v", folder.Name, err)
	}
	//hermes:ownfile the thread's transcript, in the state folder
	if _, err := os.Stat(md); err != nil {
		return none, errorf(jsonrpc2.InvalidParams, "no transcript yet for thread %s in %s", st.ThreadID, folder.Name)
	}
	if !s.showDocument(ctx, md, true) {
		s.showMessage(ctx, protocol.MessageTypeInfo, "Hermes transcript: "+md)
	}
	return hermesproto.ShowTranscriptResult{Path: md, URI: workspace.URIFromPath(md)}, nil
}

// stateDir is where the host keeps its state: the host's own (a stateDir change applies after a
// restart, for the host and for the diffs and transcripts the server opens alike).
func (s *Server) stateDir() string {
	if h, err := s.hostOrErr(); err == nil {
		return h.StateDir()
	}
	if d := s.currentSettings().StateDir; d != "" {
		return d
	}
	return agenthost.DefaultStateDir()
}
