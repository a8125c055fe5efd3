package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// maxLinkHops bounds how many dangling symbolic links [Contains] follows by hand before giving up,
// like the kernel's ELOOP limit.
const maxLinkHops = 40

// Contains reports whether path lies inside the directory root (or is root itself). Both must be
// absolute.
//
// The comparison is of cleaned paths, component by component, never a string prefix: "/a/b"
// contains "/a/b/c" but not "/a/bc", and "/a/b/../c" is "/a/c", outside "/a/b". Symbolic links
// are resolved first, in root and in path, so a link inside root that points outside it is
// outside, and a path reached through a link to somewhere inside root is inside. A path that does
// not exist (yet) is judged by its deepest existing ancestor with the missing rest appended, and a
// dangling link is followed to where it points, so neither can be used to escape.
//
// The error is non-nil when a path is relative or a link cannot be read (for example permission
// denied); the answer is then false.
func Contains(root, path string) (bool, error) {
	rr, rp, err := resolvePair(root, path)
	if err != nil {
		return false, err
	}
	return within(rr, rp), nil
}

// resolvePair resolves root and path for [Contains].
func resolvePair(root, path string) (resolvedRoot, resolvedPath string, err error) {
	if resolvedRoot, err = resolveRoot(root); err != nil {
		return "", "", err
	}
	if !filepath.IsAbs(path) {
		return "", "", fmt.Errorf("%q is not an absolute path", path)
	}
	if resolvedPath, err = resolve(path); err != nil {
		return "", "", err
	}
	return resolvedRoot, resolvedPath, nil
}

// resolveRoot resolves a workspace folder's root, which must be absolute.
func resolveRoot(root string) (string, error) {
	if !filepath.IsAbs(root) {
		return "", fmt.Errorf("workspace folder %q is not an absolute path", root)
	}
	return resolve(root)
}

// resolve returns the absolute path p with every symbolic link in its existing part evaluated.
// Components that do not exist are appended unchanged to the resolved deepest existing ancestor;
// a dangling link is replaced by its target.
func resolve(p string) (string, error) {
	p = filepath.Clean(p)
	var missing []string // components below p that do not exist, outermost first
	hops := 0
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, missing...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return "", fmt.Errorf("cannot resolve the symbolic links in %s: %w", p, err)
		}
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// p exists but is a dangling link: continue from where it points.
			if hops++; hops > maxLinkHops {
				return "", fmt.Errorf("too many levels of symbolic links in %s", p)
			}
			target, rerr := os.Readlink(p)
			if rerr != nil {
				return "", fmt.Errorf("cannot read the symbolic link %s: %w", p, rerr)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			p = filepath.Clean(target)
			continue
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, missing...)...), nil
		}
		missing = append([]string{filepath.Base(p)}, missing...)
		p = parent
	}
}

// within reports whether the cleaned absolute path p equals root or lies below it.
func within(root, p string) bool {
	if sameFile(root, p) {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if len(p) < len(prefix) {
		return false
	}
	return sameFile(p[:len(prefix)], prefix)
}

// sameFile compares two cleaned paths as this system's filesystems usually do: exactly, or
// ignoring case on Windows.
func sameFile(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}
