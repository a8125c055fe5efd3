package textdoc

// This file holds an open document's text in chunks of about chunkTarget bytes, each with its
// count of line breaks, so that an edit costs the chunks it touches and a walk over the chunk list,
// not a copy of the whole text: a one-character didChange on a 50 MB document stays far below a
// millisecond. A "\r\n" is never split between two chunks, so the counts add up.

import (
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// chunkTarget is the size chunks are cut to; a chunk grows to twice that before it is cut again.
const chunkTarget = 32 << 10

// rope is a text in chunks. It is not safe for concurrent use: Documents guards it.
type rope struct {
	chunks []string
	breaks []int // line breaks in each chunk, as lineBreaks counts them
	size   int
	flat   string // the whole text, joined on demand
	flatOK bool
}

func newRope(text string) *rope {
	r := &rope{}
	r.chunks, r.breaks = cut(text)
	r.size = len(text)
	r.flat, r.flatOK = text, true
	return r
}

// cut splits text into chunks of about chunkTarget bytes, after a line break where there is one,
// never inside "\r\n" or a UTF-8 sequence.
func cut(text string) (chunks []string, breaks []int) {
	for len(text) > 0 {
		n := len(text)
		if n > 2*chunkTarget {
			n = safeCut(text, chunkTarget)
		}
		chunks = append(chunks, text[:n])
		breaks = append(breaks, lineBreaks(text[:n]))
		text = text[n:]
	}
	return chunks, breaks
}

// safeCut finds where to cut text near at: after the first "\n" from at on (within chunkTarget),
// else at a UTF-8 boundary that does not split "\r\n".
func safeCut(text string, at int) int {
	if i := strings.IndexByte(text[at:min(len(text), at+chunkTarget)], '\n'); i >= 0 {
		return at + i + 1
	}
	for at < len(text) && (!utf8.RuneStart(text[at]) || (text[at] == '\n' && text[at-1] == '\r')) {
		at++
	}
	return at
}

// String returns the whole text.
func (r *rope) String() string {
	if !r.flatOK {
		r.flat, r.flatOK = strings.Join(r.chunks, ""), true
	}
	return r.flat
}

// chunkAt returns the chunk holding byte off (the last chunk for off == size) and its first byte.
func (r *rope) chunkAt(off int) (i, base int) {
	for i = 0; i < len(r.chunks)-1; i++ {
		if off < base+len(r.chunks[i]) {
			return i, base
		}
		base += len(r.chunks[i])
	}
	return len(r.chunks) - 1, base
}

// lineStart returns the offset of line's first byte, with false when the text has no such line.
func (r *rope) lineStart(line uint32) (int, bool) {
	if line == 0 {
		return 0, true
	}
	left, base := int(line), 0
	for i, c := range r.chunks {
		if left > r.breaks[i] {
			left -= r.breaks[i]
			base += len(c)
			continue
		}
		off := 0
		for ; left > 0; left-- {
			j := strings.IndexAny(c[off:], "\r\n")
			off += j + 1
			if c[off-1] == '\r' && off < len(c) && c[off] == '\n' {
				off++
			}
		}
		return base + off, true
	}
	return r.size, false
}

// lineBounds finds line as lineBounds does in a string: the offsets of its first byte, of its end
// (its line break, or the end of the text) and of the next line's first byte.
func (r *rope) lineBounds(line uint32) (start, end, next int, ok bool) {
	start, ok = r.lineStart(line)
	if !ok {
		return r.size, r.size, r.size, false
	}
	if len(r.chunks) == 0 {
		return 0, 0, 0, true
	}
	i, base := r.chunkAt(start)
	for from := start - base; i < len(r.chunks); i, from = i+1, 0 {
		c := r.chunks[i]
		if j := strings.IndexAny(c[from:], "\r\n"); j >= 0 {
			end = base + from + j
			next = end + 1
			if c[from+j] == '\r' && from+j+1 < len(c) && c[from+j+1] == '\n' {
				next++
			}
			return start, end, next, true
		}
		base += len(c)
	}
	return start, r.size, r.size, true
}

// slice returns the bytes from to to.
func (r *rope) slice(from, to int) string {
	if from >= to {
		return ""
	}
	if r.flatOK {
		return r.flat[from:to]
	}
	i, base := r.chunkAt(from)
	var b strings.Builder
	b.Grow(to - from)
	for ; i < len(r.chunks) && base < to; i++ {
		c := r.chunks[i]
		b.WriteString(c[max(from-base, 0):min(to-base, len(c))])
		base += len(c)
	}
	return b.String()
}

// line returns a line's text, without its line break.
func (r *rope) line(line uint32) (string, bool) {
	start, end, _, ok := r.lineBounds(line)
	if !ok {
		return "", false
	}
	return r.slice(start, end), true
}

// offset returns the offset of an LSP position, clamped as offset does in a string.
func (r *rope) offset(pos protocol.Position) int {
	start, end, _, ok := r.lineBounds(pos.Line)
	if !ok {
		return r.size
	}
	return start + offset(r.slice(start, end), protocol.Position{Character: pos.Character})
}

// lineOf returns the zero-based line of offset off.
func (r *rope) lineOf(off int) uint32 {
	n := 0
	for i, c := range r.chunks {
		if off <= len(c) {
			return uint32(n + lineBreaks(c[:off]))
		}
		off -= len(c)
		n += r.breaks[i]
	}
	return uint32(n)
}

// replace puts text in place of the bytes from to to. It rebuilds only the chunks the range
// touches (and a neighbour when a "\r\n" would straddle two chunks).
func (r *rope) replace(from, to int, text string) {
	if len(r.chunks) == 0 {
		*r = *newRope(text)
		return
	}
	a, abase := r.chunkAt(from)
	b, bbase := r.chunkAt(to)
	mid := r.chunks[a][:from-abase] + text + r.chunks[b][to-bbase:]
	if a > 0 && strings.HasSuffix(r.chunks[a-1], "\r") && strings.HasPrefix(mid, "\n") {
		a--
		mid = r.chunks[a] + mid
	}
	if b+1 < len(r.chunks) && strings.HasSuffix(mid, "\r") && strings.HasPrefix(r.chunks[b+1], "\n") {
		b++
		mid += r.chunks[b]
	}
	chunks, breaks := cut(mid)
	r.chunks = append(r.chunks[:a], append(chunks, r.chunks[b+1:]...)...)
	r.breaks = append(r.breaks[:a], append(breaks, r.breaks[b+1:]...)...)
	r.size += len(text) - (to - from)
	r.flat, r.flatOK = "", false
}
