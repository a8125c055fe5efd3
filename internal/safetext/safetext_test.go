package safetext_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\n\twith a tab", "plain text\n\twith a tab"},
		{"red \x1b[31mtext\x1b[0m back", "red text back"},
		{"a link \x1b]8;;https://evil.example\x07here\x1b]8;;\x07 end", "a link here end"},
		{"title \x1b]0;pwned\x1b\\ set", "title  set"},
		{"dcs \x1bPq#0;2;0;0;0\x1b\\ done", "dcs  done"},
		{"charset \x1b(B and \x1bc reset", "charset  and  reset"},
		{"unended \x1b]8;;x stays", "unended 8;;x stays"},
		{"cut short \x1b[12", "cut short 12"},
		{"trailing \x1b", "trailing "},
		{"crlf\r\nlone\rcr", "crlf\nlonecr"},
		{"nul\x00 bel\x07 bs\x08 del\x7f vt\x0b ff\x0c", "nul bel bs del vt ff"},
		{"c1 \u009b31m csi and \u0085 nel", "c1 31m csi and  nel"},
		{"bad utf-8 \xff\xfe here", "bad utf-8 \uFFFD here"},
		{"unicode é 日本 — ok", "unicode é 日本 — ok"},
		{"bidi \u202Eevil\u202C and \u2066iso\u2069 \u200Fmark", "bidi evil and iso mark"},
	}
	for _, tt := range tests {
		if got := safetext.Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLine(t *testing.T) {
	if got := safetext.Line("a\nb\tc\x1b[1m\r\n"); got != "a b c " {
		t.Errorf("Line = %q", got)
	}
}

func TestCut(t *testing.T) {
	if got := safetext.Cut("ééééé", 5); got != "ééééé" {
		t.Errorf("Cut at its length = %q", got)
	}
	if got := safetext.Cut("ééééé", 3); got != "éé…" {
		t.Errorf("Cut 3 = %q", got)
	}
	if got := safetext.Cut("abc", 0); got != "" {
		t.Errorf("Cut 0 = %q", got)
	}
	if got := safetext.CutBytes("abc", 3); got != "abc" {
		t.Errorf("CutBytes at its length = %q", got)
	}
	// "é" is two bytes: 7 bytes leave room for 4 before "…", which falls inside the third é.
	if got := safetext.CutBytes("éééééé", 7); got != "éé…" || len(got) > 7 {
		t.Errorf("CutBytes 7 = %q", got)
	}
	if got := safetext.CutBytes("abcdef", 2); got != "" {
		t.Errorf("CutBytes 2 = %q", got)
	}
}

// FuzzClean: whatever the input, the result is valid UTF-8 without control characters other than
// newline and tab, no longer than the input allows, and cleaning it again changes nothing.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a\x1b[31mb", "\x1b]8;;u\x07x", "\r\n\x00\u009b", "\xff", "é\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := safetext.Clean(s)
		if !utf8.ValidString(c) {
			t.Fatalf("Clean(%q) = %q: not UTF-8", s, c)
		}
		for _, r := range c {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
				t.Fatalf("Clean(%q) = %q holds %U", s, c, r)
			}
		}
		if again := safetext.Clean(c); again != c {
			t.Fatalf("Clean is not stable: %q then %q", c, again)
		}
		if l := safetext.Line(s); strings.ContainsAny(l, "\n\t") {
			t.Fatalf("Line(%q) = %q", s, l)
		}
		if got := safetext.Cut(c, 10); utf8.RuneCountInString(got) > 10 {
			t.Fatalf("Cut(%q, 10) = %q", c, got)
		}
		if got := safetext.CutBytes(c, 10); len(got) > 10 || !utf8.ValidString(got) {
			t.Fatalf("CutBytes(%q, 10) = %q", c, got)
		}
	})
}

// TestSummary: an answer in markdown on one line: no fences, no markup, code blocks named, cut.
func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"Done in Helix.", 80, "Done in Helix."},
		{"## Changes\n\n1. Fixed the loop:\n\n```go\nfor i := 1; i <= n; i++ {\n}\n```\n\n- **Sum** now counts `n`.", 200,
			"Changes 1. Fixed the loop: (code) Sum now counts n."},
		{"> quoted\n* [ ] task\n- [x] done", 80, "quoted [ ] task done"},
		{"word \x1b[31mred\x1b[0m", 80, "word red"},
		{strings.Repeat("long words ", 20), 20, "long words long wor…"},
	} {
		if got := safetext.Summary(tc.in, tc.n); got != tc.want {
			t.Errorf("Summary(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
