package changes

import (
	"fmt"
	"strings"
	"testing"
)

// numbered is lines "line 1\n" to "line n\n".
func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d\n", i+1)
	}
	return out
}

// TestDiffHunks: each region a patch changed is one hunk with its lines in the text after, its
// counts and its texts; the bytes of its lines in the text after (as the editor counts lines) are
// its new text, and putting its old text there gives the text before.
func TestDiffHunks(t *testing.T) {
	base := numbered(20)
	edit := func(f func([]string) []string) string {
		return strings.Join(f(append([]string(nil), base...)), "")
	}
	before := strings.Join(base, "")
	for _, c := range []struct {
		name  string
		after string
		want  []hunk
	}{
		{"two hunks", edit(func(l []string) []string {
			l[2] = "LINE 3\n"
			l[14] = "LINE 15\nand 15b\n"
			return l
		}), []hunk{
			{line: 2, added: 1, removed: 1, old: "line 3\n", new: "LINE 3\n"},
			{line: 14, added: 2, removed: 1, old: "line 15\n", new: "LINE 15\nand 15b\n"},
		}},
		{"insertion and deletion", edit(func(l []string) []string {
			l = append(l[:5], append([]string{"new a\n", "new b\n"}, l[5:]...)...)
			return append(l[:10], l[12:]...) // lines 9 and 10 of before
		}), []hunk{
			{line: 5, added: 2, old: "", new: "new a\nnew b\n"},
			{line: 10, removed: 2, old: "line 9\nline 10\n", anchor: "line 11"},
		}},
		{"the end, without a line break", edit(func(l []string) []string {
			return append(l[:19], "line 20 changed")
		}), []hunk{{line: 19, added: 1, removed: 1, old: "line 20\n", new: "line 20 changed"}}},
		{"the end deleted", edit(func(l []string) []string { return l[:18] }), []hunk{
			{line: 18, removed: 2, old: "line 19\nline 20\n", anchor: ""},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := diffHunks(before, c.after)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("hunks\n%+v\nwant\n%+v", got, c.want)
			}
			l := newLines(c.after)
			back := c.after
			for i := len(got) - 1; i >= 0; i-- {
				h := got[i]
				start, end, ok := l.region(h.line, h.added)
				if !ok || c.after[start:end] != h.new {
					t.Fatalf("hunk %d's lines in the text after: %q (%v), want %q", i, c.after[start:end], ok, h.new)
				}
				back = back[:start] + h.old + back[end:]
			}
			if back != before {
				t.Errorf("the old texts put back give\n%q", back)
			}
		})
	}
}

// TestLinesAsTheEditorCounts: a text's lines are counted as the editor counts them (CRLF and a lone
// CR end a line, a last line break has an empty line after it), and a file with a lone CR is not
// diffed.
func TestLinesAsTheEditorCounts(t *testing.T) {
	l := newLines("a\r\nb\rc\n")
	if l.count() != 4 || l.line(0) != "a" || l.line(1) != "b" || l.line(2) != "c" || l.line(3) != "" {
		t.Errorf("lines %v", l.starts)
	}
	if start, end, ok := l.region(1, 2); !ok || l.text[start:end] != "b\rc\n" {
		t.Errorf("region of lines 1-2: %q", l.text[start:end])
	}
	if _, _, ok := l.region(4, 0); ok {
		t.Error("a region past the last line")
	}
	if reviewable("a\rb") || !reviewable("a\r\nb\n") {
		t.Error("reviewable")
	}
}

// BenchmarkDiffHunks: the hunks of a patch of two hunks in a file of 2,000 lines, and of the largest
// file under review (MaxFileBytes) with a change every 1,000 lines.
func BenchmarkDiffHunks(b *testing.B) {
	for _, c := range []struct {
		name  string
		lines int
		every int
	}{{"2k-lines-2-hunks", 2000, 1000}, {"4MiB-every-1k-lines", MaxFileBytes / len("line 100000\n"), 1000}} {
		base := numbered(c.lines)
		before := strings.Join(base, "")
		for i := 3; i < len(base); i += c.every {
			base[i] = "CHANGED\n"
		}
		after := strings.Join(base, "")
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(after)))
			for b.Loop() {
				diffHunks(before, after)
			}
		})
	}
}
