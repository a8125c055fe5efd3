// Package instruct finds the `hermes:` instructions of a document: the one "run instruction" runs
// (with its continuation lines; never a selection), and a Hint diagnostic on each instruction nobody
// has run yet, so that users of editors without a Hermes plugin (Helix, eglot) find the workflow:
// the diagnostic says to run the line from the code actions. A line a turn was asked from loses its
// hint. In a thread's transcript only the lines the user added are instructions.
package instruct

import (
	"context"
	"iter"
	"regexp"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/internal/textline"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
)

const (
	// hintMessage is the hint's text.
	hintMessage = "Hermes instruction: run it from the code actions"
	// hintCode tells the hint apart from the server's other diagnostics.
	hintCode = "instruction"
	// Feature is the hints' set among the server's diagnostics.
	Feature = "instructions"
	// scanMax is the largest document scanned for instructions, and hintsMax the most hints one
	// document gets.
	scanMax  = 4 << 20
	hintsMax = 100
)

// IsHint reports whether d is an instruction hint of a server whose diagnostics have source: the
// server's own note on a `hermes:` line, not a diagnostic of the code (a prompt leaves it out).
func IsHint(d protocol.Diagnostic, source string) bool {
	code, _ := d.Code.(string)
	return code == hintCode && d.Source == source
}

// instruction finds a `hermes:` instruction on a line of a document other than a transcript, in a
// comment or in plain text.
var instruction = regexp.MustCompile(`(?i)\bhermes:\s*(.+)$`)

// Config is what Instructions needs of the server.
type Config struct {
	// Docs are the documents open in the editor.
	Docs *textdoc.Documents
	// Origins are the lines turns were asked from: they have no hint.
	Origins *annotate.Origins
	// Kind reports whether instructions are looked for in the document at uri (one of a workspace
	// folder, or a thread's transcript of one), and whether it is a transcript.
	Kind func(uri string) (transcript, ok bool)
	// IsTranscript reports whether the document at uri is a thread's transcript, by its path.
	IsTranscript func(uri string) bool
	// Enabled reports the instructionHints setting.
	Enabled func() bool
	// Publish replaces the hints of the document at uri.
	Publish func(ctx context.Context, uri string, diags []protocol.Diagnostic)
	// Published are the documents that have hints now.
	Published func() []string
	// Source is the diagnostics' source.
	Source string
}

// Instructions finds instructions in the editor's documents.
type Instructions struct {
	cfg Config
}

// New returns the instructions of cfg.Docs.
func New(cfg Config) *Instructions { return &Instructions{cfg: cfg} }

// Refresh publishes the hints of the documents at uris (all: of every document that has some too,
// a setting changed): the editing loop's feature.
func (ins *Instructions) Refresh(ctx context.Context, uris []string, all bool) {
	if all {
		uris = append(slices.Clone(uris), ins.cfg.Published()...)
	}
	for _, u := range uris {
		ins.cfg.Publish(ctx, u, ins.hints(u))
	}
}

// hints are the hints of the document at uri: one per `hermes:` instruction that no turn was asked
// from (a transcript's by its format: see instructionsIn). A document that is not open, outside
// the workspace folders and not a transcript of one, or too large has none.
func (ins *Instructions) hints(uri string) []protocol.Diagnostic {
	if !ins.cfg.Enabled() {
		return nil
	}
	transcript, ok := ins.cfg.Kind(uri)
	if !ok {
		return nil
	}
	docs := ins.cfg.Docs
	if n, ok := docs.Size(uri); !ok || n > scanMax {
		return nil // not open, or too large to scan (and to join) at every edit
	}
	text, ok := docs.Text(uri)
	if !ok || len(text) > scanMax || !strings.Contains(strings.ToLower(text), "hermes:") {
		return nil
	}
	var out []protocol.Diagnostic
	for in := range instructionsIn(text, transcript) {
		if len(out) == hintsMax {
			break
		}
		if ins.cfg.Origins.At(uri, uint32(in.Line)) != nil {
			continue
		}
		line := uint32(in.Line)
		out = append(out, protocol.Diagnostic{
			Range: protocol.Range{
				Start: protocol.Position{Line: line, Character: textdoc.UTF16Len(in.Text[:in.Column])},
				End:   protocol.Position{Line: line, Character: textdoc.UTF16Len(in.Text)},
			},
			Severity: protocol.DiagnosticSeverityHint,
			Source:   ins.cfg.Source,
			Code:     hintCode,
			Message:  hintMessage,
		})
	}
	return out
}

// At finds what "run instruction" runs: the `hermes:` instruction on the current line, with its
// continuation lines (see instructionsIn), bounded by agenthost.InstructionMaxBytes and
// InstructionMaxLines; in a transcript, only the user's instructions. A selection is never the
// prompt, whoever asked for the code actions: "ask about selection" is its action, with a prompt of
// the user's.
func (ins *Instructions) At(uri string, rng protocol.Range) (string, bool) {
	s := ins.cfg
	if s.IsTranscript(uri) {
		return ins.transcriptAt(uri, rng.Start.Line)
	}
	line, ok := s.Docs.Line(uri, rng.Start.Line)
	if !ok {
		return "", false
	}
	next := rng.Start.Line
	in, ok := sourceInstruction(int(next), line, func() (string, bool) {
		next++
		return s.Docs.Line(uri, next)
	})
	if !ok {
		return "", false
	}
	return in.Prompt, true
}

// transcriptAt returns the instruction the user wrote on line n of a transcript, found
// by the transcript's format: a line of the agent's is none.
func (ins *Instructions) transcriptAt(uri string, n uint32) (string, bool) {
	s := ins.cfg
	line, ok := s.Docs.Line(uri, n)
	if !ok || !instruction.MatchString(line) {
		return "", false // the common case, without reading the whole transcript
	}
	if size, ok := s.Docs.Size(uri); !ok || size > scanMax {
		return "", false
	}
	text, ok := s.Docs.Text(uri)
	if !ok {
		return "", false
	}
	for in := range agenthost.TranscriptInstructions(text) {
		if in.Line >= int(n) {
			return in.Prompt, in.Line == int(n)
		}
	}
	return "", false
}

// instructionsIn yields the instructions of a document's text: a transcript's by its format (only
// the lines the user added: agenthost.TranscriptInstructions), any other's by sourceInstruction.
func instructionsIn(text string, transcript bool) iter.Seq[agenthost.Instruction] {
	if transcript {
		return agenthost.TranscriptInstructions(text)
	}
	return func(yield func(agenthost.Instruction) bool) {
		for n, off := 0, 0; off <= len(text); n++ {
			line, next := textline.At(text, off)
			if in, ok := sourceInstruction(n, line, linesFrom(text, next)); ok && !yield(in) {
				return
			}
			off = next
		}
	}
}

// linesFrom returns the lines of text from offset off, one per call, then false.
func linesFrom(text string, off int) func() (string, bool) {
	return func() (string, bool) {
		if off > len(text) {
			return "", false
		}
		line, next := textline.At(text, off)
		off = next
		return line, true
	}
}

// Comment markers after which an instruction has continuation lines: a line comment's (each
// continuation line starts with the same marker) and a block comment's (its next lines, a leading
// '*' left out, to the comment's end).
var (
	lineCommentMarkers  = []string{"//", "///", "//!", "#", "##", "--", ";", ";;", "%", "%%", "'", `"`}
	blockCommentMarkers = []string{"/*", "/**", "*", "<!--"}
)

// instructionTrim is what comes off the ends of an instruction's lines: comment ends and markers.
const instructionTrim = "*/->#; \t"

// sourceInstruction reads the instruction on line n of a document other than a transcript, if it
// has one: `hermes:` anywhere on the line (in a comment or plain text), with words after it, and at
// most agenthost.InstructionMaxBytes of them. Its continuation lines (next gives the lines after
// it) are, when only a comment marker or nothing precedes `hermes:` on its line, the following
// lines of the same comment (for a line comment, those starting with the same marker; for a block
// comment, to its end) or of the same paragraph (no marker), up to a blank line or a line with
// another `hermes:`, within agenthost.InstructionMaxLines lines and InstructionMaxBytes.
func sourceInstruction(n int, line string, next func() (string, bool)) (agenthost.Instruction, bool) {
	loc := instruction.FindStringSubmatchIndex(line)
	if loc == nil {
		return agenthost.Instruction{}, false
	}
	prompt := strings.TrimSpace(strings.TrimRight(line[loc[2]:loc[3]], instructionTrim))
	if prompt == "" || len(prompt) > agenthost.InstructionMaxBytes {
		return agenthost.Instruction{}, false
	}
	in := agenthost.Instruction{Line: n, Column: loc[0], Lines: 1, Prompt: prompt, Text: line}
	marker := strings.TrimSpace(line[:loc[0]])
	lineComment, blockComment := slices.Contains(lineCommentMarkers, marker), slices.Contains(blockCommentMarkers, marker)
	if !lineComment && !blockComment && marker != "" || closesComment(line[loc[1]:]) {
		return in, true
	}
	for in.Lines < agenthost.InstructionMaxLines {
		cont, ok := next()
		if !ok {
			break
		}
		t := strings.TrimSpace(cont)
		if lineComment {
			if !strings.HasPrefix(t, marker) {
				break
			}
			t = t[len(marker):]
		} else if blockComment && strings.HasPrefix(t, "*") && !strings.HasPrefix(t, "*/") {
			t = t[1:]
		}
		end := blockComment && closesComment(t)
		t = strings.TrimSpace(strings.TrimRight(t, instructionTrim))
		if t == "" || instruction.MatchString(t) || len(in.Prompt)+1+len(t) > agenthost.InstructionMaxBytes {
			break
		}
		in.Prompt += "\n" + t
		in.Lines++
		if end {
			break
		}
	}
	return in, true
}

// closesComment reports whether s ends a block comment.
func closesComment(s string) bool {
	return strings.Contains(s, "*/") || strings.Contains(s, "-->")
}

// Tiny reports a selection of at most one character on one line: a cursor.
func Tiny(r protocol.Range) bool {
	return r.Start.Line == r.End.Line && r.End.Character <= r.Start.Character+1
}
