package demo

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// terminal is the demo's output: permanent lines, the streamed answer, and one progress line that
// updates in place on a terminal (with \r) and is printed as plain lines otherwise. Its methods are
// safe for concurrent use.
type terminal struct {
	mu    sync.Mutex
	out   io.Writer
	tty   bool // out is a terminal: redraw the progress line in place
	color bool

	status    string // the progress line
	shown     bool   // the progress line is on screen (tty)
	lastPlain string // the activity of the last progress line printed (not tty)
	answering bool   // an answer is streaming: its line is open
	prompting bool   // a question waits for input: draw nothing over it
	promptEnd bool   // the cursor sits at the end of the question's line
	closed    bool   // Done: no more progress lines
}

// ANSI styles, used only when color is on.
const (
	styleBold  = "\033[1m"
	styleDim   = "\033[2m"
	styleRed   = "\033[31m"
	styleGreen = "\033[32m"
	styleCyan  = "\033[36m"
	styleReset = "\033[0m"
)

// style wraps s in an ANSI style when color is on.
func (t *terminal) style(code, s string) string {
	if !t.color || s == "" {
		return s
	}
	return code + s + styleReset
}

// clearStatusLocked removes the progress line from the screen.
func (t *terminal) clearStatusLocked() {
	if t.shown {
		io.WriteString(t.out, "\r\033[K")
		t.shown = false
	}
}

// drawStatusLocked puts the progress line back, unless something else owns the line.
func (t *terminal) drawStatusLocked() {
	if !t.tty || t.status == "" || t.answering || t.prompting || t.shown {
		return
	}
	io.WriteString(t.out, t.style(styleDim, "⋯ "+clip(t.status, 110)))
	t.shown = true
}

// endAnswerLocked closes a streaming answer's line.
func (t *terminal) endAnswerLocked() {
	if t.answering {
		io.WriteString(t.out, "\n")
		t.answering = false
	}
}

// Status sets the progress line.
func (t *terminal) Status(msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if msg == "" || msg == t.status || t.closed {
		return
	}
	t.status = msg
	if t.tty {
		t.clearStatusLocked()
		t.drawStatusLocked()
		return
	}
	// Plain lines: one per change of activity, not per change of the token count.
	// "answering" says nothing the streamed answer does not.
	activity, _, _ := strings.Cut(msg, " · ")
	if t.answering || t.prompting || activity == t.lastPlain || activity == "answering" {
		return
	}
	t.lastPlain = activity
	fmt.Fprintln(t.out, "  ⋯ "+msg)
}

// Println prints permanent lines (text may hold several), ending a streaming answer (or the line
// of a question) first.
func (t *terminal) Println(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endAnswerLocked()
	if t.promptEnd {
		io.WriteString(t.out, "\n")
		t.promptEnd = false
	}
	t.clearStatusLocked()
	io.WriteString(t.out, strings.TrimSuffix(text, "\n")+"\n")
	t.drawStatusLocked()
}

// Printf is Println with a format.
func (t *terminal) Printf(format string, args ...any) {
	t.Println(fmt.Sprintf(format, args...))
}

// AnswerDelta streams a piece of the agent's answer.
func (t *terminal) AnswerDelta(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if text == "" {
		return
	}
	if !t.answering {
		t.clearStatusLocked()
		io.WriteString(t.out, t.style(styleBold+styleCyan, "» answer")+"\n  ")
		t.answering = true
	}
	io.WriteString(t.out, strings.ReplaceAll(text, "\n", "\n  "))
}

// EndAnswer closes a streaming answer, if one is open, and shows the progress line again.
func (t *terminal) EndAnswer() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endAnswerLocked()
	t.drawStatusLocked()
}

// Ask prints a question and keeps the progress line away until Answered.
func (t *terminal) Ask(question string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endAnswerLocked()
	t.clearStatusLocked()
	t.prompting, t.promptEnd = true, true
	io.WriteString(t.out, question)
}

// Answered ends a question with answer. A leading newline in answer ends the question's line, when
// nothing did (a typed line's echo, or a line printed meanwhile).
func (t *terminal) Answered(answer string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.promptEnd {
		answer = strings.TrimPrefix(answer, "\n")
	}
	if answer != "" {
		io.WriteString(t.out, answer+"\n")
	}
	t.prompting, t.promptEnd = false, false
	t.drawStatusLocked()
}

// Done removes the progress line for good.
func (t *terminal) Done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endAnswerLocked()
	t.clearStatusLocked()
	t.status, t.closed = "", true
}

// Diff prints a unified diff, indented, colored on a terminal.
func (t *terminal) Diff(diff string) {
	var b strings.Builder
	for line := range strings.Lines(strings.TrimRight(diff, "\n") + "\n") {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			line = t.style(styleBold, line)
		case strings.HasPrefix(line, "+"):
			line = t.style(styleGreen, line)
		case strings.HasPrefix(line, "-"):
			line = t.style(styleRed, line)
		case strings.HasPrefix(line, "@@"):
			line = t.style(styleCyan, line)
		}
		b.WriteString("    " + line + "\n")
	}
	t.Println(b.String())
}

// clip cuts s to n characters, ending in "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
