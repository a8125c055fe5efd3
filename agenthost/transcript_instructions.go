package agenthost

// This file says which lines of a thread's markdown transcript are the user's instructions: the
// `hermes:` lines a user adds to continue the thread. The writer (transcript_md.go) quotes or
// fences everything the agent and its tools wrote, keeps its other rows on one line that starts
// with markup, and escapes any line that would still read as an instruction (guardRow); this
// parser is the other half of that boundary. docs/protocol.md describes the format.

import (
	"iter"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/internal/textline"
)

// Instruction is a `hermes:` instruction written in a document.
type Instruction struct {
	Line   int    // the zero-based line of `hermes:`
	Column int    // the byte offset of `hermes:` in that line
	Lines  int    // the lines it spans: its own and its continuation lines
	Prompt string // what it asks: the text after `hermes:` and of its continuation lines, trimmed, one line each
	Text   string // the line of `hermes:`, as written (without its line break)
}

// Bounds of an instruction: a first line longer than InstructionMaxBytes is none, and continuation
// lines stop before the prompt would pass InstructionMaxBytes or the instruction
// InstructionMaxLines lines.
const (
	InstructionMaxBytes = 4 << 10
	InstructionMaxLines = 20
)

// instructionPrefix starts an instruction, in any case.
const instructionPrefix = "hermes:"

// TranscriptInstructions yields the user's instructions in the text of a markdown transcript, in
// order. An instruction is a line that starts with `hermes:` (after spaces or tabs) with words
// after it, outside any code fence, not a quote line ("> ", where the writer puts prompts, answers
// and approvals) and not inside an answer written before answers were quoted (from "### Hermes"
// to the turn's last line). Its continuation lines are the lines after it up to a blank line, a
// line of the transcript's own markup (one starting with '>', '`', '~', '#', '<', '_', "**" or
// "---") or another instruction, within the bounds above. Lines end at "\n", "\r\n" or "\r", as an
// LSP document's do.
func TranscriptInstructions(text string) iter.Seq[Instruction] {
	return func(yield func(Instruction) bool) {
		var sc transcriptScan
		for n, off := 0, 0; off <= len(text); n++ {
			line, next := textline.At(text, off)
			if sc.step(line) {
				if in, ok := transcriptInstruction(text, n, line, next); ok && !yield(in) {
					return
				}
			}
			off = next
		}
	}
}

// transcriptInstruction reads the instruction on line n, if it is one, with its continuation
// lines, which start at offset next.
func transcriptInstruction(text string, n int, line string, next int) (Instruction, bool) {
	col, prompt, ok := instructionStart(line)
	if !ok {
		return Instruction{}, false
	}
	in := Instruction{Line: n, Column: col, Lines: 1, Prompt: prompt, Text: line}
	for off := next; off <= len(text) && in.Lines < InstructionMaxLines; {
		cont, after := textline.At(text, off)
		t := strings.TrimSpace(cont)
		if t == "" || transcriptMarkup(t) || len(in.Prompt)+1+len(t) > InstructionMaxBytes {
			break
		}
		if _, _, ok := instructionStart(t); ok {
			break
		}
		in.Prompt += "\n" + t
		in.Lines++
		off = after
	}
	return in, true
}

// instructionStart reports whether line starts with `hermes:` (after spaces or tabs) and has at most
// InstructionMaxBytes of words after it: the column of `hermes:` and the words.
func instructionStart(line string) (col int, prompt string, ok bool) {
	t := strings.TrimLeft(line, " \t")
	if !startsInstruction(t) {
		return 0, "", false
	}
	prompt = strings.TrimSpace(t[len(instructionPrefix):])
	if prompt == "" || len(prompt) > InstructionMaxBytes {
		return 0, "", false
	}
	return len(line) - len(t), prompt, true
}

// startsInstruction reports whether s starts with `hermes:`, in any case.
func startsInstruction(s string) bool {
	return len(s) >= len(instructionPrefix) && strings.EqualFold(s[:len(instructionPrefix)], instructionPrefix)
}

// transcriptMarkup reports whether a trimmed, non-empty line starts as the writer's own lines do: a
// quote, a fence or a patch's path, a heading, a <details> tag, a turn's last line, a tool's row, a
// rule. Such a line ends an instruction's continuation lines: it may be the agent's.
func transcriptMarkup(t string) bool {
	return strings.IndexByte(">`~#<_", t[0]) >= 0 || strings.HasPrefix(t, "**") || strings.HasPrefix(t, "---")
}

// transcriptScan follows a transcript line by line: the code fence it is in, and the answers
// written before they were quoted.
type transcriptScan struct {
	fence       string // the open fence's run of backticks or tildes, "" outside one
	afterHermes bool   // a "### Hermes" heading was the last line that was not blank
	legacy      bool   // in an unquoted answer (an older writer's), up to its turn's last line
}

// step takes the next line and reports whether the user may have written it as an instruction: it
// is outside code fences and old unquoted answers. (A quote line never starts with `hermes:`.)
func (sc *transcriptScan) step(line string) bool {
	if sc.fence != "" {
		if closesFence(line, sc.fence) {
			sc.fence = ""
		}
		return false
	}
	t := strings.TrimLeft(line, " \t")
	if sc.afterHermes && t != "" {
		sc.afterHermes = false
		sc.legacy = t[0] != '>' // today's answers are quoted; an older one is the heading's lines
	}
	if f := opensFence(line); f != "" {
		sc.fence = f
		return false
	}
	if sc.legacy {
		if isTurnEnd(t) || strings.HasPrefix(t, "### You") || strings.HasPrefix(t, "### Compaction") {
			sc.legacy = false
		}
		return false
	}
	if strings.TrimRight(t, " \t") == "### Hermes" {
		sc.afterHermes = true
		return false
	}
	return true
}

// isTurnEnd reports whether a trimmed line is a turn's last line, as mdEnd writes it.
func isTurnEnd(t string) bool {
	return strings.HasPrefix(t, "_") && strings.Contains(t, " · turn `")
}

// opensFence returns the run of backticks or tildes that opens a code fence on line (after at most
// three spaces, at least three of them; a backtick fence's info string has no backtick), or "".
func opensFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0) {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes the fence opened by run: at most three spaces, at least
// as many of its characters, then only spaces or tabs.
func closesFence(line, run string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == run[0] {
		n++
	}
	return n >= len(run) && strings.TrimRight(t[n:], " \t") == ""
}
