// Package safetext makes text that the model, codex or a repository wrote fit to show the user:
// nothing in it acts on a terminal or an editor (control characters and escape sequences are
// removed), and its length is bounded.
package safetext

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis ends text that was cut.
const Ellipsis = "…"

// Clean returns s without what could act rather than be read: terminal escape sequences (CSI
// "ESC [ … final", the string sequences OSC "ESC ] … BEL" and DCS, SOS, PM, APC ended by BEL or
// "ESC \", other "ESC intermediates final" sequences), every other C0 control character but
// newline and tab (a lone carriage return, NUL, ESC itself), DEL, the C1 controls
// U+0080..U+009F, and the bidirectional controls that reorder what is read (U+061C, U+200E,
// U+200F, U+202A..U+202E, U+2066..U+2069). "\r\n" becomes "\n", and invalid UTF-8 becomes U+FFFD. Text without any of
// these is returned as it is.
func Clean(s string) string {
	if isClean(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i)
		case c == '\n' || c == '\t':
			b.WriteByte(c)
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !dropped(r) {
				b.WriteString(s[i : i+n])
			}
			i += n
		}
	}
	return b.String()
}

// Line is [Clean] for text shown on one line: newlines and tabs become spaces.
func Line(s string) string {
	s = Clean(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// Cut cuts s to at most n characters (runes), the last of them "…" when it was cut.
func Cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for k < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	return s[:i] + Ellipsis
}

// CutBytes cuts s to at most n bytes, at a character boundary, ending in "…" when it was cut.
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < len(Ellipsis) {
		return ""
	}
	i := n - len(Ellipsis)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + Ellipsis
}

// dropped reports whether Clean removes the non-ASCII r: a C1 control or a bidirectional control.
func dropped(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f, r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// LineCut is [Line] cut to at most n characters ([Cut]).
func LineCut(s string, n int) string { return Cut(Line(s), n) }

// isClean reports whether Clean has nothing to do on s.
func isClean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || dropped(r) {
			return false
		}
		i += n
	}
	return true
}

// skipEscape returns the index just past the escape sequence that starts with the ESC at s[i];
// a sequence cut short by the end of s, or a string sequence that is never ended, loses only what
// could be part of it without taking the rest of the text.
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[': // CSI: parameters and intermediates 0x20..0x3F, then a final 0x40..0x7E
		j := i + 1
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			return j + 1
		}
		return i + 1
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_': // a string, ended by BEL or ST
		for j := i + 1; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return i + 1
	default: // intermediates 0x20..0x2F, then a final 0x30..0x7E
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			return j + 1
		}
		return i
	}
}

// Summary is markdown text (an answer of the model) on one line of plain text for an editor that
// shows messages as they are (Helix's statusline, Emacs's echo area, Neovim's command line): its
// first paragraphs without the markdown that would show as noise, fenced code blocks as "(code)",
// cleaned ([Clean]) and cut to at most n characters ([Cut]).
func Summary(md string, n int) string {
	var parts []string
	inFence := false
	for line := range strings.SplitSeq(Clean(md), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if !inFence {
				parts = append(parts, "(code)")
			}
			inFence = !inFence
			continue
		}
		if inFence || t == "" {
			continue
		}
		t = strings.TrimLeft(t, "#> ")
		for _, marker := range []string{"- [ ] ", "- [x] ", "- ", "* ", "+ "} {
			if rest, ok := strings.CutPrefix(t, marker); ok {
				t = rest
				break
			}
		}
		t = strings.NewReplacer("**", "", "__", "", "`", "").Replace(t)
		if t = strings.Join(strings.Fields(t), " "); t != "" {
			parts = append(parts, t)
		}
		if len(parts) > 0 && len(strings.Join(parts, " ")) > 4*n {
			break // enough to fill n characters
		}
	}
	return Cut(strings.Join(parts, " "), n)
}
