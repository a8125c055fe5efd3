package codex_test

import (
	"reflect"
	"testing"

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
