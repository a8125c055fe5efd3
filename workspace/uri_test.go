package workspace

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestPathFromURI(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the expectations are POSIX paths")
	}
	tests := []struct {
		uri     string
		want    string
		notFile bool   // the error wraps ErrNotFile
		errHas  string // the error contains this (and does not wrap ErrNotFile unless notFile)
	}{
		{uri: "file:///home/u/proj/main.go", want: "/home/u/proj/main.go"},
		{uri: "FILE:///home/u/x", want: "/home/u/x"},
		{uri: "file://localhost/home/u/x", want: "/home/u/x"},
		{uri: "file://LocalHost/home/u/x", want: "/home/u/x"},
		{uri: "file:/home/u/x", want: "/home/u/x"},
		{uri: "file:///", want: "/"},
		{uri: "file:///home/u/proj/", want: "/home/u/proj"},
		{uri: "file:///home/u/proj//sub///", want: "/home/u/proj/sub"},
		{uri: "file:///home/u/my%20project/a%20b.go", want: "/home/u/my project/a b.go"},
		{uri: "file:///home/u/caf%C3%A9/x", want: "/home/u/café/x"},
		{uri: "file:///home/u/café/x", want: "/home/u/café/x"},
		{uri: "file:///home/u/a+b", want: "/home/u/a+b"},
		{uri: "file:///home/u/100%25", want: "/home/u/100%"},
		{uri: "file:///home/u/q%3Fh%23", want: "/home/u/q?h#"},
		{uri: "file:///home/u/proj/../secret", want: "/home/u/secret"},
		{uri: "file:///home/u/proj/%2E%2E/secret", want: "/home/u/secret"},
		{uri: "file:///../../etc/passwd", want: "/etc/passwd"},
		{uri: "file:///home/./u/./x", want: "/home/u/x"},
		// VS Code's drive letters: lower-case, colon escaped. All spellings agree.
		{uri: "file:///c%3A/Users/x", want: "/c:/Users/x"},
		{uri: "file:///c%3a/Users/x/", want: "/c:/Users/x"},
		{uri: "file:///C:/Users/x", want: "/c:/Users/x"},
		{uri: "file://c:/Users/x", want: "/c:/Users/x"},
		{uri: "file:///c%3A", want: "/c:"},
		{uri: "file:///cd:/x", want: "/cd:/x"},

		{uri: "", notFile: true, errHas: "no URI"},
		{uri: "   ", notFile: true, errHas: "no URI"},
		{uri: "untitled:Untitled-1", notFile: true, errHas: "untitled:"},
		{uri: "Untitled:Untitled-1", notFile: true, errHas: "untitled:"},
		{uri: "vscode-vfs://github/o/r/x.go", notFile: true, errHas: "vscode-vfs:"},
		{uri: "https://example.com/x", notFile: true, errHas: "https:"},
		{uri: "/home/u/x", notFile: true, errHas: "not a URI"},
		{uri: `c:\Users\x`, notFile: true, errHas: "not a URI"},
		{uri: "c:/Users/x", notFile: true, errHas: "not a URI"},
		{uri: ":x", notFile: true, errHas: "not a URI"},

		{uri: "file:", errHas: "empty path"},
		{uri: "file://", errHas: "empty path"},
		{uri: "file:relative/x", errHas: "relative path"},
		{uri: "file:///home/u/%zz", errHas: "bad %-escape"},
		{uri: "file:///home/u/%", errHas: "bad %-escape"},
		{uri: "file:///home/u/a%00b", errHas: "NUL"},
		{uri: "file://server/share/x", errHas: `host "server"`},
		{uri: "file:///home/u/x?q=1", errHas: "query or fragment"},
		{uri: "file:///home/u/x#L10", errHas: "query or fragment"},
	}
	for _, tt := range tests {
		got, err := PathFromURI(tt.uri)
		switch {
		case tt.errHas == "":
			if err != nil || got != tt.want {
				t.Errorf("PathFromURI(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
			}
		case err == nil:
			t.Errorf("PathFromURI(%q) = %q, nil; want an error containing %q", tt.uri, got, tt.errHas)
		default:
			if !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("PathFromURI(%q) error %q does not contain %q", tt.uri, err, tt.errHas)
			}
			if errors.Is(err, ErrNotFile) != tt.notFile {
				t.Errorf("PathFromURI(%q) error %q: errors.Is(ErrNotFile) = %v, want %v", tt.uri, err, !tt.notFile, tt.notFile)
			}
		}
	}
}

func TestURIFromPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the expectations are POSIX paths")
	}
	tests := []struct{ path, want string }{
		{"/home/u/x.go", "file:///home/u/x.go"},
		{"/home/u/my project/a b.go", "file:///home/u/my%20project/a%20b.go"},
		{"/home/u/100%/q?#", "file:///home/u/100%25/q%3F%23"},
		{"/home/u/café", "file:///home/u/caf%C3%A9"},
		{"/home/u/proj/", "file:///home/u/proj"},
		{"/home/u/proj/../x", "file:///home/u/x"},
		{"/", "file:///"},
	}
	for _, tt := range tests {
		if got := URIFromPath(tt.path); got != tt.want {
			t.Errorf("URIFromPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
		back, err := PathFromURI(URIFromPath(tt.path))
		if err != nil || back != filepath.Clean(tt.path) {
			t.Errorf("PathFromURI(URIFromPath(%q)) = %q, %v; want %q", tt.path, back, err, filepath.Clean(tt.path))
		}
	}
	// A relative path is made absolute against the working directory.
	wd, _ := filepath.Abs(".")
	if got, want := URIFromPath("x/y"), URIFromPath(filepath.Join(wd, "x/y")); got != want {
		t.Errorf("URIFromPath(relative) = %q, want %q", got, want)
	}
}

// FuzzPathFromURI checks that PathFromURI never panics, returns only clean absolute paths, and
// that a path it returns survives the round trip through URIFromPath.
func FuzzPathFromURI(f *testing.F) {
	for _, s := range []string{
		"", "file:", "file:/", "file://", "file:///", "file:////", "file:///a/b", "file:///a%20b/c%2Fd",
		"file:///c%3A/Users/x", "file:///C:/x", "file://c:/x", "file://server/share", "file://localhost/x",
		"file:///a/../../b", "file:///%", "file:///%zz", "file:///%00", "file:///x?y#z", "untitled:Untitled-1",
		"untitled:", "vscode-vfs://github/x", ":", "::", "a:", "c:\\x", "file:x", "file:%2F", "FILE:///X",
		"file:///\xff\xfe", "file://%41/x", "file://%zz/x", "file:///a%2F..%2F..%2Fb",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		p, err := PathFromURI(u)
		if err != nil {
			if p != "" {
				t.Fatalf("PathFromURI(%q) = %q with error %v", u, p, err)
			}
			return
		}
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			t.Fatalf("PathFromURI(%q) = %q: not a clean absolute path", u, p)
		}
		if strings.ContainsRune(p, 0) {
			t.Fatalf("PathFromURI(%q) = %q contains NUL", u, p)
		}
		back, err := PathFromURI(URIFromPath(p))
		if err != nil {
			t.Fatalf("PathFromURI(URIFromPath(%q)) failed: %v", p, err)
		}
		if back != p {
			t.Fatalf("round trip of %q (from %q) gave %q", p, u, back)
		}
	})
}
