package workspace

import (
	"fmt"
	"path"
	"strings"
)

// Windows paths are made and taken apart here with string operations of our own rather than
// path/filepath, whose rules are this system's: so that the Windows rules are tested on every
// system (winpath_test.go), not only on Windows.

// windowsPath turns the decoded host and slash-separated path of a file URI into a cleaned
// Windows path: C:\x for file:///c:/x (the drive letter upper-cased) and \\host\share\x for
// file://host/share/x. A backslash (%5C) separates as a slash does, as it does on Windows, and ".."
// never climbs above the drive or the share.
func windowsPath(u, host, p string) (string, error) {
	p = strings.ReplaceAll(p, `\`, "/")
	if host != "" {
		if host == "." || host == "?" {
			// \\.\ and \\?\ open devices and raw namespaces, not files of a share.
			return "", fmt.Errorf("file URI %q names a Windows device path (\\\\%s\\), not a file", u, host)
		}
		share, rest, below := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if share == "" || share == "." || share == ".." {
			return "", fmt.Errorf("file URI %q names the host %q but no share on it", u, host)
		}
		if !below {
			return `\\` + host + `\` + share, nil // the share itself, as filepath.Clean writes it
		}
		return `\\` + host + `\` + share + windowsClean(rest), nil
	}
	if len(p) >= 3 && p[0] == '/' && isDriveLetter(p[1:3]) && (len(p) == 3 || p[3] == '/') {
		return strings.ToUpper(p[1:2]) + ":" + windowsClean(p[3:]), nil
	}
	return "", fmt.Errorf("file URI %q names no absolute Windows path: it needs a drive letter (file:///C:/...) or a host (file://server/share/...)", u)
}

// windowsClean cleans the slash-separated rest of a path below a drive or share and returns it
// with backslashes, starting with one: "a/../b/" is `\b`, "" is `\`.
func windowsClean(rest string) string {
	return strings.ReplaceAll(path.Clean("/"+rest), "/", `\`)
}

// windowsURIParts splits an absolute Windows path into the host and path of its file URI:
// C:\x is ("", "/C:/x") and \\host\share\x is ("host", "/share/x"). The long-path prefixes \\?\
// and \\?\UNC\ are dropped, since a URI has no place for them.
func windowsURIParts(p string) (host, uriPath string) {
	s := strings.ReplaceAll(p, `\`, "/")
	switch {
	case len(s) >= 8 && strings.EqualFold(s[:8], "//?/UNC/"):
		s = "//" + s[8:]
	case strings.HasPrefix(s, "//?/") && len(s) >= 6 && isDriveLetter(s[4:6]):
		s = s[4:]
	}
	if rest, ok := strings.CutPrefix(s, "//"); ok {
		host, share, _ := strings.Cut(rest, "/")
		return host, "/" + share
	}
	return "", "/" + s
}
