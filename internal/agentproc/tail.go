package agentproc

import (
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/hermes-lsp/hermes-lsp/internal/lines"
)

// Tail keeps the last lines written to it, for error messages: an agent logs on stderr, and what it
// said last is usually why it failed. It is safe for concurrent use.
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

// ansiEscape matches terminal colour and style sequences, which codex's logger (and others) writes
// even into a pipe; they are noise in a message for a person.
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
// implements io.ReaderFrom. It never stops reading early: a writer blocked on a full pipe (an agent
// logging to stderr) would stall.
func (t *Tail) ReadFrom(r io.Reader) (int64, error) {
	lr := lines.NewReader(r, 4<<10)
	var n int64
	for {
		line, size, err := lr.Next()
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
