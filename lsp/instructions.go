package lsp

// This file finds the `hermes:` instructions of a document, and marks those nobody has run yet with
// a Hint diagnostic, so that users of editors without a Hermes plugin (Helix, eglot) find the
// workflow: the diagnostic says to run the line from the code actions. A line a turn was asked
// from loses its hint.

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/internal/textline"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
)

const (
	// instructionHintMessage is the hint's text.
	instructionHintMessage = "Hermes instruction: run it from the code actions"
	// instructionHintCode tells the hint apart from the server's other diagnostics.
	instructionHintCode = "instruction"
	// instructionHintsFeature is the hints' set among the server's diagnostics.
	instructionHintsFeature = "instructions"
	// instructionHintDelay gathers a burst of edits into one pass.
	instructionHintDelay = 150 * time.Millisecond
	// instructionScanMax is the largest document scanned for instructions, and
	// instructionHintsMax the most hints one document gets.
	instructionScanMax  = 4 << 20
	instructionHintsMax = 100
)

// hintQueue holds the documents edited since editedDocsLoop last told the edited features.
type hintQueue struct {
	mu    sync.Mutex
	dirty map[string]bool // by URI
	all   bool            // every document (the setting changed)
	kick  chan struct{}
}

func newHintQueue() *hintQueue {
	return &hintQueue{dirty: make(map[string]bool), kick: make(chan struct{}, 1)}
}

// add queues uri ("" queues every open document).
func (q *hintQueue) add(uri string) {
	q.mu.Lock()
	if uri == "" {
		q.all = true
	} else {
		q.dirty[uri] = true
	}
	q.mu.Unlock()
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// take empties the queue.
func (q *hintQueue) take() (uris []string, all bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for u := range q.dirty {
		uris = append(uris, u)
	}
	clear(q.dirty)
	all, q.all = q.all, false
	return uris, all
}

// editedFeature is a set of diagnostics that follows the editor's edits: it is told which
// documents changed (all: every document, a setting changed) and publishes what it has on them.
type editedFeature func(ctx context.Context, uris []string, all bool)

// editedDocsLoop tells the server's edited features (s.edited) which documents changed, a short
// while after their last change.
func (s *Server) editedDocsLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.hints.kick:
		}
		t := time.NewTimer(instructionHintDelay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		uris, all := s.hints.take()
		if all {
			uris = append(uris, s.docs.URIs()...)
		}
		for _, feature := range s.edited {
			feature(ctx, uris, all)
		}
	}
}

// publishInstructionHints is the instruction hints' editedFeature.
func (s *Server) publishInstructionHints(ctx context.Context, uris []string, all bool) {
	if all {
		uris = append(slices.Clone(uris), s.diagSets.uris(instructionHintsFeature)...)
	}
	for _, u := range uris {
		s.publishDiagnostics(ctx, u, instructionHintsFeature, s.instructionHints(u))
	}
}

// instructionHints are the hints of the document at uri: one per `hermes:` instruction that no
// turn was asked from (a transcript's by its format: see instructionsIn). A document that is not
// open, outside the workspace folders and not a transcript of one, or too large has none.
func (s *Server) instructionHints(uri string) []protocol.Diagnostic {
	if !s.settings.Load().InstructionHints {
		return nil
	}
	transcript, ok := s.instructionDocument(uri)
	if !ok {
		return nil
	}
	if n, ok := s.docs.Size(uri); !ok || n > instructionScanMax {
		return nil // not open, or too large to scan (and to join) at every edit
	}
	text, ok := s.docs.Text(uri)
	if !ok || len(text) > instructionScanMax || !strings.Contains(strings.ToLower(text), "hermes:") {
		return nil
	}
	var out []protocol.Diagnostic
	for in := range instructionsIn(text, transcript) {
		if len(out) == instructionHintsMax {
			break
		}
		if s.origins.At(uri, uint32(in.Line)) != nil {
			continue
		}
		line := uint32(in.Line)
		out = append(out, protocol.Diagnostic{
			Range: protocol.Range{
				Start: protocol.Position{Line: line, Character: textdoc.UTF16Len(in.Text[:in.Column])},
				End:   protocol.Position{Line: line, Character: textdoc.UTF16Len(in.Text)},
			},
			Severity: protocol.DiagnosticSeverityHint,
			Source:   diagnosticSource,
			Code:     instructionHintCode,
			Message:  instructionHintMessage,
		})
	}
	return out
}

// instructionDocument reports whether the server looks for instructions in the document at uri
// (one of a workspace folder, or a thread's transcript of one), and whether it is a transcript.
func (s *Server) instructionDocument(uri string) (transcript, ok bool) {
	if s.threads.IsTranscript(uri) {
		_, _, ok := s.threads.Transcript(uri)
		return true, ok
	}
	_, err := s.resolveFolder(uri)
	return false, err == nil
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
