package lsp

// This file is plainLine: one line of text from codex, the model or a workspace's settings made
// safe to show and to keep.

import "unicode"

// plainLine is s as one line of plain text, cut to at most n characters (ending in "…" when cut).
// Control characters (C0 with line breaks and tabs, DEL, C1: terminal escapes among them) and
// format characters (bidirectional overrides, zero-width marks) are removed: text someone else
// wrote must not move a cursor, recolour a terminal, start a new line in a log or a message, or
// reorder what the user reads. It reads no more of s than it keeps, so a huge s costs little.
func plainLine(s string, n int) string {
	kept := make([]rune, 0, min(len(s), n+1))
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		if len(kept) == n {
			return string(kept[:n-1]) + "…"
		}
		kept = append(kept, r)
	}
	return string(kept)
}
