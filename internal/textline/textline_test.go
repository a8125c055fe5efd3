package textline

import "testing"

func TestAt(t *testing.T) {
	text := "a\r\nb\rc\n\nd\n"
	var got []string
	for off := 0; off <= len(text); {
		var line string
		line, off = At(text, off)
		got = append(got, line)
	}
	want := []string{"a", "b", "c", "", "d", ""}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lines %q, want %q", got, want)
		}
	}
}
