package textdoc

import (
	"math/rand/v2"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestRopeMatchesString: random edits of a text of several chunks (lines of all three breaks,
// multi-byte runes, a "\r\n" at chunk edges) keep the rope equal to the same edits of a string,
// and its lines, offsets and line numbers equal the string's.
func TestRopeMatchesString(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"abc", "é", "😀", "\n", "\r\n", "\r", " ", "hermes: x", strings.Repeat("y", 300)}
	gen := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	text := gen(5 * chunkTarget)
	r := newRope(text)
	if len(r.chunks) < 3 {
		t.Fatalf("%d chunks: the test wants several", len(r.chunks))
	}
	for i := range 3000 {
		lines := uint32(lineBreaks(text)) + 1
		pos := func() protocol.Position {
			return protocol.Position{Line: rng.Uint32N(lines + 1), Character: rng.Uint32N(40)}
		}
		a, b := pos(), pos()
		if before(b, a) {
			a, b = b, a
		}
		var insert string
		if rng.IntN(10) == 0 {
			insert = gen(rng.IntN(3 * chunkTarget))
		} else {
			insert = gen(rng.IntN(8))
		}
		start, end := offset(text, a), offset(text, b)
		if rs, re := r.offset(a), r.offset(b); rs != start || re != end {
			t.Fatalf("edit %d: rope offsets %d,%d, string %d,%d", i, rs, re, start, end)
		}
		if got, want := r.lineOf(start), uint32(lineBreaks(text[:start])); got != want {
			t.Fatalf("edit %d: lineOf %d, want %d", i, got, want)
		}
		text = text[:start] + insert + text[end:]
		r.replace(start, end, insert)
		l := rng.Uint32N(uint32(lineBreaks(text)) + 2)
		ws, we, wn, wok := lineBounds(text, l)
		gs, ge, gn, gok := r.lineBounds(l)
		if ws != gs || we != ge || wn != gn || wok != gok {
			t.Fatalf("edit %d: line %d bounds %d,%d,%d,%v, want %d,%d,%d,%v", i, l, gs, ge, gn, gok, ws, we, wn, wok)
		}
		if r.size != len(text) {
			t.Fatalf("edit %d: size %d, want %d", i, r.size, len(text))
		}
	}
	if r.String() != text {
		t.Fatal("the rope's text differs from the string's")
	}
	for i, c := range r.chunks {
		if lineBreaks(c) != r.breaks[i] || c == "" || (i > 0 && strings.HasSuffix(r.chunks[i-1], "\r") && strings.HasPrefix(c, "\n")) {
			t.Fatalf("chunk %d is wrong: breaks %d/%d, %q…", i, r.breaks[i], lineBreaks(c), c[:min(len(c), 20)])
		}
	}
}

// BenchmarkDocumentEdit is a one-character didChange on a 50 MB document.
func BenchmarkDocumentEdit(b *testing.B) {
	line := strings.Repeat("x", 49) + "\n"
	d := NewDocuments()
	d.Open("file:///w/big.txt", 1, strings.Repeat(line, 1_000_000))
	d.Mark("file:///w/big.txt", 900_000, "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		l := uint32(i % 1_000_000)
		r := protocol.Range{Start: protocol.Position{Line: l, Character: 3}, End: protocol.Position{Line: l, Character: 4}}
		if err := d.Change("file:///w/big.txt", int32(i+2), []ContentChange{{Range: &r, Text: "y"}}); err != nil {
			b.Fatal(err)
		}
	}
}
