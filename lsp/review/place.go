package review

// This file places review findings on their files. A finding's path, lines, title and body are the
// model's, so each is checked before it is shown: the path must resolve (links followed) inside the
// folder and name a regular file (or none: a deleted file), which is read once for all its
// findings, through the workspace boundary, bounded and honouring the context; lines are clamped
// to the file and to LSP's range; text is cleaned and cut; and a file gets at most
// MaxFindingsPerFile findings. Findings loaded from the state directory pass the same checks.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// The bounds of findings.
const (
	// MaxFindingsPerFile bounds the findings on one file (MaxFindings bounds a folder's).
	MaxFindingsPerFile = 50
	// maxLSPLine is the last line LSP can name (a uinteger: 0 to 2^31-1).
	maxLSPLine = 1<<31 - 1
	// maxFindingFileBytes bounds what is read of a file to place its findings: past it, lines
	// are not clamped to the file.
	maxFindingFileBytes = 32 << 20
	// maxMarkText bounds the text a mark keeps of its line, to find it again when the file is
	// opened: a mark on a longer line keeps none (and dies if the file is opened).
	maxMarkText = 16 << 10
)

// Placement says what became of the findings that were not placed.
type Placement struct {
	outside    []string       // "title (path:line)": no path, or one resolving outside the folder
	notRegular []string       // "title (path:line)": a FIFO, a device, a directory
	leftOut    map[string]int // past MaxFindingsPerFile, by the file as shown
	files      []string       // leftOut's keys in the order found
	overFolder int            // past MaxFindings
}

// Dropped reports whether findings were not placed.
func (p *Placement) Dropped() bool {
	return len(p.outside)+len(p.notRegular)+len(p.files)+p.overFolder > 0
}

// String is p for the review's message: a line for each kind of finding left out, each starting
// with a newline.
func (p *Placement) String() string {
	var b strings.Builder
	if len(p.outside) > 0 {
		fmt.Fprintf(&b, "\n%d finding(s) outside the folder: %s", len(p.outside), safetext.Cut(strings.Join(p.outside, "; "), 400))
	}
	if len(p.notRegular) > 0 {
		fmt.Fprintf(&b, "\n%d finding(s) not on a regular file (a FIFO, a device, a directory), not read: %s", len(p.notRegular), safetext.Cut(strings.Join(p.notRegular, "; "), 400))
	}
	if len(p.files) > 0 {
		parts := make([]string, len(p.files))
		for i, file := range p.files {
			parts[i] = fmt.Sprintf("%d more %s on %s left out", p.leftOut[file], plural(p.leftOut[file], "finding", "findings"), file)
		}
		fmt.Fprintf(&b, "\n%s (at most %d on a file)", safetext.Cut(strings.Join(parts, "; "), 600), MaxFindingsPerFile)
	}
	if p.overFolder > 0 {
		fmt.Fprintf(&b, "\n%d more %s left out (at most %d in a folder)", p.overFolder, plural(p.overFolder, "finding", "findings"), MaxFindings)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// place checks the findings of folder, cleans and clamps them, and marks the lines of
// those it keeps; it returns them, in their order, with what became of the others.
func (fs *Findings) place(ctx context.Context, folder string, list []*Finding) ([]*Finding, Placement) {
	p := Placement{leftOut: map[string]int{}}
	var files []string
	byFile := map[string][]*Finding{}
	var admitted []*Finding
	for _, f := range list {
		if f == nil {
			continue
		}
		cleanFinding(f)
		if reason, ok := findingInside(folder, f.Path); !ok {
			p.outside = append(p.outside, shownFinding(f, reason))
			continue
		}
		key := textdoc.Key(f.Path)
		if len(byFile[key]) >= MaxFindingsPerFile {
			shown := shownPath(folder, f.Path)
			if p.leftOut[shown] == 0 {
				p.files = append(p.files, shown)
			}
			p.leftOut[shown]++
			continue
		}
		if len(admitted) >= MaxFindings {
			p.overFolder++
			continue
		}
		if byFile[key] == nil {
			files = append(files, key)
		}
		byFile[key] = append(byFile[key], f)
		admitted = append(admitted, f)
	}
	gone := map[*Finding]bool{}
	for _, key := range files {
		group := byFile[key]
		err := fs.placeOnFile(ctx, folder, group)
		if err == nil {
			continue
		}
		for _, f := range group {
			gone[f] = true
			if errors.Is(err, workspace.ErrNotRegular) {
				p.notRegular = append(p.notRegular, shownFinding(f, ""))
			} else {
				p.outside = append(p.outside, shownFinding(f, err.Error()))
			}
		}
	}
	kept := admitted[:0]
	for _, f := range admitted {
		if !gone[f] {
			kept = append(kept, f)
		}
	}
	return kept, p
}

// cleanFinding bounds f's text and lines as the model's: the title one line of at most
// codex.MaxReviewTitle characters, the body at most codex.MaxReviewBody bytes, both without
// control characters (but the body's newlines and tabs); lines within LSP's range, in order.
func cleanFinding(f *Finding) {
	f.Title = safetext.Cut(strings.TrimSpace(safetext.Line(f.Title)), codex.MaxReviewTitle)
	f.Body = safetext.CutBytes(safetext.Clean(f.Body), codex.MaxReviewBody)
	f.Start, f.End = min(f.Start, maxLSPLine), min(f.End, maxLSPLine)
	if f.End < f.Start {
		f.Start, f.End = f.End, f.Start
	}
}

// findingInside reports whether path resolves (links followed) inside folder, else why not.
func findingInside(folder, path string) (reason string, ok bool) {
	if path == "" {
		return "", false
	}
	if !filepath.IsAbs(path) {
		return "not an absolute path", false
	}
	if _, err := workspace.Inside(folder, path); err != nil {
		if _, lexically := workspace.Rel(folder, path); !lexically {
			return "", false // its path says it
		}
		return err.Error(), false
	}
	return "", true
}

// shownFinding is f for the review's message: "title (path:line)", with reason when there is one.
func shownFinding(f *Finding, reason string) string {
	where := fmt.Sprintf("%s:%d", safetext.Cut(safetext.Line(f.Path), 200), uint64(f.Start)+1)
	if reason != "" {
		where += ", " + safetext.Line(reason)
	}
	return fmt.Sprintf("%s (%s)", f.Title, where)
}

// shownPath is path for the review's message: relative to folder, cleaned and bounded.
func shownPath(folder, path string) string {
	if rel, inside := workspace.Rel(folder, path); inside {
		path = filepath.ToSlash(rel)
	}
	return safetext.Cut(safetext.Line(path), 200)
}

// placeOnFile clamps the lines of the findings of one file to it and marks them. The file is
// opened through the workspace boundary (inside the folder, regular, never blocking) and read
// only when the editor does not have it open; a file that does not exist (deleted by the changes
// reviewed) or cannot be read keeps the lines the model gave. The error is the boundary's refusal.
func (fs *Findings) placeOnFile(ctx context.Context, folder string, group []*Finding) error {
	path := group[0].Path
	fh, err := workspace.OpenRegular(folder, path)
	if errors.Is(err, workspace.ErrNotRegular) || errors.Is(err, workspace.ErrOutside) {
		return err
	}
	u := string(uri.File(path))
	last, clamp := fs.cfg.Docs.LastLine(u) // an open document is the file as the user sees it
	var texts map[uint32]string
	if fh != nil {
		if !clamp {
			want := map[uint32]bool{}
			var upTo uint32
			for _, f := range group {
				want[f.Start], want[f.End] = true, true
				upTo = max(upTo, f.End)
			}
			var n uint32
			var whole bool
			texts, n, whole, err = readLines(ctx, fh, want, upTo)
			if err != nil {
				fs.cfg.Log.Info("a review finding's file could not be read", "path", path, "err", err)
			}
			if whole {
				last, clamp = max(n, 1)-1, true
			}
		}
		fh.Close()
	}
	for _, f := range group {
		if clamp {
			f.Start, f.End = min(f.Start, last), min(f.End, last)
		}
		f.start = fs.cfg.Docs.Mark(u, f.Start, texts[f.Start])
		f.end = fs.cfg.Docs.Mark(u, f.End, texts[f.End])
	}
	return nil
}

// readLines reads r's lines up to line upTo (0-based), at most maxFindingFileBytes, and returns
// the texts of the lines in want (those of at most maxMarkText bytes) and how many lines it read.
// whole is true when it read all of r: n is then r's line count, and the text of its last line is
// among texts. It stops when ctx ends.
func readLines(ctx context.Context, r io.Reader, want map[uint32]bool, upTo uint32) (texts map[uint32]string, n uint32, whole bool, err error) {
	lr := &io.LimitedReader{R: r, N: maxFindingFileBytes}
	br := bufio.NewReaderSize(ctxReader{ctx: ctx, r: lr}, 64<<10)
	texts = map[uint32]string{}
	var cur, prev []byte
	long, prevLong, pending := false, false, false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			pending = true
			if !long && len(cur)+len(chunk) > maxMarkText+2 { // "\r\n" not counted
				long, cur = true, cur[:0]
			}
			if !long {
				cur = append(cur, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil: // a line ended
			if want[n] && !long {
				texts[n] = lineText(cur)
			}
			n++
			if n > upTo {
				return texts, n, false, nil
			}
			prev, cur = cur, prev[:0]
			prevLong, long, pending = long, false, false
		case errors.Is(err, io.EOF):
			if pending { // a last line without a line break
				if want[n] && !long {
					texts[n] = lineText(cur)
				}
				prev, prevLong = cur, long
				n++
			}
			whole = lr.N > 0
			if whole && n > 0 && !prevLong {
				texts[n-1] = lineText(prev) // the line findings past the end are clamped to
			}
			return texts, n, whole, nil
		default:
			return texts, n, false, err
		}
	}
}

// lineText is a line read from a file without its line break.
func lineText(b []byte) string {
	return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
}

// ctxReader is a reader that fails once its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
