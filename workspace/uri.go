// Package workspace knows the editor's workspace folders: it turns document URIs into filesystem
// paths, picks the folder a document belongs to, and checks that a path stays inside a folder.
//
// URIs are never compared as strings. Editors spell the same file differently (VS Code sends
// file:///c%3A/Users/x, others file:///C:/Users/x or file:///home/u/a%20b), so every comparison
// goes through [PathFromURI] and works on cleaned filesystem paths, with symbolic links resolved
// by [Contains] where the answer decides what an agent may touch.
package workspace

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrNotFile is returned (wrapped) by [PathFromURI] for a URI that does not name a file on this
// machine's filesystem: an empty URI, an untitled: document, or any scheme other than file:.
// Callers test for it with errors.Is.
var ErrNotFile = errors.New("not a file URI")

// PathFromURI returns the cleaned absolute filesystem path named by the file URI u.
//
// The path is percent-decoded (file:///a%20b is "/a b") and cleaned (a trailing slash and "."
// and ".." segments are removed lexically; whether the result escapes a workspace folder is for
// [Contains] and [Set.Resolve] to decide). The scheme is matched case-insensitively and a host of
// "localhost" means this machine.
//
// Windows drive letters are recognised in both spellings, file:///C:/x and file:///c%3A/x. On
// Windows the result is a Windows path with an upper-case drive letter ("C:\x") and a URI with a
// host becomes a UNC path (\\host\share\x). On other systems a drive-letter URI is kept as the
// absolute path "/c:/x" with the drive letter lower-cased, so both spellings give the same path,
// and a URI naming another host is refused.
//
// A URI that is empty, has no scheme, or has a scheme other than file: (untitled:Untitled-1,
// vscode-vfs://...) yields an error wrapping [ErrNotFile]. A file URI that cannot be a local path
// (a bad %-escape, a NUL byte, a relative or empty path, a query or fragment) yields an error that
// says what is wrong with it. PathFromURI never panics.
func PathFromURI(u string) (string, error) {
	if strings.TrimSpace(u) == "" {
		return "", sentence(ErrNotFile, "the document has no URI")
	}
	scheme, rest, ok := splitScheme(u)
	if !ok {
		return "", sentence(ErrNotFile, "%q is not a URI: it has no scheme such as file:", u)
	}
	if !strings.EqualFold(scheme, "file") {
		return "", sentence(ErrNotFile, "%q is not a file on disk: its scheme is %s:, not file:", u, strings.ToLower(scheme))
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return "", fmt.Errorf("file URI %q has a query or fragment; a file's path must have '?' and '#' percent-encoded", u)
	}
	var host, p string
	switch {
	case strings.HasPrefix(rest, "//"):
		rest = rest[2:]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			host, p = rest[:i], rest[i:]
		} else {
			host, p = rest, ""
		}
	case rest == "":
		return "", fmt.Errorf("file URI %q has an empty path", u)
	case strings.HasPrefix(rest, "/"):
		p = rest // file:/x, the minimal form of RFC 8089
	default:
		return "", fmt.Errorf("file URI %q has a relative path; it must be file:///absolute/path", u)
	}
	host, err := url.PathUnescape(host)
	if err != nil {
		return "", fmt.Errorf("file URI %q has a bad %%-escape in its host: %v", u, err)
	}
	if strings.EqualFold(host, "localhost") {
		host = ""
	}
	p, err = url.PathUnescape(p)
	if err != nil {
		return "", fmt.Errorf("file URI %q has a bad %%-escape: %v", u, err)
	}
	if strings.ContainsRune(p, 0) || strings.ContainsRune(host, 0) {
		return "", fmt.Errorf("file URI %q contains a NUL byte, which no file path can hold", u)
	}
	if isDriveLetter(host) {
		// A drive letter in the host's place ("file://c:/x") is a common malformation.
		p, host = "/"+host+p, ""
	}
	if p == "" {
		if host == "" {
			return "", fmt.Errorf("file URI %q has an empty path", u)
		}
		p = "/"
	}
	return localPath(u, host, p)
}

// localPath turns the decoded host and slash-separated absolute path of a file URI into a path
// of this operating system.
func localPath(u, host, p string) (string, error) {
	if runtime.GOOS == "windows" {
		return windowsPath(u, host, p)
	}
	if host != "" {
		return "", fmt.Errorf("file URI %q names the host %q; only files on this machine can be used", u, host)
	}
	p = path.Clean(p)
	if len(p) >= 3 && isDriveLetter(p[1:3]) && (len(p) == 3 || p[3] == '/') {
		p = "/" + strings.ToLower(p[1:2]) + p[2:]
	}
	return filepath.FromSlash(p), nil
}

// URIFromPath returns the file URI of the filesystem path p, percent-encoding what must be
// (spaces, '%', '?', '#', non-ASCII bytes). A relative p is made absolute against the current
// directory first. [PathFromURI] of the result gives back filepath.Clean of the absolute path.
func URIFromPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	} else {
		p = filepath.Clean(p)
	}
	u := url.URL{Scheme: "file", Path: p}
	if runtime.GOOS == "windows" {
		u.Host, u.Path = windowsURIParts(p)
	}
	return u.String() // the path starts with '/', so url.URL writes the empty authority: file:///...
}

// splitScheme splits u at the colon ending an RFC 3986 scheme. A one-letter scheme followed by
// a backslash or slash is a Windows path (c:\x), not a URI.
func splitScheme(u string) (scheme, rest string, ok bool) {
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			if i == 1 && len(u) > 2 && (u[2] == '\\' || u[2] == '/') {
				return "", "", false
			}
			return u[:i], u[i+1:], true
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// isDriveLetter reports whether s is a Windows drive such as "c:" or "C:".
func isDriveLetter(s string) bool {
	return len(s) == 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z')
}

// wrapped is an error whose message is a whole sentence and that still matches a sentinel with
// errors.Is.
type wrapped struct {
	msg      string
	sentinel error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.sentinel }

// sentence returns an error with the formatted message that wraps sentinel.
func sentence(sentinel error, format string, args ...any) error {
	return &wrapped{msg: fmt.Sprintf(format, args...), sentinel: sentinel}
}
