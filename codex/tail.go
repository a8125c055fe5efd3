package codex

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
)

// Tail keeps the last lines written to it, for error messages: codex logs on stderr, and what it said
// last is usually why it failed. It is safe for concurrent use.
type Tail struct {
	mu    sync.Mutex
	max   int
	lines []string
	next  int // index of the oldest line once the ring is full
	full  bool
}

// NewTail returns a Tail that keeps at most max lines (at least one).
func NewTail(max int) *Tail {
	if max < 1 {
		max = 1
	}
	return &Tail{max: max, lines: make([]string, 0, min(max, 64))}
}

// ansiEscape matches terminal colour and style sequences, which codex's logger writes even into a
// pipe; they are noise in a message for a person.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// Add records one line. Lines longer than 4 KiB are cut, so one runaway line cannot hold the memory.
func (t *Tail) Add(line string) {
	const maxLine = 4 << 10
	if len(line) > maxLine {
		line = line[:maxLine] + "…"
	}
	line = ansiEscape.ReplaceAllString(line, "")
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.full {
		t.lines = append(t.lines, line)
		if len(t.lines) == t.max {
			t.full = true
		}
		return
	}
	t.lines[t.next] = line
	t.next = (t.next + 1) % t.max
}

// Lines returns the kept lines, oldest first.
func (t *Tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.lines))
	if t.full {
		out = append(out, t.lines[t.next:]...)
		out = append(out, t.lines[:t.next]...)
		return out
	}
	return append(out, t.lines...)
}

// Last returns the last n kept lines joined by newlines.
func (t *Tail) Last(n int) string {
	lines := t.Lines()
	if n < len(lines) {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ReadFrom adds every line read from r until it ends, and reports how many bytes it read. It
// implements io.ReaderFrom. It never stops reading early: a writer blocked on a full pipe (codex
// logging to stderr) would stall.
func (t *Tail) ReadFrom(r io.Reader) (int64, error) {
	lr := newLineReader(r, 4<<10)
	var n int64
	for {
		line, size, err := lr.next()
		n += int64(size)
		if size > 0 {
			t.Add(strings.TrimRight(string(line), "\r\n"))
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// lineReader reads newline-terminated lines and keeps at most limit bytes of each: the rest of an
// over-long line is read and dropped, and the line is reported as cut.
type lineReader struct {
	r     *bufio.Reader
	limit int
	buf   []byte // the line next returned, reused for the next one
}

func newLineReader(r io.Reader, limit int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// next returns the next line (without its newline, at most limit bytes), the number of bytes it
// consumed, and io.EOF after the last line. A line cut at the limit ends in errLineTooLong's marker.
// The line is valid until the next call: its buffer is reused.
func (lr *lineReader) next() (line []byte, size int, err error) {
	buf := lr.buf[:0]
	if cap(buf) > 1<<20 {
		buf = nil // a long line's buffer is not kept for the short ones
	}
	defer func() { lr.buf = line }()
	cut := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
		if !cut {
			if room := lr.limit - len(buf); len(chunk) <= room {
				buf = append(buf, chunk...)
			} else {
				buf = append(buf, chunk[:room]...)
				cut = true
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && size == 0:
			return nil, 0, io.EOF
		case err != nil && err != io.EOF:
			return buf, size, err
		}
		if cut {
			buf = append(buf, tooLongMarker...)
		}
		return bytes.TrimRight(buf, "\r\n"), size, nil
	}
}

// tooLongMarker ends a line that was cut at the reader's limit.
const tooLongMarker = "…[cut]"
