package workspace

import (
	"strings"
	"testing"
)

// TestWindowsPath checks, on every system, the Windows paths PathFromURI gives on Windows.
func TestWindowsPath(t *testing.T) {
	tests := []struct {
		host, path string
		want       string
		errHas     string
	}{
		{path: "/c:/Users/x", want: `C:\Users\x`},
		{path: "/C:/Users/x/", want: `C:\Users\x`},
		{path: "/c:", want: `C:\`},
		{path: "/c:/", want: `C:\`},
		{path: "/c:/a/../b//c/.", want: `C:\b\c`},
		{path: "/c:/../../x", want: `C:\x`},   // ".." stops at the drive
		{path: `/c:/a\..\..\x`, want: `C:\x`}, // %5C separates, as on Windows
		{path: "/c:/my project/é", want: `C:\my project\é`},
		{host: "server", path: "/share/dir/x.go", want: `\\server\share\dir\x.go`},
		{host: "server", path: "/share", want: `\\server\share`},
		{host: "server", path: "/share/", want: `\\server\share\`},
		{host: "server", path: "/share/../../other/x", want: `\\server\share\other\x`}, // ".." stops at the share

		{path: "/home/u/x", errHas: "no absolute Windows path"},
		{path: "/c:x", errHas: "no absolute Windows path"}, // drive-relative
		{path: "/cd:/x", errHas: "no absolute Windows path"},
		{host: "server", path: "/", errHas: "no share"},
		{host: "server", path: "/../x", errHas: "no share"},
		{host: ".", path: "/pipe/x", errHas: "device"},
		{host: "?", path: "/c:/x", errHas: "device"},
	}
	for _, tt := range tests {
		got, err := windowsPath("file://"+tt.host+tt.path, tt.host, tt.path)
		if tt.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("windowsPath(%q, %q) = %q, %v; want an error with %q", tt.host, tt.path, got, err, tt.errHas)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("windowsPath(%q, %q) = %q, %v; want %q", tt.host, tt.path, got, err, tt.want)
		}
	}
}

// TestWindowsURIParts checks, on every system, the URIs URIFromPath gives on Windows.
func TestWindowsURIParts(t *testing.T) {
	tests := []struct{ path, host, uriPath string }{
		{`C:\Users\x`, "", "/C:/Users/x"},
		{`C:\`, "", "/C:/"},
		{`\\server\share\x`, "server", "/share/x"},
		{`\\server\share`, "server", "/share"},
		{`\\?\C:\very\long`, "", "/C:/very/long"},
		{`\\?\UNC\server\share\x`, "server", "/share/x"},
	}
	for _, tt := range tests {
		host, p := windowsURIParts(tt.path)
		if host != tt.host || p != tt.uriPath {
			t.Errorf("windowsURIParts(%q) = %q, %q; want %q, %q", tt.path, host, p, tt.host, tt.uriPath)
		}
		// What URIFromPath makes of them, PathFromURI on Windows reads back.
		back, err := windowsPath("file://"+host+p, host, p)
		want := strings.TrimPrefix(strings.TrimPrefix(tt.path, `\\?\UNC`), `\\?\`)
		if strings.HasPrefix(tt.path, `\\?\UNC`) {
			want = `\` + want
		}
		if err != nil || back != want {
			t.Errorf("windowsPath of %q = %q, %v; want %q", tt.path, back, err, want)
		}
	}
}
