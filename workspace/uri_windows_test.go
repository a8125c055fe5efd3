package workspace

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathFromURIWindows runs on Windows only: the spellings editors send there, as Windows paths.
func TestPathFromURIWindows(t *testing.T) {
	tests := []struct {
		uri, want string
		notFile   bool
		errHas    string
	}{
		{uri: "file:///c%3A/Users/x/main.go", want: `C:\Users\x\main.go`}, // VS Code's spelling
		{uri: "file:///C:/Users/x/", want: `C:\Users\x`},
		{uri: "file://c:/Users/x", want: `C:\Users\x`},
		{uri: "file:///c:", want: `C:\`},
		{uri: "file:///c:/a%20b/caf%C3%A9", want: `C:\a b\café`},
		{uri: "file:///c:/Users/x/../../secret", want: `C:\secret`},
		{uri: "file://server/share/dir/x.go", want: `\\server\share\dir\x.go`},
		{uri: "file://localhost/c:/x", want: `C:\x`},
		{uri: "untitled:Untitled-1", notFile: true},
		{uri: `c:\Users\x`, notFile: true},
		{uri: "file:///home/u/x", errHas: "no absolute Windows path"},
		{uri: "file://server/", errHas: "no share"},
		{uri: "file://./pipe/x", errHas: "device"},
	}
	for _, tt := range tests {
		got, err := PathFromURI(tt.uri)
		switch {
		case tt.notFile:
			if !errors.Is(err, ErrNotFile) {
				t.Errorf("PathFromURI(%q) = %q, %v; want ErrNotFile", tt.uri, got, err)
			}
		case tt.errHas != "":
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("PathFromURI(%q) = %q, %v; want an error with %q", tt.uri, got, err, tt.errHas)
			}
		case err != nil || got != tt.want:
			t.Errorf("PathFromURI(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
		case filepath.Clean(got) != got:
			t.Errorf("PathFromURI(%q) = %q, which filepath.Clean changes to %q", tt.uri, got, filepath.Clean(got))
		}
	}
}

// TestURIFromPathWindows runs on Windows only: URIFromPath and PathFromURI give each other back.
func TestURIFromPathWindows(t *testing.T) {
	for _, p := range []string{`C:\Users\x\main.go`, `C:\a b\100%\q#`, `\\server\share\x`, `D:\`} {
		u := URIFromPath(p)
		back, err := PathFromURI(u)
		if err != nil || back != filepath.Clean(p) {
			t.Errorf("URIFromPath(%q) = %q, which reads back as %q, %v", p, u, back, err)
		}
	}
	if got := URIFromPath(`C:\Users\x`); got != "file:///C:/Users/x" {
		t.Errorf("URIFromPath(C:\\Users\\x) = %q", got)
	}
}
