package review

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
)

// TestReadLines: the lines asked for are read up to the last one needed; a whole file gives its
// line count and its last line's text (what findings past its end are clamped to); a line too long
// for a mark keeps no text; "\r\n" ends a line.
func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", maxMarkText+10)
	tests := []struct {
		name  string
		text  string
		want  []uint32
		upTo  uint32
		texts map[uint32]string
		n     uint32
		whole bool
	}{
		{"no final line break", "a\nb\r\nc", []uint32{0, 2}, 99, map[uint32]string{0: "a", 2: "c"}, 3, true},
		{"final line break", "a\nb\r\n", []uint32{0}, 99, map[uint32]string{0: "a", 1: "b"}, 2, true},
		{"stops at the last line needed", "a\nb\nc\n", []uint32{0}, 0, map[uint32]string{0: "a"}, 1, false},
		{"empty", "", []uint32{0}, 99, map[uint32]string{}, 0, true},
		{"a long line", long + "\nshort\n" + long, []uint32{0, 1, 2}, 99, map[uint32]string{1: "short"}, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := map[uint32]bool{}
			for _, l := range tt.want {
				want[l] = true
			}
			texts, n, whole, err := readLines(t.Context(), strings.NewReader(tt.text), want, tt.upTo)
			if err != nil || n != tt.n || whole != tt.whole || !maps.Equal(texts, tt.texts) {
				t.Errorf("readLines = %v, %d, %v, %v; want %v, %d, %v", texts, n, whole, err, tt.texts, tt.n, tt.whole)
			}
		})
	}
}

// endless is a file that never ends: "line\n" for ever.
type endless struct{ off int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "line\n"[e.off%5]
		e.off++
	}
	return len(p), nil
}

// TestReadLinesBounded: reading stops after maxFindingFileBytes (not whole: lines past it are not
// clamped) and when the context ends.
func TestReadLinesBounded(t *testing.T) {
	_, n, whole, err := readLines(t.Context(), &endless{}, map[uint32]bool{maxLSPLine: true}, maxLSPLine)
	if err != nil || whole || n != maxFindingFileBytes/5+1 { // and the line it stopped in
		t.Errorf("an endless file: %d lines, whole %v, %v", n, whole, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, whole, err := readLines(ctx, &endless{}, nil, maxLSPLine); !errors.Is(err, context.Canceled) || whole {
		t.Errorf("a cancelled read: whole %v, %v", whole, err)
	}
}
