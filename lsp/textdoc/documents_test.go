package textdoc

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// rng is a range change from (sl, sc) to (el, ec) replaced by text.
func rng(sl, sc, el, ec uint32, text string) ContentChange {
	return ContentChange{Range: &protocol.Range{
		Start: protocol.Position{Line: sl, Character: sc},
		End:   protocol.Position{Line: el, Character: ec},
	}, Text: text}
}

// full is a full-text change.
func full(text string) ContentChange { return ContentChange{Text: text} }

func TestDocumentsChange(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		changes []ContentChange
		want    string
		errHas  string // when set, Change fails and the text stays as it was
	}{
		{name: "insert ascii", text: "hello world", changes: []ContentChange{rng(0, 5, 0, 5, ",")}, want: "hello, world"},
		{name: "replace a word", text: "hello world", changes: []ContentChange{rng(0, 6, 0, 11, "there")}, want: "hello there"},
		{name: "insert at the start", text: "abc", changes: []ContentChange{rng(0, 0, 0, 0, ">")}, want: ">abc"},
		{name: "empty document", text: "", changes: []ContentChange{rng(0, 0, 0, 0, "x")}, want: "x"},
		{name: "after é (one UTF-16 unit, two bytes)", text: "café au lait", changes: []ContentChange{rng(0, 4, 0, 4, "!")}, want: "café! au lait"},
		{name: "replace é", text: "café", changes: []ContentChange{rng(0, 3, 0, 4, "e")}, want: "cafe"},
		{name: "after an emoji (two UTF-16 units)", text: "a😀b", changes: []ContentChange{rng(0, 3, 0, 3, "|")}, want: "a😀|b"},
		{name: "delete an emoji", text: "a😀b", changes: []ContentChange{rng(0, 1, 0, 3, "")}, want: "ab"},
		{name: "inside a surrogate pair rounds down", text: "a😀b", changes: []ContentChange{rng(0, 2, 0, 2, "|")}, want: "a|😀b"},
		{name: "emoji then é on a later line", text: "😀😀\nxé😀y", changes: []ContentChange{rng(1, 4, 1, 5, "Y")}, want: "😀😀\nxé😀Y"},
		{name: "CJK and combining marks", text: "日本語e\u0301x", changes: []ContentChange{rng(0, 5, 0, 6, "X")}, want: "日本語e\u0301X"},
		{name: "CRLF second line", text: "one\r\ntwo\r\nthree", changes: []ContentChange{rng(1, 0, 1, 3, "2")}, want: "one\r\n2\r\nthree"},
		{name: "CRLF character past the end stops before CR", text: "one\r\ntwo\r\n", changes: []ContentChange{rng(0, 99, 0, 99, "!")}, want: "one!\r\ntwo\r\n"},
		{name: "CRLF join lines", text: "one\r\ntwo", changes: []ContentChange{rng(0, 3, 1, 0, " ")}, want: "one two"},
		{name: "lone CR is a line break", text: "a\rb\rc", changes: []ContentChange{rng(2, 0, 2, 1, "C")}, want: "a\rb\rC"},
		{name: "insert at the end", text: "ab\ncd", changes: []ContentChange{rng(1, 2, 1, 2, "e\n")}, want: "ab\ncde\n"},
		{name: "insert on the empty last line", text: "ab\n", changes: []ContentChange{rng(1, 0, 1, 0, "cd")}, want: "ab\ncd"},
		{name: "line past the end appends", text: "ab\n", changes: []ContentChange{rng(7, 3, 7, 3, "z")}, want: "ab\nz"},
		{name: "range to past the end replaces the rest", text: "ab\ncd\nef", changes: []ContentChange{rng(1, 1, 99, 0, "")}, want: "ab\nc"},
		{name: "delete across lines", text: "first\nsecond\nthird\n", changes: []ContentChange{rng(0, 2, 2, 3, "")}, want: "fird\n"},
		{name: "delete whole lines", text: "a\nb\nc\n", changes: []ContentChange{rng(1, 0, 2, 0, "")}, want: "a\nc\n"},
		{name: "character past the end of a middle line", text: "ab\ncd", changes: []ContentChange{rng(0, 50, 1, 0, "")}, want: "abcd"},
		{
			name: "changes apply in order, each to the result of the one before",
			text: "abc",
			changes: []ContentChange{
				rng(0, 3, 0, 3, "\nd"), // abc\nd
				rng(1, 1, 1, 1, "é😀"),  // abc\ndé😀
				rng(1, 4, 1, 4, "!"),   // after the emoji
				rng(0, 0, 0, 1, ""),    // bc\ndé😀!
			},
			want: "bc\ndé😀!",
		},
		{name: "full-text change", text: "old", changes: []ContentChange{full("new\ntext")}, want: "new\ntext"},
		{name: "full then range", text: "old", changes: []ContentChange{full("new"), rng(0, 3, 0, 3, "er")}, want: "newer"},
		{name: "no changes", text: "same", changes: nil, want: "same"},
		{name: "invalid UTF-8 bytes count one unit each", text: "a\xffb", changes: []ContentChange{rng(0, 2, 0, 3, "B")}, want: "a\xffB"},

		{name: "reversed range", text: "abc\ndef", changes: []ContentChange{rng(1, 1, 0, 2, "x")}, errHas: "ends at 0:2"},
		{name: "reversed on one line", text: "abc", changes: []ContentChange{rng(0, 2, 0, 1, "x")}, errHas: "before it starts at 0:2"},
		{name: "reversed past the end", text: "abc", changes: []ContentChange{rng(9, 0, 8, 0, "x")}, errHas: "change 1 of 1"},
		{name: "a bad change leaves the whole batch unapplied", text: "abc", changes: []ContentChange{rng(0, 0, 0, 0, "x"), rng(0, 3, 0, 1, "y")}, errHas: "change 2 of 2"},
	}
	const uri = "file:///w/doc.txt"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Documents // the zero value is ready
			d.Open(uri, 1, tt.text)
			err := d.Change(uri, 2, tt.changes)
			got, ok := d.Text(uri)
			if !ok {
				t.Fatal("the document is not open")
			}
			version, _ := d.Version(uri)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("Change error = %v, want one containing %q", err, tt.errHas)
				}
				if got != tt.text || version != 1 {
					t.Errorf("after a failed change: text %q version %d, want %q version 1", got, version, tt.text)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatalf("Change: %v", err)
			}
			if got != tt.want || version != 2 {
				t.Errorf("text %q version %d, want %q version 2", got, version, tt.want)
			}
		})
	}
}

func TestDocumentsKeys(t *testing.T) {
	d := NewDocuments()
	d.Open("file:///c%3A/Users/x/main.go", 1, "drive")
	for _, uri := range []string{"file:///c%3A/Users/x/main.go", "file:///C:/Users/x/main.go", "file:///c:/Users/x/./main.go"} {
		if text, ok := d.Text(uri); !ok || text != "drive" {
			t.Errorf("Text(%q) = %q, %v", uri, text, ok)
		}
	}
	d.Open("file:///home/u/my%20proj/a.go", 1, "space")
	if text, ok := d.Text("file:///home/u/my proj/a.go"); !ok || text != "space" {
		t.Errorf("Text of the unescaped spelling = %q, %v", text, ok)
	}
	if err := d.Change("file:///home/u/my%20proj//a.go", 2, []ContentChange{rng(0, 5, 0, 5, "!")}); err != nil {
		t.Errorf("Change through another spelling: %v", err)
	}
	if text, _ := d.Text("file:///home/u/my%20proj/a.go"); text != "space!" {
		t.Errorf("text = %q", text)
	}

	// Non-file documents are keyed by their URI and never crash anything.
	d.Open("untitled:Untitled-1", 1, "draft")
	if text, ok := d.Text("untitled:Untitled-1"); !ok || text != "draft" {
		t.Errorf("untitled Text = %q, %v", text, ok)
	}
	if _, ok := d.Text("untitled:Untitled-2"); ok {
		t.Error("untitled:Untitled-2 is open")
	}
	d.Open("", 1, "no uri")
	if text, ok := d.Text(""); !ok || text != "no uri" {
		t.Errorf("Text(\"\") = %q, %v", text, ok)
	}

	// Close forgets, whatever the spelling; closing twice is harmless.
	d.Close("file:///C:/Users/x/main.go")
	d.Close("file:///C:/Users/x/main.go")
	d.Close("untitled:Untitled-1")
	for _, uri := range []string{"file:///c%3A/Users/x/main.go", "untitled:Untitled-1"} {
		if _, ok := d.Text(uri); ok {
			t.Errorf("%s is still open after Close", uri)
		}
	}
	if err := d.Change("untitled:Untitled-1", 3, []ContentChange{full("x")}); err == nil || !strings.Contains(err.Error(), "not open") {
		t.Errorf("Change of a closed document = %v, want a not-open error", err)
	}
	if _, ok := d.Line("untitled:Untitled-1", 0); ok {
		t.Error("Line of a closed document succeeded")
	}
	if _, ok := d.Lines("untitled:Untitled-1", 0, 0); ok {
		t.Error("Lines of a closed document succeeded")
	}
	if _, ok := d.Version("untitled:Untitled-1"); ok {
		t.Error("Version of a closed document succeeded")
	}

	// Opening again replaces.
	d.Open("file:///home/u/my%20proj/a.go", 7, "again")
	if v, _ := d.Version("file:///home/u/my%20proj/a.go"); v != 7 {
		t.Errorf("version after reopening = %d", v)
	}
}

func TestDocumentsLines(t *testing.T) {
	const uri = "untitled:lines"
	var d Documents
	d.Open(uri, 1, "zero\r\none é\ntwo 😀\rthree\n")
	lines := []struct {
		line uint32
		want string
		ok   bool
	}{
		{0, "zero", true}, {1, "one é", true}, {2, "two 😀", true}, {3, "three", true}, {4, "", true}, {5, "", false}, {1 << 31, "", false},
	}
	for _, tt := range lines {
		if got, ok := d.Line(uri, tt.line); got != tt.want || ok != tt.ok {
			t.Errorf("Line(%d) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
	ranges := []struct {
		start, end uint32
		want       string
		ok         bool
	}{
		{0, 0, "zero", true},
		{0, 1, "zero\r\none é", true},
		{1, 3, "one é\ntwo 😀\rthree", true},
		{3, 1, "one é\ntwo 😀\rthree", true}, // reversed: swapped
		{2, 99, "two 😀\rthree\n", true},     // clamped to the end, the empty last line included
		{4, 4, "", true},
		{5, 9, "", false},
	}
	for _, tt := range ranges {
		if got, ok := d.Lines(uri, tt.start, tt.end); got != tt.want || ok != tt.ok {
			t.Errorf("Lines(%d, %d) = %q, %v; want %q, %v", tt.start, tt.end, got, ok, tt.want, tt.ok)
		}
	}
	// An empty document has one empty line.
	d.Open("untitled:empty", 1, "")
	if got, ok := d.Line("untitled:empty", 0); got != "" || !ok {
		t.Errorf("Line(0) of an empty document = %q, %v", got, ok)
	}
	// Unsaved edits count.
	if err := d.Change(uri, 2, []ContentChange{rng(1, 0, 1, 3, "ONE")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.Lines(uri, 1, 1); got != "ONE é" {
		t.Errorf("Lines after an edit = %q", got)
	}
}

func TestDocumentsRange(t *testing.T) {
	const uri = "untitled:range"
	var d Documents
	d.Open(uri, 1, "a😀b\r\ncé\n")
	tests := []struct {
		r    protocol.Range
		want string
	}{
		{*rng(0, 1, 0, 3, "").Range, "😀"},
		{*rng(0, 3, 1, 1, "").Range, "b\r\nc"},
		{*rng(1, 1, 0, 3, "").Range, "b\r\nc"}, // reversed
		{*rng(1, 0, 9, 9, "").Range, "cé\n"},
		{*rng(0, 2, 0, 2, "").Range, ""},
	}
	for _, tt := range tests {
		if got, ok := d.Range(uri, tt.r); !ok || got != tt.want {
			t.Errorf("Range(%v) = %q, %v; want %q", tt.r, got, ok, tt.want)
		}
	}
	if _, ok := d.Range("untitled:nothing", protocol.Range{}); ok {
		t.Error("Range of a document that is not open succeeded")
	}
}

// TestDidChangeParamsDecode decodes didChange as editors send it, and shows why the protocol
// package's own type cannot be used.
func TestDidChangeParamsDecode(t *testing.T) {
	const vscode = `{"textDocument":{"uri":"file:///w/a.go","version":5},"contentChanges":[
		{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"rangeLength":0,"text":"// "}]}`
	const eglotFull = `{"textDocument":{"uri":"file:///w/a.go","version":6},"contentChanges":[{"text":"package a\n"}]}`
	const nullRange = `{"textDocument":{"uri":"file:///w/a.go","version":7},"contentChanges":[{"range":null,"text":"x"}]}`

	var d Documents
	d.Open("file:///w/a.go", 4, "package a\n")
	for _, tc := range []struct{ msg, want string }{
		{vscode, "// package a\n"},
		{eglotFull, "package a\n"},
		{nullRange, "x"},
	} {
		var p DidChangeParams
		if err := json.Unmarshal([]byte(tc.msg), &p); err != nil {
			t.Fatal(err)
		}
		if err := d.Change(string(p.TextDocument.URI), p.TextDocument.Version, p.ContentChanges); err != nil {
			t.Fatal(err)
		}
		if got, _ := d.Text("file:///w/a.go"); got != tc.want {
			t.Errorf("after %s: text %q, want %q", tc.msg, got, tc.want)
		}
	}
	if v, _ := d.Version("file:///w/a.go"); v != 7 {
		t.Errorf("version %d, want 7", v)
	}

	// protocol v0.12.0 decodes the full-text change and the insertion at 0:0 to the same value.
	var a, b protocol.DidChangeTextDocumentParams
	_ = json.Unmarshal([]byte(eglotFull), &a)
	_ = json.Unmarshal([]byte(`{"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"package a\n"}]}`), &b)
	if a.ContentChanges[0] != b.ContentChanges[0] {
		t.Log("protocol.TextDocumentContentChangeEvent now tells full-text changes apart; ContentChange may be unnecessary")
	}
}

func TestDocumentsConcurrent(t *testing.T) {
	d := NewDocuments()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			uri := fmt.Sprintf("file:///w/f%d.txt", i%3)
			for v := range 200 {
				switch v % 5 {
				case 0:
					d.Open(uri, int32(v), "a\nb\n")
				case 4:
					d.Close(uri)
				default:
					_ = d.Change(uri, int32(v), []ContentChange{rng(1, 0, 1, 0, "x")})
				}
				d.Text(uri)
				d.Lines(uri, 0, 2)
				d.Line(uri, 1)
			}
		})
	}
	wg.Wait()
}

// FuzzDocumentsChange applies arbitrary ranges to arbitrary text: Change never panics, and valid
// UTF-8 stays valid UTF-8.
func FuzzDocumentsChange(f *testing.F) {
	f.Add("a😀b\r\ncé\rx\n", uint32(0), uint32(2), uint32(1), uint32(1), "é")
	f.Add("", uint32(5), uint32(5), uint32(5), uint32(5), "x")
	f.Add("\r\n\r\n", uint32(1), uint32(0), uint32(1), uint32(9), "\n")
	f.Fuzz(func(t *testing.T, text string, sl, sc, el, ec uint32, insert string) {
		var d Documents
		d.Open("untitled:f", 1, text)
		err := d.Change("untitled:f", 2, []ContentChange{rng(sl, sc, el, ec, insert)})
		got, _ := d.Text("untitled:f")
		if err != nil {
			if got != text {
				t.Fatalf("a failed change altered the text: %q -> %q", text, got)
			}
			return
		}
		if utf8.ValidString(text) && utf8.ValidString(insert) && !utf8.ValidString(got) {
			t.Fatalf("valid UTF-8 became invalid: %q", got)
		}
		d.Lines("untitled:f", sl, el)
		d.Range("untitled:f", protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}})
	})
}
