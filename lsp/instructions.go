package lsp

// This file marks `hermes:` lines nobody has run yet with a Hint diagnostic, so that users of
// editors without a Hermes plugin (Helix, eglot) find the workflow: the diagnostic says to run the
// line from the code actions. A line a turn was asked from loses its hint.

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
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

// hintQueue holds the documents whose instruction hints are due, for instructionHintLoop.
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

// instructionHintLoop publishes the hints of the documents queued, a short while after their last
// change.
func (s *Server) instructionHintLoop(ctx context.Context) {
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
			uris = append(uris, s.diagSets.uris(instructionHintsFeature)...)
		}
		if all {
			uris = append(uris, s.diagSets.uris(findingsFeature)...)
			uris = append(uris, s.findingFiles()...)
		}
		for _, u := range uris {
			s.publishDiagnostics(ctx, u, instructionHintsFeature, s.instructionHints(u))
			if s.hasFindings(u) || all {
				s.publishFindings(ctx, u) // their lines may have moved, or gone
			}
		}
	}
}

// instructionHints are the hints of the document at uri: one per `hermes:` line that no turn was
// asked from. A document that is not open, outside the workspace folders, or too large has none.
func (s *Server) instructionHints(uri string) []protocol.Diagnostic {
	if !s.currentSettings().InstructionHints {
		return nil
	}
	if _, err := s.resolveFolder(uri); err != nil {
		if _, _, ok := s.transcriptThread(uri); !ok {
			return nil
		}
	}
	if n, ok := s.docs.Size(uri); !ok || n > instructionScanMax {
		return nil // not open, or too large to scan (and to join) at every edit
	}
	text, ok := s.docs.Text(uri)
	if !ok || len(text) > instructionScanMax || !strings.Contains(strings.ToLower(text), "hermes:") {
		return nil
	}
	var out []protocol.Diagnostic
	var line uint32
	for rest := text; len(out) < instructionHintsMax; line++ {
		i := strings.IndexAny(rest, "\r\n")
		cur := rest
		if i >= 0 {
			cur = rest[:i]
		}
		if loc := instruction.FindStringSubmatchIndex(cur); loc != nil && strings.TrimSpace(cur[loc[2]:loc[3]]) != "" && s.origins.at(uri, line) == nil {
			out = append(out, protocol.Diagnostic{
				Range: protocol.Range{
					Start: protocol.Position{Line: line, Character: utf16Len(cur[:loc[0]])},
					End:   protocol.Position{Line: line, Character: utf16Len(cur)},
				},
				Severity: protocol.DiagnosticSeverityHint,
				Source:   diagnosticSource,
				Code:     instructionHintCode,
				Message:  instructionHintMessage,
			})
		}
		if i < 0 {
			break
		}
		next := i + 1
		if rest[i] == '\r' && next < len(rest) && rest[next] == '\n' {
			next++
		}
		rest = rest[next:]
	}
	return out
}
