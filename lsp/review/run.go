package review

// This file is hermes.review: codex reviews a folder's changes on a thread of its own and its
// findings become diagnostics; and the automatic review after a heavy turn.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/settings"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Run is one review as its turn's followers know it.
type Run struct {
	ID    string
	Label string
	Auto  bool // started by itself after a turn: the next prompt cancels it
}

// runSeq numbers the reviews of the process.
var runSeq atomic.Int64

// Reviews starts reviews, follows them to their findings, and offers the findings' code actions.
type Reviews struct {
	findings *Findings
	cfg      ReviewsConfig
}

// ReviewsConfig is what Reviews needs of the server.
type ReviewsConfig struct {
	Editor *editor.Client
	Log    *slog.Logger
	// Settings are the settings in force (review.enabled, review.afterTurn).
	Settings func() *settings.Settings
	// Session is a folder's session of the host.
	Session func(folder string) (*agenthost.Session, error)
	// Follow follows a review's turn as the server follows every turn (progress, events), and
	// calls Reviews.Finish when it ends with a result.
	Follow func(ctx context.Context, folder workspace.Folder, turn *agenthost.Turn, run *Run, token *protocol.ProgressToken)
}

// NewReviews returns the reviews whose findings go to findings.
func NewReviews(findings *Findings, cfg ReviewsConfig) *Reviews {
	return &Reviews{findings: findings, cfg: cfg}
}

// Findings are the findings the reviews found.
func (r *Reviews) Findings() *Findings { return r.findings }

// Enabled reports the review.enabled setting.
func (r *Reviews) Enabled() bool { return r.cfg.Settings().Review.Enabled }

// Target checks a target and returns it as codex takes it, with a label for people.
func Target(t *hermesproto.ReviewTarget) (json.RawMessage, string, error) {
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

// Ask is hermes.review in folder: the review of target, followed with the client's token when it
// gave one.
func (r *Reviews) Ask(ctx context.Context, folder workspace.Folder, sess *agenthost.Session, target *hermesproto.ReviewTarget, token *protocol.ProgressToken) (hermesproto.ReviewResult, error) {
	if !r.Enabled() {
		return hermesproto.ReviewResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "reviews are off (setting hermes.review.enabled)")
	}
	raw, label, err := Target(target)
	if err != nil {
		return hermesproto.ReviewResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "hermes.review: "+err.Error())
	}
	return r.start(ctx, folder, sess, raw, label, false, token)
}

// start starts a review and follows it like a turn.
func (r *Reviews) start(ctx context.Context, folder workspace.Folder, sess *agenthost.Session, target json.RawMessage, label string, auto bool, token *protocol.ProgressToken) (hermesproto.ReviewResult, error) {
	turn, err := sess.Review(ctx, target, label, auto)
	if err != nil {
		if errors.Is(err, agenthost.ErrBusy) {
			return hermesproto.ReviewResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("a turn is running in %s: review when it ends", folder.Name))
		}
		return hermesproto.ReviewResult{}, jsonrpc2.NewError(jsonrpc2.InternalError, "start the review: "+err.Error())
	}
	run := &Run{ID: "review-" + strconv.FormatInt(runSeq.Add(1), 10) + "-" + strconv.FormatInt(time.Now().Unix(), 36), Label: label, Auto: auto}
	r.cfg.Follow(ctx, folder, turn, run, token)
	return hermesproto.ReviewResult{ReviewID: run.ID, ThreadID: turn.ThreadID(), TurnID: turn.TurnID(), Folder: folder.Path}, nil
}

// Finish turns a finished review into diagnostics and a message.
func (r *Reviews) Finish(ctx context.Context, folder workspace.Folder, run *Run, res *hermesproto.Result) {
	if res == nil || !res.Completed {
		why := "it ended early"
		if res != nil && res.Error != "" {
			why = annotate.FirstLine(res.Error)
		}
		if run.Auto && res != nil && res.Status == agenthost.StatusInterrupted {
			return // cancelled by the next prompt: nothing to say
		}
		r.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("Hermes review of %s in %s did not finish (%s): the findings of the last review stay.", run.Label, folder.Name, why))
		return
	}
	rv, ok := codex.ParseReview(res.FinalText)
	if !ok {
		r.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes review: codex's answer is not a review; read it in the transcript: "+res.TranscriptPath)
		return
	}
	list := make([]*Finding, len(rv.Findings))
	for i, f := range rv.Findings {
		// ParseReview keeps lines in 1..codex.MaxReviewLine; Findings.Set checks the rest.
		list[i] = &Finding{
			ReviewID: run.ID, FindingID: strconv.Itoa(i + 1), Title: f.Title, Priority: f.Priority,
			Path: f.Path, Start: uint32(f.Start - 1), End: uint32(f.End - 1), Body: f.Body,
		}
	}
	list, placed := r.findings.Set(ctx, folder.Path, list)
	counts := map[string]int{}
	for _, f := range list {
		counts[priorityName(f.Priority)]++
	}
	msg := fmt.Sprintf("Hermes review of %s in %s: %s.", run.Label, folder.Name, findingCounts(len(list), counts))
	if r.cfg.Editor.Caps().PlainMessages {
		msg = fmt.Sprintf("Hermes review of %s in %s: %s.", run.Label, folder.ShortName(), findingCounts(len(list), counts))
		// One line: the counts first, then as much of the explanation as fits; the findings are
		// the diagnostics, the rest is in the transcript.
		if rv.Explanation != "" {
			msg += " " + safetext.Summary(rv.Explanation, 120)
		}
		if p := strings.TrimSpace(safetext.Line(placed.String())); p != "" {
			msg += " (" + p + ")"
		}
		r.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeInfo, msg)
		return
	}
	if rv.Explanation != "" {
		msg += " " + agenthost.Truncate(rv.Explanation, 300)
	}
	msg += placed.String()
	if res.TranscriptPath != "" {
		msg += "\nTranscript: " + res.TranscriptPath
	}
	r.cfg.Editor.ShowMessage(ctx, protocol.MessageTypeInfo, msg)
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
	return fmt.Sprintf("%d %s (%s), as diagnostics", n, word, strings.Join(parts, ", "))
}

// AfterTurn starts the automatic review when a turn asks for it: completed, files changed
// (changedFiles), and at least review.afterTurn.minToolCalls tool calls.
func (r *Reviews) AfterTurn(ctx context.Context, folder workspace.Folder, changedFiles bool, res *hermesproto.Result) {
	st := r.cfg.Settings().Review
	n := st.AfterTurn.MinToolCalls
	if !st.Enabled || n <= 0 || res == nil {
		return
	}
	if !res.Completed || res.ToolIterations < n || !changedFiles {
		// Logged so that the decision can be seen, and waited for, when no review follows.
		r.cfg.Log.Debug("no automatic review", "folder", folder.Path, "completed", res.Completed,
			"toolCalls", res.ToolIterations, "minToolCalls", n, "changedFiles", changedFiles)
		return
	}
	sess, err := r.cfg.Session(folder.Path)
	if err != nil {
		return
	}
	target, label, _ := Target(nil)
	if _, err := r.start(ctx, folder, sess, target, label, true, nil); err != nil {
		r.cfg.Log.Info("no automatic review", "folder", folder.Path, "err", err)
	}
}

// Actions are the code actions on the findings in rng of the document at docURI, in folder: fix it
// (a turn whose prompt quotes it), dismiss it, dismiss all of the folder's. command makes an
// action's command.
func (r *Reviews) Actions(docURI, folder string, rng protocol.Range, command func(title, name string, arg any) *protocol.Command) []protocol.CodeAction {
	if !r.Enabled() {
		return nil
	}
	var out []protocol.CodeAction
	for _, f := range r.findings.At(docURI, rng) {
		start, end, _ := f.Lines()
		d := r.findings.Diagnostic(f)
		rel := f.Path
		if folder != "" {
			rel, _ = workspace.Rel(folder, f.Path)
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

// Save keeps a folder's findings in its session's state (Config.Save).
func (r *Reviews) Save(folder string, data []byte) error {
	sess, err := r.cfg.Session(folder)
	if err != nil {
		return err
	}
	return sess.SaveReview(data)
}

// LoadSaved publishes the findings saved for each of folders (at start).
func (r *Reviews) LoadSaved(ctx context.Context, folders []workspace.Folder) {
	for _, f := range folders {
		sess, err := r.cfg.Session(f.Path)
		if err != nil {
			continue
		}
		data, err := sess.LoadReview()
		if err != nil {
			r.cfg.Log.Warn("the saved review findings cannot be read", "folder", f.Path, "err", err)
			continue
		}
		r.findings.Load(ctx, f.Path, data)
	}
}
