package textdoc

import "testing"

// TestMarksFollowEdits: a mark on line 2 ("// hermes: do it") of a five-line document, after
// each edit.
func TestMarksFollowEdits(t *testing.T) {
	const text = "package a\n\n// hermes: do it\nfunc F() {}\n// end\n"
	tests := []struct {
		name     string
		changes  []ContentChange
		wantLine uint32
		wantLive bool
	}{
		{"a line inserted above", []ContentChange{rng(1, 0, 1, 0, "import \"x\"\n")}, 3, true},
		{"two lines inserted above in one change", []ContentChange{rng(0, 9, 0, 9, "\n\n")}, 4, true},
		{"a line deleted above", []ContentChange{rng(0, 0, 1, 0, "")}, 1, true},
		{"an edit inside the line", []ContentChange{rng(2, 11, 2, 13, "redo")}, 2, true},
		{"text appended to the line", []ContentChange{rng(2, 16, 2, 16, " now")}, 2, true},
		{"a line break at its end", []ContentChange{rng(2, 16, 2, 16, "\n")}, 2, true},
		{"a line inserted below", []ContentChange{rng(3, 0, 3, 0, "// more\n")}, 2, true},
		{"a line inserted at its start", []ContentChange{rng(2, 0, 2, 0, "// new\n")}, 3, true},
		{"the line deleted (dd)", []ContentChange{rng(2, 0, 3, 0, "")}, 0, false},
		{"the line deleted with the break before it", []ContentChange{rng(1, 0, 2, 16, "")}, 0, false},
		{"the line replaced whole", []ContentChange{rng(2, 0, 2, 16, "// something else")}, 0, false},
		{"the document replaced by an edit that keeps the line", []ContentChange{rng(0, 0, 5, 0, "package a\n\nfunc G() {}\n\n// hermes: do it\nfunc F() {}\n")}, 4, true},
		{"the document replaced by an edit without it", []ContentChange{rng(0, 0, 5, 0, "package a\n")}, 0, false},
		{"joined to the line above", []ContentChange{rng(1, 0, 2, 0, "")}, 1, true},
		{"its head replaced across lines", []ContentChange{rng(0, 3, 2, 3, "X")}, 0, true},
		{"edits in sequence", []ContentChange{rng(0, 0, 0, 0, "// a\n"), rng(0, 0, 0, 0, "// b\n"), rng(1, 0, 2, 0, "")}, 3, true},
		{"a whole-document change that moves it", []ContentChange{full("// top\n" + text)}, 3, true},
		{"a whole-document change without it", []ContentChange{full("package a\n")}, 0, false},
		{"edited, then a whole-document change with the edited line", []ContentChange{rng(2, 16, 2, 16, "!"), full("x\n// hermes: do it!\n")}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDocuments()
			d.Open("file:///w/a.go", 1, text)
			m := d.Mark("file:///w/a.go", 2, "")
			if err := d.Change("file:///w/a.go", 2, tt.changes); err != nil {
				t.Fatal(err)
			}
			line, live := m.Line()
			if live != tt.wantLive || (live && line != tt.wantLine) {
				t.Errorf("mark at %d (live %v), want %d (live %v)", line, live, tt.wantLine, tt.wantLive)
			}
		})
	}
}

// TestMarksSurviveReopen: a mark outlives its document's close and finds its line again when the
// file is opened with other lines above it; a mark whose line is gone dies.
func TestMarksSurviveReopen(t *testing.T) {
	d := NewDocuments()
	d.Open("file:///w/a.go", 1, "a\n// hermes: x\nb\n")
	kept := d.Mark("file:///w/a.go", 1, "")
	gone := d.Mark("file:///w/a.go", 2, "")
	d.Close("file:///w/a.go")
	d.Open("file:///w/a.go", 1, "new\na\n// hermes: x\nc\n")
	if line, live := kept.Line(); !live || line != 2 {
		t.Errorf("reopened mark at %d (live %v), want 2", line, live)
	}
	if _, live := gone.Line(); live {
		t.Errorf("the mark of a line gone is live")
	}
	// A mark put on a file that is not open uses the text given.
	closed := d.Mark("file:///w/b.go", 4, "// hermes: y")
	d.Open("file:///w/b.go", 1, "// hermes: y\n")
	if line, live := closed.Line(); !live || line != 0 {
		t.Errorf("mark of a closed file at %d (live %v), want 0", line, live)
	}
}

// TestBlankLineMarks: a mark on a blank line is found again like any other (the nearest blank
// line), when its file is opened or changed on disk while closed; one whose line was edited, and
// whose text is so unknown, still dies.
func TestBlankLineMarks(t *testing.T) {
	d := NewDocuments()
	blank := d.Mark("file:///w/a.go", 2, "")
	d.Open("file:///w/a.go", 1, "a\nb\n\nc\n")
	if line, live := blank.Line(); !live || line != 2 {
		t.Errorf("blank-line mark of a closed file at %d (live %v) once opened, want 2", line, live)
	}
	d.Close("file:///w/a.go")
	d.RelocateMarks("x\na\nb\n\nc\n", blank)
	if line, live := blank.Line(); !live || line != 3 {
		t.Errorf("blank-line mark at %d (live %v) after the file changed on disk, want 3", line, live)
	}
	d.Open("file:///w/b.go", 1, "a\n\nb\n")
	edited := d.Mark("file:///w/b.go", 1, "")
	if err := d.Change("file:///w/b.go", 2, []ContentChange{rng(1, 0, 1, 0, "x")}); err != nil {
		t.Fatal(err)
	}
	if got := edited.Text(); got != "x" {
		t.Errorf("edited mark's text %q, want %q", got, "x")
	}
	d.Close("file:///w/b.go")
	d.Open("file:///w/b.go", 1, "a\n\nb\n")
	if _, live := edited.Line(); live {
		t.Errorf("the mark of a line edited away is live")
	}
}
