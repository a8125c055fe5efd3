// Package textline reads text a line at a time as LSP counts lines: a line ends at "\n", "\r\n"
// or "\r", and text that ends in a line break has an empty last line after it.
package textline

import "strings"

// At returns the line of text that starts at off (without its line break) and the offset of the
// next line; past the last line, next is len(text)+1.
func At(text string, off int) (line string, next int) {
	i := strings.IndexAny(text[off:], "\r\n")
	if i < 0 {
		return text[off:], len(text) + 1
	}
	end := off + i
	next = end + 1
	if text[end] == '\r' && next < len(text) && text[next] == '\n' {
		next++
	}
	return text[off:end], next
}
