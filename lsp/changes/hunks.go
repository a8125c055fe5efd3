package changes

// This file finds the hunks of a patch: the file before the turn's first patch of it and after this
// patch, diffed line by line, and the lines of a text as the editor counts them.

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	// go-udiff is x/tools' internal diff, exported and kept in step with it: a line diff (Myers'
	// algorithm with a bounded search, so a large rewrite costs little) that needs no parsing of
	// codex's own diff text, which is the model's and may not match the file.
	"github.com/aymanbagabas/go-udiff"
)

// hunk is one region a patch changed: whole lines of the text before replaced by whole lines of the
// text after.
type hunk struct {
	line    uint32 // the first line of new in the text after (0-based); for a deletion, the line after
	added   int    // lines of new
	removed int    // lines of old
	old     string // the text before's lines, with their line breaks
	new     string // the text after's lines, with their line breaks
	anchor  string // for a deletion (added 0), the text of the line after it in the text after
}

// diffHunks returns the hunks that make before into after, in order. Both are texts whose only line
// break is "\n" (or "\r\n"): see reviewable.
func diffHunks(before, after string) []hunk {
	edits := udiff.Lines(before, after)
	var out []hunk
	line, pos := uint32(0), 0 // the line of after at byte pos, counted as the edits go
	delta := 0                // the byte offset in after of an offset in before, less that offset
	for i := 0; i < len(edits); i++ {
		e := edits[i]
		for i+1 < len(edits) && edits[i+1].Start == e.End { // adjacent edits are one hunk
			e.End, e.New = edits[i+1].End, e.New+edits[i+1].New
			i++
		}
		at := e.Start + delta
		line += uint32(strings.Count(after[pos:at], "\n"))
		pos = at
		h := hunk{line: line, added: countLines(e.New), removed: countLines(before[e.Start:e.End]), old: before[e.Start:e.End], new: e.New}
		if h.added == 0 {
			h.anchor = lineAt(after, at)
		}
		out = append(out, h)
		delta += len(e.New) - (e.End - e.Start)
	}
	return out
}

// reviewable reports whether a file's text can be diffed into hunks the editor's lines agree with:
// a lone "\r", which the editor counts as a line break and the diff does not, makes it not.
func reviewable(text string) bool {
	return strings.Count(text, "\r") == strings.Count(text, "\r\n")
}

// countLines is how many lines s holds: its line breaks, and a last line without one.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// lineAt is the text of the line that starts at byte i of text, without its line break.
func lineAt(text string, i int) string {
	rest := text[i:]
	if j := strings.IndexAny(rest, "\r\n"); j >= 0 {
		return rest[:j]
	}
	return rest
}

// lines are the byte offsets of a text's line starts, with lines counted as the editor counts them
// (textdoc): a line ends at "\n", "\r\n" or "\r", and a text ending in a line break has an empty
// last line after it. There is always a line 0.
type lines struct {
	text   string
	starts []int
}

func newLines(text string) lines {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		case '\n':
			starts = append(starts, i+1)
		}
	}
	return lines{text: text, starts: starts}
}

// count is the number of lines.
func (l lines) count() int { return len(l.starts) }

// region is the bytes of n whole lines from line s (their line breaks included; to the end of the
// text when they reach its last line), and ok false when s is past the last line.
func (l lines) region(s uint32, n int) (start, end int, ok bool) {
	if int(s) >= len(l.starts) {
		return 0, 0, false
	}
	start = l.starts[s]
	if next := int(s) + n; next < len(l.starts) {
		return start, l.starts[next], true
	}
	return start, len(l.text), true
}

// line is the text of line s without its line break, "" past the last line.
func (l lines) line(s uint32) string {
	if int(s) >= len(l.starts) {
		return ""
	}
	return lineAt(l.text, l.starts[s])
}

// sum is the hex SHA-256 of s.
func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
