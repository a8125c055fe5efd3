package lsp

// This file is hermes.review: codex reviews the folder's changes on a thread of its own, and its
// findings become diagnostics (lsp/review); and the automatic review after a heavy turn.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/review"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// reviewRun is what a turn view knows of the review it runs.
type reviewRun struct {
	id    string
	label string
	auto  bool // started by itself after a turn: the next prompt cancels it
}

// reviewSeq numbers the reviews of the process.
var reviewSeq atomic.Int64

func (s *Server) reviewEnabled() bool { return s.settings.Load().Review.Enabled }

// reviewTarget checks a target and returns it as codex takes it, with a label for people.
func reviewTarget(t *hermesproto.ReviewTarget) (json.RawMessage, string, error) {
	if t == nil {
		t = &hermesproto.ReviewTarget{Type: "uncommittedChanges"}
	}
	var v any
	var label string
	switch t.Type {
	case "uncommittedChanges", "":
		v, label = map[string]string{"type": "uncommittedChanges"}, "the uncommitted changes"
	case "baseBranch":
		if t.Branch == "" {
			return nil, "", errors.New("a baseBranch review needs a branch")
		}
		v, label = map[string]string{"type": "baseBranch", "branch": t.Branch}, "the changes against "+t.Branch
	case "commit":
		if t.Sha == "" {
			return nil, "", errors.New("a commit review needs a sha")
		}
		m := map[string]string{"type": "commit", "sha": t.Sha}
		if t.Title != "" {
			m["title"] = t.Title
		}
		v, label = m, "commit "+agenthost.Truncate(t.Sha, 12)
	case "custom":
		if strings.TrimSpace(t.Instructions) == "" {
			return nil, "", errors.New("a custom review needs instructions")
		}
		v, label = map[string]string{"type": "custom", "instructions": t.Instructions}, "by your instructions"
	default:
		return nil, "", fmt.Errorf("unknown review target %q: use uncommittedChanges, baseBranch, commit or custom", t.Type)
	}
	b, _ := json.Marshal(v)
	return b, label, nil
}

// review is hermes.review.
func (s *Server) review(ctx context.Context, a hermesproto.ReviewArgs, token *protocol.ProgressToken) (hermesproto.ReviewResult, error) {
	if !s.reviewEnabled() {
		return hermesproto.ReviewResult{}, errorf(jsonrpc2.InvalidParams, "reviews are off (setting hermes.review.enabled)")
	}
	folder, sess, err := s.sessionFor(a.URI)
	if err != nil {
		return hermesproto.ReviewResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	target, label, err := reviewTarget(a.Target)
	if err != nil {
		return hermesproto.ReviewResult{}, errorf(jsonrpc2.InvalidParams, "hermes.review: %v", err)
	}
	return s.startReview(ctx, folder, sess, target, label, false, token)
}

// startReview starts a review and follows it like a turn.
func (s *Server) startReview(ctx context.Context, folder workspace.Folder, sess *agenthost.Session, target json.RawMessage, label string, auto bool, token *protocol.ProgressToken) (hermesproto.ReviewResult, error) {
	turn, err := sess.Review(ctx, target, label, auto)
	if err != nil {
		if errors.Is(err, agenthost.ErrBusy) {
			return hermesproto.ReviewResult{}, errorf(jsonrpc2.InvalidParams, "a turn is running in %s: review when it ends", folder.Name)
		}
		return hermesproto.ReviewResult{}, errorf(jsonrpc2.InternalError, "start the review: %v", err)
	}
	run := &reviewRun{id: "review-" + strconv.FormatInt(reviewSeq.Add(1), 10) + "-" + strconv.FormatInt(time.Now().Unix(), 36), label: label, auto: auto}
	s.watchReview(ctx, folder, turn, run, token)
	return hermesproto.ReviewResult{ReviewID: run.id, ThreadID: turn.ThreadID(), TurnID: turn.TurnID(), Folder: folder.Path}, nil
}

// finishReview turns a finished review into diagnostics and a message.
func (s *Server) finishReview(ctx context.Context, tv *turnView, res *hermesproto.Result) {
	run := tv.review
	if res == nil || !res.Completed {
		why := "it ended early"
		if res != nil && res.Error != "" {
			why = annotate.FirstLine(res.Error)
		}
		if run.auto && res != nil && res.Status == agenthost.StatusInterrupted {
			return // cancelled by the next prompt: nothing to say
		}
		s.editor.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("Hermes review of %s in %s did not finish (%s): the findings of the last review stay.", run.label, tv.folder.Name, why))
		return
	}
	rv, ok := codex.ParseReview(res.FinalText)
	if !ok {
		s.editor.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes review: codex's answer is not a review; read it in the transcript: "+res.TranscriptPath)
		return
	}
	list := make([]*review.Finding, len(rv.Findings))
	for i, f := range rv.Findings {
		// ParseReview keeps lines in 1..codex.MaxReviewLine; Findings.Set checks the rest.
		list[i] = &review.Finding{
			ReviewID: run.id, FindingID: strconv.Itoa(i + 1), Title: f.Title, Priority: f.Priority,
			Path: f.Path, Start: uint32(f.Start - 1), End: uint32(f.End - 1), Body: f.Body,
		}
	}
	list, placed := s.findings.Set(ctx, tv.folder.Path, list)
	counts := map[string]int{}
	for _, f := range list {
		counts[priorityName(f.Priority)]++
	}
	msg := fmt.Sprintf("Hermes review of %s in %s: %s.", run.label, tv.folder.Name, findingCounts(len(list), counts))
	if rv.Explanation != "" {
		msg += " " + agenthost.Truncate(rv.Explanation, 300)
	}
	msg += placed.String()
	if res.TranscriptPath != "" {
		msg += "\nTranscript: " + res.TranscriptPath
	}
	s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, msg)
}

func priorityName(p int) string {
	if p < 0 {
		return "unranked"
	}
	return fmt.Sprintf("P%d", p)
}

// findingCounts says "no findings" or "3 findings (P1 1, P2 2)".
func findingCounts(n int, counts map[string]int) string {
	if n == 0 {
		return "no findings"
	}
	var parts []string
	for _, p := range []string{"P0", "P1", "P2", "P3", "unranked"} {
		if counts[p] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", p, counts[p]))
		}
	}
	word := "findings"
	if n == 1 {
		word = "finding"
	}
	return fmt.Sprintf("%d %s (%s), in the problems list", n, word, strings.Join(parts, ", "))
}

// afterTurn starts the automatic review when the turn asks for it: completed, files changed, and
// at least review.afterTurn.minToolCalls tool calls.
func (s *Server) afterTurn(ctx context.Context, tv *turnView, res *hermesproto.Result) {
	st := s.settings.Load().Review
	n := st.AfterTurn.MinToolCalls
	if !st.Enabled || n <= 0 || res == nil {
		return
	}
	if changed := tv.rec.ChangedFiles(); !res.Completed || res.ToolIterations < n || !changed {
		// Logged so that the decision can be seen, and waited for, when no review follows.
		s.log.Debug("no automatic review", "folder", tv.folder.Path, "completed", res.Completed,
			"toolCalls", res.ToolIterations, "minToolCalls", n, "changedFiles", changed)
		return
	}
	h, err := s.hostOrErr()
	if err != nil {
		return
	}
	sess, err := h.Session(tv.folder.Path)
	if err != nil {
		return
	}
	target, label, _ := reviewTarget(nil)
	if _, err := s.startReview(ctx, tv.folder, sess, target, label, true, nil); err != nil {
		s.log.Info("no automatic review", "folder", tv.folder.Path, "err", err)
	}
}

// findingActions are the code actions on the findings in rng: fix it (a turn whose prompt quotes
// it), dismiss it, dismiss all of the folder's.
func (s *Server) findingActions(docURI string, rng protocol.Range, command func(title, name string, arg any) *protocol.Command) []protocol.CodeAction {
	if !s.reviewEnabled() {
		return nil
	}
	var out []protocol.CodeAction
	for _, f := range s.findings.At(docURI, rng) {
		start, end, _ := f.Lines()
		d := s.findings.Diagnostic(f)
		rel := f.Path
		if folder, err := s.resolveFolder(docURI); err == nil {
			rel, _ = workspace.Rel(folder.Path, f.Path)
		}
		prompt := fmt.Sprintf("Fix this review finding in %s (lines %d-%d): %s\n\n%s", rel, start+1, end+1, f.Title, f.Body)
		fixRange := d.Range
		out = append(out,
			protocol.CodeAction{
				Title: hermesproto.CodeActionTitleFixFinding, Kind: protocol.QuickFix, IsPreferred: true, Diagnostics: []protocol.Diagnostic{d},
				Command: command(hermesproto.CodeActionTitleFixFinding, hermesproto.CmdAsk, hermesproto.AskArgs{Prompt: strings.TrimSpace(prompt), URI: docURI, Range: &fixRange}),
			},
			protocol.CodeAction{
				Title: hermesproto.CodeActionTitleDismiss, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{d},
				Command: command(hermesproto.CodeActionTitleDismiss, hermesproto.CmdDismissFinding, hermesproto.FindingRef{ReviewID: f.ReviewID, FindingID: f.FindingID}),
			},
		)
	}
	if len(out) > 0 {
		out = append(out, protocol.CodeAction{
			Title: hermesproto.CodeActionTitleDismissAll, Kind: protocol.QuickFix,
			Command: command(hermesproto.CodeActionTitleDismissAll, hermesproto.CmdDismissReview, hermesproto.FolderArgs{URI: docURI}),
		})
	}
	return out
}

// saveFindings keeps a folder's findings in its state (review.Config.Save).
func (s *Server) saveFindings(folder string, data []byte) error {
	h, err := s.hostOrErr()
	if err != nil {
		return err
	}
	sess, err := h.Session(folder)
	if err != nil {
		return err
	}
	return sess.SaveReview(data)
}

// loadFindings publishes the findings saved for each folder (at start).
func (s *Server) loadFindings(ctx context.Context, h *agenthost.Host) {
	for _, f := range s.folders.List() {
		sess, err := h.Session(f.Path)
		if err != nil {
			continue
		}
		data, err := sess.LoadReview()
		if err != nil {
			s.log.Warn("the saved review findings cannot be read", "folder", f.Path, "err", err)
			continue
		}
		s.findings.Load(ctx, f.Path, data)
	}
}
