package workspace

// This file is the one boundary through which hermes-lsp reads and writes the user's files. Every
// path it is given may come from the model, codex or a repository, so each operation:
//
//   - resolves the path (links followed, in the file and in every parent) and acts only when the
//     result lies inside the folder; the reason it does not is a sentence for the user
//     ("sub/ is now a link outside the folder");
//   - works through an [os.Root] opened on the folder, so a parent swapped for a link between the
//     check and the act still cannot lead outside;
//   - reads only regular files (opened non-blocking, checked with fstat on the open file), bounded,
//     honouring the context;
//   - never writes through a link: a file that is a link is refused, and a file swapped for one
//     between the check and the open is noticed.
//
// The one read that is not contained, [ReadAnywhere], says so in its name: it is for paths the
// person named (a document their editor opened), which may lie outside every folder.
//
// Code outside this package does not touch the file system by name: `make lint`
// (internal/cmd/lintfiles) fails on it, except for hermes-lsp's own files (its state folder, log,
// socket), each marked //hermes:ownfile with the reason.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Errors the boundary wraps, for callers that answer differently by cause. The full error text
// is always a sentence fit to show the user.
var (
	// ErrNotRegular refuses files that are not regular: FIFOs, devices and sockets can block or
	// never end, and a directory is not a file's content.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge refuses a file over the limit a read was given.
	ErrTooLarge = errors.New("too large")
	// ErrLink refuses to write through a symbolic link.
	ErrLink = errors.New("is a link")
)

// readChunk is how much a bounded read takes between two looks at its context.
const readChunk = 256 << 10

// Inside resolves path (absolute; links followed in the file and every parent, a missing tail
// appended as it is) and returns it relative to the resolved folder, or an error wrapping
// [ErrOutside] whose text says which part leads outside, relative to folder.
func Inside(folder, path string) (string, error) {
	if !filepath.IsAbs(folder) || !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q is not an absolute path: %w", path, ErrOutside)
	}
	folder, path = filepath.Clean(folder), filepath.Clean(path)
	rr, err := resolveRoot(folder)
	if err != nil {
		return "", err
	}
	rp, err := resolve(path)
	if err != nil {
		return "", err
	}
	if !within(rr, rp) {
		return "", &outsideError{reason: outsideReason(folder, rr, path)}
	}
	rel, err := filepath.Rel(rr, rp)
	if err != nil {
		return "", &outsideError{reason: outsideReason(folder, rr, path)}
	}
	return rel, nil
}

// outsideError is [ErrOutside] with the reason for the user.
type outsideError struct{ reason string }

func (e *outsideError) Error() string { return e.reason }
func (e *outsideError) Unwrap() error { return ErrOutside }

// outsideReason says why path (cleaned, absolute) leads outside folder (whose resolved path is
// resolvedFolder): the first of its components, from the folder down, that is a link resolving
// outside ("sub/ is now a link outside the folder", "o.txt is now a link outside the folder"), or
// that path is outside the folder by name.
func outsideReason(folder, resolvedFolder, path string) string {
	rel, inside := Rel(folder, path)
	if !inside {
		if rel2, in2 := Rel(resolvedFolder, path); in2 {
			folder, rel, inside = resolvedFolder, rel2, true
		}
	}
	if !inside {
		return fmt.Sprintf("%s is outside the folder", path)
	}
	if rel == "." {
		return "the folder itself is not a file"
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(folder, filepath.Join(parts[:i+1]...))
		fi, err := os.Lstat(p)
		if err != nil {
			break
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if r, err := resolve(p); err != nil || !within(resolvedFolder, r) {
			shown := filepath.ToSlash(filepath.Join(parts[:i+1]...))
			if i < len(parts)-1 {
				shown += "/"
			}
			return shown + " is now a link outside the folder"
		}
	}
	return filepath.ToSlash(rel) + " leads outside the folder"
}

// inRoot resolves path inside folder with resolve ([Inside], or insideParent for an operation on
// the last element itself), opens folder as an [os.Root] and runs op on the resolved path relative
// to it.
func inRoot[T any](folder, path string, resolve func(folder, path string) (string, error), op func(root *os.Root, rel string) (T, error)) (T, error) {
	var zero T
	rel, err := resolve(folder, path)
	if err != nil {
		return zero, err
	}
	root, err := os.OpenRoot(folder)
	if err != nil {
		return zero, fmt.Errorf("open the folder %s: %w", folder, err)
	}
	defer root.Close()
	return op(root, rel)
}

// OpenRegular opens path for reading if it lies inside folder (see [Inside]) and is a regular
// file. It never blocks on a FIFO: the file is opened non-blocking, then checked with fstat on the
// open file, so nothing can swap it after the check.
func OpenRegular(folder, path string) (*os.File, error) {
	return inRoot(folder, path, Inside, func(root *os.Root, rel string) (*os.File, error) {
		f, err := root.OpenFile(rel, os.O_RDONLY|oNonBlock, 0)
		if err != nil {
			return nil, err
		}
		if err := checkRegular(f, path); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	})
}

// checkRegular fails with [ErrNotRegular] unless the open f is a regular file.
func checkRegular(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", filepath.Base(path), ErrNotRegular)
	}
	return nil
}

// ReadFile reads the regular file at path inside folder, at most limit bytes (a larger file fails
// with [ErrTooLarge]), and stops when ctx ends.
func ReadFile(ctx context.Context, folder, path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(folder, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(ctx, f, limit)
}

// ReadAnywhere reads the regular file at path wherever it lies, in no folder or any, like
// [ReadFile] in all else: at most limit bytes ([ErrTooLarge]), never blocking on a FIFO
// ([ErrNotRegular]), stopping when ctx ends. Nothing contains it, so it is only for a path the
// person named themselves: a document their editor opened (which may be outside every folder), a
// file given on the command line. A path the model, codex or a repository names goes through
// [ReadFile].
func ReadAnywhere(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkRegular(f, path); err != nil {
		return nil, err
	}
	return readOpen(ctx, f, limit)
}

// readOpen reads the open regular file f, at most limit bytes, looking at ctx between chunks.
func readOpen(ctx context.Context, f *os.File, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("over %d bytes: %w", limit, ErrTooLarge)
	}
	return readBounded(ctx, f, limit, fi.Size())
}

// ReadBounded reads r to its end, at most limit bytes (more fails with [ErrTooLarge]), looking
// at ctx between chunks.
func ReadBounded(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	return readBounded(ctx, r, limit, 0)
}

// readBounded is [ReadBounded] into a buffer sized for sizeHint bytes (a regular file's size: one
// allocation, no copies as it grows, when the file does not grow meanwhile).
func readBounded(ctx context.Context, r io.Reader, limit, sizeHint int64) ([]byte, error) {
	out := make([]byte, 0, max(512, min(sizeHint, limit)+1))
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)] // grow, as io.ReadAll does
		}
		n, err := r.Read(out[len(out):min(cap(out), len(out)+readChunk)])
		out = out[:len(out)+n]
		if int64(len(out)) > limit {
			return nil, fmt.Errorf("over %d bytes: %w", limit, ErrTooLarge)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// WriteFile writes data to the file at path inside folder: the file must be regular or missing
// (then it is created with perm, and its missing parents with 0755); a link is never written
// through ([ErrLink]), whether it was one before or became one while the file was opened.
func WriteFile(folder, path string, data []byte, perm fs.FileMode) error {
	_, err := inRoot(folder, path, insideParent, func(root *os.Root, rel string) (struct{}, error) {
		return struct{}{}, writeIn(root, rel, data, perm)
	})
	return err
}

// writeIn is [WriteFile] on rel in root.
func writeIn(root *os.Root, rel string, data []byte, perm fs.FileMode) error {
	before, err := root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if dir := filepath.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return err
		}
		return writeClose(f, data)
	case err != nil:
		return err
	case before.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s %w: not written through", filepath.ToSlash(rel), ErrLink)
	case !before.Mode().IsRegular():
		return fmt.Errorf("%s: %w", filepath.ToSlash(rel), ErrNotRegular)
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|oNonBlock, 0)
	if err != nil {
		return err
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(before, now) {
		f.Close()
		return fmt.Errorf("%s changed while it was opened (now a link?): not written", filepath.ToSlash(rel))
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return err
	}
	return writeClose(f, data)
}

// writeClose writes data to f and closes it.
func writeClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Remove deletes the file at path inside folder (a link there is removed itself, never what it
// points to). A file that does not exist is not an error.
func Remove(folder, path string) error {
	_, err := inRoot(folder, path, insideParent, func(root *os.Root, rel string) (struct{}, error) {
		err := root.Remove(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return struct{}{}, nil
		}
		return struct{}{}, err
	})
	return err
}

// Lstat describes the file at path inside folder without following a link in its last element.
func Lstat(folder, path string) (fs.FileInfo, error) {
	return inRoot(folder, path, insideParent, func(root *os.Root, rel string) (fs.FileInfo, error) {
		return root.Lstat(rel)
	})
}

// insideParent is [Inside] for an operation on path's last element itself (write, remove,
// lstat): its parent is resolved and must lie inside folder; the last element is not followed.
// The folder itself is not such an element: its parent is outside.
func insideParent(folder, path string) (string, error) {
	path = filepath.Clean(path)
	parent, err := Inside(folder, filepath.Dir(path))
	var outside *outsideError
	if errors.As(err, &outside) {
		// Said of the whole path, so that a parent link reads as one ("sub/ is now ...").
		if rr, rerr := resolveRoot(filepath.Clean(folder)); rerr == nil {
			outside.reason = outsideReason(filepath.Clean(folder), rr, path)
		}
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, filepath.Base(path)), nil
}
