package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	fastjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/login"
	"github.com/hermes-lsp/hermes-lsp/lsp/progress"
	"github.com/hermes-lsp/hermes-lsp/lsp/prompt"
	"github.com/hermes-lsp/hermes-lsp/lsp/review"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/lsp/threads"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// The commands' names, arguments and results are hermesproto's, the one definition of the protocol;
// the names below keep lsp's API (and its tests and internal/demo) as it was.

var commandNames = hermesproto.Commands()

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
	if a, ok := v.(*hermesproto.AskArgs); ok && raw[0] == '"' {
		if err := fastjson.Unmarshal(raw, &a.Prompt); err != nil {
			return fmt.Errorf("bad arguments for %s: %s", p.Command, settings.TypeError(err))
		}
		return nil
	}
	if err := fastjson.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("bad arguments for %s: %s", p.Command, settings.TypeError(err))
	}
	return nil
}

// executeCommand runs a command. An editor that does not show what its commands answer (Helix's
// :lsp-workspace-command, a code action's command) is told in a message: a command's error, and the
// answer of a command a person runs to read it (see handRun).
func (s *Server) executeCommand(ctx context.Context, p *commandParams) (any, error) {
	res, err := s.runCommand(ctx, p)
	if !s.editor.Caps().ShowsResults {
		s.handRun(ctx, p.Command, res, err)
	}
	return res, err
}

// runCommand runs a command and returns its answer.
func (s *Server) runCommand(ctx context.Context, p *commandParams) (any, error) {
	prefix := s.settings.Load().CommandPrefix
	name, ok := trimPrefix(p.Command, prefix)
	if !ok {
		return nil, errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	invalid := func(err error) error { return errorf(jsonrpc2.InvalidParams, "%v", err) }
	if err := s.agentLacks(ctx, name); err != nil {
		return nil, err
	}
	switch name {
	case hermesproto.CmdAsk:
		var a hermesproto.AskArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.ask(ctx, a, p.WorkDoneToken))
	case hermesproto.CmdCancel:
		var a hermesproto.FolderArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.cancel(ctx, a))
	case hermesproto.CmdApprove:
		var a hermesproto.ApproveArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		res, err := s.approvals.Answer(a)
		if err != nil {
			return nil, invalid(err)
		}
		return res, nil
	case hermesproto.CmdNewThread, hermesproto.CmdCompact, hermesproto.CmdToggleYolo, hermesproto.CmdShowTranscript:
		var a hermesproto.FolderArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		folder, sess, err := s.sessionFor(ctx, a.URI)
		if err != nil {
			return nil, invalid(err)
		}
		switch name {
		case hermesproto.CmdNewThread:
			if err := sess.NewThread(); err != nil {
				return nil, invalid(err)
			}
			s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, "Hermes: the next prompt in "+folder.Name+" starts a new thread.")
			return hermesproto.NewThreadResult{Folder: folder.Path}, nil
		case hermesproto.CmdCompact:
			turn, err := sess.Compact(ctx)
			if err != nil {
				return nil, invalid(err)
			}
			s.watch(ctx, folder, turn, "compacting the context", nil, p.WorkDoneToken, nil)
			return hermesproto.CompactResult{ThreadID: turn.ThreadID(), TurnID: turn.TurnID(), Folder: folder.Path}, nil
		case hermesproto.CmdToggleYolo:
			return s.approvals.ToggleYolo(ctx, folder, sess), nil
		case hermesproto.CmdShowTranscript:
			return result(s.threads.ShowTranscript(ctx, folder, sess))
		}
	case hermesproto.CmdStatus:
		return s.status(ctx), nil
	case hermesproto.CmdThreads, hermesproto.CmdModels:
		var a hermesproto.FolderArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		_, sess, err := s.sessionFor(ctx, a.URI)
		if err != nil {
			return nil, invalid(err)
		}
		if name == hermesproto.CmdThreads {
			return result(threads.List(ctx, sess))
		}
		return result(s.threads.Models(ctx, sess))
	case hermesproto.CmdResumeThread:
		var a hermesproto.ResumeThreadArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		folder, sess, err := s.sessionFor(ctx, a.URI)
		if err != nil {
			return nil, invalid(err)
		}
		return result(s.threads.Resume(ctx, folder, sess, a))
	case hermesproto.CmdThreadHistory:
		var a hermesproto.ThreadHistoryArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		folder, sess, err := s.sessionFor(ctx, a.URI)
		if err != nil {
			return nil, invalid(err)
		}
		return result(s.threads.History(ctx, folder, sess, a))
	case hermesproto.CmdSetModel:
		var a hermesproto.SetModelArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		folder, sess, err := s.sessionFor(ctx, a.URI)
		if err != nil {
			return nil, invalid(err)
		}
		return result(s.threads.SetModel(ctx, folder, sess, a))
	case hermesproto.CmdReview:
		var a hermesproto.ReviewArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		folder, sess, err := s.sessionFor(ctx, a.URI)
		if err != nil {
			return nil, invalid(err)
		}
		return result(s.reviews.Ask(ctx, folder, sess, a.Target, p.WorkDoneToken))
	case hermesproto.CmdDismissFinding:
		var a hermesproto.FindingRef
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		n := s.reviews.Findings().Dismiss(ctx, "", func(f *review.Finding) bool { return f.ReviewID == a.ReviewID && f.FindingID == a.FindingID })
		return hermesproto.DismissResult{Dismissed: n}, nil
	case hermesproto.CmdDismissReview:
		var a hermesproto.FolderArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		folder, _, err := s.sessionFor(ctx, a.URI)
		if err != nil {
			return nil, invalid(err)
		}
		return hermesproto.DismissResult{Dismissed: s.reviews.Findings().Dismiss(ctx, folder.Path, func(*review.Finding) bool { return true })}, nil
	case hermesproto.CmdLogin:
		var a hermesproto.LoginArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(login.Start(ctx, login.Config{Editor: s.editor, Log: s.log, Host: s.host.Load, Go: s.goAsync}, a))
	case hermesproto.CmdUndoTurn:
		var a hermesproto.UndoTurnArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		return result(s.undoTurn(ctx, a))
	case hermesproto.CmdChanges, hermesproto.CmdKeepChange, hermesproto.CmdRevertChange:
		return s.changeCommand(ctx, name, p)
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

// session is folder's session of the host.
func (s *Server) session(folder string) (*agenthost.Session, error) {
	h, err := s.hostOrErr()
	if err != nil {
		return nil, err
	}
	return h.Session(folder)
}

func (s *Server) hostOrErr() (*agenthost.Host, error) {
	h := s.host.Load()
	if h == nil {
		return nil, errors.New("the server is not initialized")
	}
	return h, nil
}

// sessionFor is the folder a command about uri works in, with its session. A thread's transcript
// works in its thread's folder, adopted when this editor does not have it open (threads.Adopt); no
// other document of hermes-lsp's state folder has a folder to work in: codex never runs there.
func (s *Server) sessionFor(ctx context.Context, uri string) (workspace.Folder, *agenthost.Session, error) {
	h, err := s.hostOrErr()
	if err != nil {
		return workspace.Folder{}, nil, err
	}
	folder, _, transcript := s.threads.Transcript(uri)
	if transcript {
		if err := s.threads.Adopt(ctx, folder); err != nil {
			return folder, nil, err
		}
	} else if folder, err = s.resolveFolder(uri); err != nil {
		return folder, nil, err
	}
	if threads.InStateDir(h.StateDir(), folder.Path) {
		return folder, nil, fmt.Errorf("%s is hermes-lsp's state folder (transcripts, diffs), where codex never runs: ask from a file of your project", folder.Path)
	}
	sess, err := h.Session(folder.Path)
	return folder, sess, err
}

// ask starts a turn (or steers the running one) and answers at once.
func (s *Server) ask(ctx context.Context, a hermesproto.AskArgs, token *protocol.ProgressToken) (hermesproto.AskResult, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return hermesproto.AskResult{}, errorf(jsonrpc2.InvalidParams, "%s", askHelp)
	}
	if err := settings.CheckModelName(a.Model); err != nil {
		return hermesproto.AskResult{}, errorf(jsonrpc2.InvalidParams, "hermes.ask: %v", err)
	}
	if err := threads.CheckEffort(a.Effort); err != nil {
		return hermesproto.AskResult{}, err
	}
	folder, sess, err := s.sessionFor(ctx, a.URI)
	if err != nil {
		return hermesproto.AskResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	inPrompt := a
	if _, threadID, ok := s.threads.Transcript(a.URI); ok {
		// A `hermes:` line in a thread's transcript continues that thread, in its folder (sessionFor's).
		if err := sess.ResumeThread(ctx, threadID); err != nil {
			return hermesproto.AskResult{}, errorf(jsonrpc2.InvalidParams, "continue the transcript's thread: %v", err)
		}
		inPrompt.URI, inPrompt.Range, inPrompt.Diagnostics = "", nil, nil // the transcript is no file of the folder
	}
	text, err := prompt.Build(ctx, prompt.Source{Docs: s.docs, Seen: s.editor.Diagnostics().SeenOn, OwnSource: diagnosticSource, Log: s.log}, folder, inPrompt)
	if err != nil {
		return hermesproto.AskResult{}, errorf(jsonrpc2.InvalidParams, "hermes.ask: %v", err)
	}
	if ctx.Err() != nil {
		return hermesproto.AskResult{}, ctx.Err()
	}
	in := agenthost.Input{Prompt: text, Title: a.Prompt, Model: a.Model, Effort: a.Effort}
	var early *progress.Early
	running := s.turns.in(folder.Path) != nil
	if token == nil && !running {
		early = progress.AskEarly(s.goAsync, s.editor) // beside the turn's start: a new turn needs one
	}
	turn, err := sess.Run(ctx, in) // an automatic review gives way; another one refuses
	if errors.Is(err, agenthost.ErrReviewRunning) {
		return hermesproto.AskResult{}, errorf(jsonrpc2.InvalidParams, "a review is running in %s: wait for it, or stop it (hermes.cancel)", folder.Name)
	}
	if err != nil {
		if s.editor.Caps().ShowsResults { // else executeCommand says the error
			s.editor.ShowMessage(ctx, protocol.MessageTypeError, "Hermes could not start the turn: "+err.Error())
		}
		return hermesproto.AskResult{}, errorf(jsonrpc2.InternalError, "could not start the turn: %v", err)
	}
	res := hermesproto.AskResult{ThreadID: turn.ThreadID(), TurnID: turn.TurnID(), Folder: folder.Path, Steered: turn.Steered()}
	var tv *turnView
	if turn.Steered() {
		tv = s.turns.in(folder.Path)
	} else {
		tv = s.watch(ctx, folder, turn, a.Prompt, nil, token, early)
	}
	if tv != nil && a.URI != "" && a.Range != nil {
		// The turn shows where it was asked: hover and an inlay hint on that line.
		s.lines.Origins().Add(a.URI, s.docs.Mark(a.URI, a.Range.Start.Line, ""), tv.rec)
		s.lines.Refresh()
		s.edits.Add(a.URI) // the line has been run: its hint goes
	}
	return res, nil
}

// cancel interrupts the folder's turn; without a uri, every running turn.
func (s *Server) cancel(ctx context.Context, a hermesproto.FolderArgs) (hermesproto.CancelResult, error) {
	views := s.turns.all()
	if a.URI != "" || s.folders.Len() == 1 {
		folder, err := s.resolveFolder(a.URI)
		if err != nil {
			return hermesproto.CancelResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		views = views[:0]
		if tv := s.turns.in(folder.Path); tv != nil {
			views = append(views, tv)
		}
	}
	for _, tv := range views {
		if err := tv.turn.Interrupt(ctx); err != nil {
			return hermesproto.CancelResult{}, errorf(jsonrpc2.InternalError, "stop the turn in %s: %v", tv.folder.Name, err)
		}
	}
	return hermesproto.CancelResult{Cancelled: len(views)}, nil
}

// stateDir is where the host keeps its state: the host's own (a stateDir change applies after a
// restart, for the host and for the diffs and transcripts the server opens alike).
func (s *Server) stateDir() string {
	if h, err := s.hostOrErr(); err == nil {
		return h.StateDir()
	}
	if d := s.settings.Load().StateDir; d != "" {
		return d
	}
	return agenthost.DefaultStateDir()
}
