package codex_test

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

func TestParseReview(t *testing.T) {
	tests := []struct {
		name string
		text string
		want codex.Review
		ok   bool
	}{
		{
			name: "several findings, as codex 0.171.0 rendered them",
			text: "Sum has an off-by-one error.\n\nFull review comments:\n\n- [P1] Loop stops one short of n — /w/calc.go:5-5\n  The loop condition `i < n` skips n.\n  Sum(3) returns 3.\n\n- Name the result — /w/calc.go:4-7\n  nit",
			want: codex.Review{Explanation: "Sum has an off-by-one error.", Findings: []codex.ReviewFinding{
				{Title: "Loop stops one short of n", Priority: 1, Path: "/w/calc.go", Start: 5, End: 5, Body: "The loop condition `i < n` skips n.\nSum(3) returns 3."},
				{Title: "Name the result", Priority: -1, Path: "/w/calc.go", Start: 4, End: 7, Body: "nit"},
			}},
			ok: true,
		},
		{
			name: "one finding, a single-line range, a path with spaces and a dash in the title",
			text: "Review comment:\n\n- [P0] Crash — on empty input — /w/my dir/a b.go:7\n  Index out of range.",
			want: codex.Review{Findings: []codex.ReviewFinding{
				{Title: "Crash — on empty input", Priority: 0, Path: "/w/my dir/a b.go", Start: 7, End: 7, Body: "Index out of range."},
			}},
			ok: true,
		},
		{
			name: "the older separator and a reversed range",
			text: "x\n\nReview comment:\n\n- [P3] Typo -- /w/a.go:9-8\n  body",
			want: codex.Review{Explanation: "x", Findings: []codex.ReviewFinding{{Title: "Typo", Priority: 3, Path: "/w/a.go", Start: 8, End: 9, Body: "body"}}},
			ok:   true,
		},
		{
			name: "lines past LSP's range, line 0, digits past int64",
			text: "Full review comments:\n\n- A — /w/a.go:99999999999-99999999999\n  b\n\n- B — /w/a.go:0\n  b\n\n- C — /w/a.go:3-99999999999999999999999\n  b",
			want: codex.Review{Findings: []codex.ReviewFinding{
				{Title: "A", Priority: -1, Path: "/w/a.go", Start: codex.MaxReviewLine, End: codex.MaxReviewLine, Body: "b"},
				{Title: "B", Priority: -1, Path: "/w/a.go", Start: 1, End: 1, Body: "b"},
				{Title: "C", Priority: -1, Path: "/w/a.go", Start: 3, End: codex.MaxReviewLine, Body: "b"},
			}},
			ok: true,
		},
		{
			name: "escape sequences and control characters in the explanation, title and body",
			text: "Fine\x1b]0;pwned\x07.\r\n\nReview comment:\n\n- [P2] Red\x1b[31m title\x00\r — /w/a.go:2\n  body\x1b]8;;https://evil.example\x1b\\ link\x7f\r\n  \tnext\x08",
			want: codex.Review{Explanation: "Fine.", Findings: []codex.ReviewFinding{
				{Title: "Red title", Priority: 2, Path: "/w/a.go", Start: 2, End: 2, Body: "body link\n\tnext"},
			}},
			ok: true,
		},
		{name: "no findings", text: "No issues found. The change is correct.", want: codex.Review{Explanation: "No issues found. The change is correct."}, ok: true},
		{name: "a header with nothing that parses", text: "Full review comments:\n\n- just a bullet\n", want: codex.Review{}, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := codex.ParseReview(tt.text)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseReview = %+v, %v\nwant %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestParseReviewBounds: a title is cut to 200 characters, a body to 8 KiB, each ending in "…".
func TestParseReviewBounds(t *testing.T) {
	title := strings.Repeat("é", 300)
	body := strings.Repeat("x", 20000)
	r, ok := codex.ParseReview("Review comment:\n\n- " + title + " — /w/a.go:1\n  " + body)
	if !ok || len(r.Findings) != 1 {
		t.Fatalf("ParseReview: %v %+v", ok, r)
	}
	f := r.Findings[0]
	if n := utf8.RuneCountInString(f.Title); n != codex.MaxReviewTitle || !strings.HasSuffix(f.Title, "…") {
		t.Errorf("title of %d characters: %q", n, f.Title)
	}
	if n := len(f.Body); n > codex.MaxReviewBody || n < codex.MaxReviewBody-4 || !strings.HasSuffix(f.Body, "…") {
		t.Errorf("body of %d bytes, ending %q", n, f.Body[max(0, len(f.Body)-10):])
	}
}

// FuzzReviewText: on any text, ParseReview does not panic, and every finding it reads has lines in
// 1..MaxReviewLine with Start <= End, a priority in -1..3, a one-line title of at most 200
// characters and a body of at most 8 KiB, both valid UTF-8 without control characters but newline
// and tab (the title not even those).
func FuzzReviewText(f *testing.F) {
	for _, s := range []string{
		"Sum has an off-by-one error.\n\nFull review comments:\n\n- [P1] Loop stops one short of n — /w/calc.go:5-5\n  The loop condition `i < n` skips n.\n\n- Name the result — /w/calc.go:4-7\n  nit",
		"Review comment:\n\n- [P0] Crash — on empty input — /w/my dir/a b.go:7\n  Index out of range.",
		"x\n\nReview comment:\n\n- [P3] Typo -- /w/a.go:9-8\n  body",
		"Review comment:\n\n- [x] A\x1b[31m — /w/a.go:99999999999-0\n  \x1b]8;;u\x07b\r\x00",
		"No issues found.",
		"Full review comments:\n\n- just a bullet\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, ok := codex.ParseReview(text)
		if ok == (len(r.Findings) == 0 && reviewHeader(text)) {
			t.Fatalf("not a review, yet %+v", r)
		}
		checkText(t, "explanation", r.Explanation, codex.MaxReviewBody, true)
		for _, f := range r.Findings {
			if f.Start < 1 || f.End < f.Start || f.End > codex.MaxReviewLine {
				t.Fatalf("lines %d-%d out of 1..%d or reversed", f.Start, f.End, codex.MaxReviewLine)
			}
			if f.Priority < -1 || f.Priority > 3 {
				t.Fatalf("priority %d", f.Priority)
			}
			if n := utf8.RuneCountInString(f.Title); n > codex.MaxReviewTitle {
				t.Fatalf("a title of %d characters", n)
			}
			checkText(t, "title", f.Title, 4*codex.MaxReviewTitle, false)
			checkText(t, "body", f.Body, codex.MaxReviewBody, true)
		}
	})
}

// checkText fails unless s is valid UTF-8 of at most limit bytes, without control characters (but
// newline and tab when lines is true).
func checkText(t *testing.T, what, s string, limit int, lines bool) {
	t.Helper()
	if len(s) > limit || !utf8.ValidString(s) {
		t.Fatalf("%s of %d bytes (limit %d), valid UTF-8 %v", what, len(s), limit, utf8.ValidString(s))
	}
	for _, c := range s {
		if lines && (c == '\n' || c == '\t') {
			continue
		}
		if c < 0x20 || c >= 0x7f && c <= 0x9f {
			t.Fatalf("%s holds %U: %q", what, c, s)
		}
	}
}

// reviewHeader reports whether text has a line that starts a review's findings.
func reviewHeader(text string) bool {
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if l = strings.TrimRight(l, " \t"); l == "Full review comments:" || l == "Review comment:" {
			return true
		}
	}
	return false
}
