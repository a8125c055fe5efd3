package codex

// This file is codex's code review: starting one (review/start) and reading its outcome, the text
// codex renders from the model's findings (codex-rs render_review_output_text in 0.171.0):
//
//	<overall explanation>
//
//	Full review comments:          ("Review comment:" for one finding)
//
//	- [P1] Title — /abs/path/file.go:5-7
//	  body line
//	  body line

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// StartReview starts a review on a thread (review/start, delivered inline on that thread) and returns
// once codex accepted it, with the review turn's subscription; the caller must Close it.
func (c *Client) StartReview(ctx context.Context, threadID string, target ReviewTarget) (*Turn, *Subscription, error) {
	sub := c.subscribe(threadID, false)
	var res struct {
		Turn Turn `json:"turn"`
	}
	if err := c.conn.Call(ctx, MethodReviewStart, map[string]any{"threadId": threadID, "target": target}, &res); err != nil {
		sub.Close()
		return nil, nil, c.explain(err)
	}
	if res.Turn.ID == "" {
		sub.Close()
		return nil, nil, fmt.Errorf("%s: codex answered without a turn id", MethodReviewStart)
	}
	sub.arm(res.Turn.ID)
	return &res.Turn, sub, nil
}

// Review is a review's outcome as codex rendered it.
type Review struct {
	// Explanation is the overall explanation (the text before the findings).
	Explanation string
	Findings    []ReviewFinding
}

// ReviewFinding is one finding of a review. What the model wrote is bounded and cleaned (see
// [ParseReview]), except Path: that names a file, and must be checked before it is used.
type ReviewFinding struct {
	Title string
	// Priority is 0 to 3 from a "[P0]".."[P3]" title prefix (removed from Title), -1 when none.
	Priority int
	// Path is the file as codex gave it (absolute), as it is: a name to check, not text to show.
	Path string
	// Start and End are 1-based lines, inclusive: 1 <= Start <= End <= MaxReviewLine.
	Start, End int
	Body       string
}

// The bounds of a finding's parts.
const (
	// MaxReviewTitle is a title's length in characters.
	MaxReviewTitle = 200
	// MaxReviewBody is a body's length in bytes; the explanation has the same bound.
	MaxReviewBody = 8 << 10
	// MaxReviewLine is the last line a finding can name (1-based): LSP's lines are 0 to 2^31-1.
	MaxReviewLine = 1<<31 - 1
)

// The rendered review's pieces.
var (
	reviewHeader = regexp.MustCompile(`(?m)^(Full review comments:|Review comment:)[ \t]*$`)
	// The title is greedy: a title may hold " — " itself, a path rarely does (codex's own parsers
	// split at the last one).
	findingLine   = regexp.MustCompile(`^- (?:\[[ x]\] )?(.+) (?:—|--) (.+?):(\d+)(?:-(\d+))?[ \t]*$`)
	priorityTitle = regexp.MustCompile(`^\[P([0-3])\]\s*(.*)$`)
)

// ParseReview reads a review as codex renders it. A text without a findings header is a review
// without findings (its explanation: "No issues found."); ok is false when a header is there but no
// finding under it parses (not codex's rendering). A finding's body is its indented lines.
//
// The text is the model's: lines are clamped to 1..MaxReviewLine (a range given backwards is
// turned round), the title and the explanation and body are cut to MaxReviewTitle characters and
// MaxReviewBody bytes with "…", and control characters other than newline and tab (escape
// sequences with them) are removed from them; the title is made one line.
func ParseReview(text string) (r Review, ok bool) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	loc := reviewHeader.FindStringIndex(text)
	if loc == nil {
		return Review{Explanation: cleanBody(text)}, true
	}
	r.Explanation = cleanBody(text[:loc[0]])
	var cur *ReviewFinding
	var body []string
	flush := func() {
		if cur != nil {
			cur.Body = cleanBody(strings.Join(body, "\n"))
			r.Findings = append(r.Findings, *cur)
		}
		cur, body = nil, nil
	}
	for _, line := range strings.Split(text[loc[1]:], "\n") {
		if m := findingLine.FindStringSubmatch(line); m != nil {
			flush()
			f := ReviewFinding{Title: strings.TrimSpace(m[1]), Priority: -1, Path: strings.TrimSpace(m[2])}
			f.Start = reviewLine(m[3])
			f.End = f.Start
			if m[4] != "" {
				f.End = reviewLine(m[4])
			}
			if f.End < f.Start {
				f.Start, f.End = f.End, f.Start
			}
			if p := priorityTitle.FindStringSubmatch(f.Title); p != nil {
				f.Priority, _ = strconv.Atoi(p[1])
				f.Title = strings.TrimSpace(p[2])
			}
			f.Title = safetext.Cut(strings.TrimSpace(safetext.Line(f.Title)), MaxReviewTitle)
			cur = &f
			continue
		}
		if cur != nil {
			body = append(body, strings.TrimPrefix(line, "  "))
		}
	}
	flush()
	return r, len(r.Findings) > 0
}

// reviewLine is a finding's line number (digits) clamped to 1..MaxReviewLine.
func reviewLine(digits string) int {
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || n > MaxReviewLine {
		return MaxReviewLine // the digits are all there is: only too many of them fail
	}
	return max(int(n), 1)
}

// cleanBody is a body or an explanation as it is kept: cleaned, trimmed, bounded.
func cleanBody(s string) string {
	return safetext.CutBytes(strings.TrimSpace(safetext.Clean(s)), MaxReviewBody)
}
