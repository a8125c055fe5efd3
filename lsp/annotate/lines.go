package annotate

// This file is what the editor shows on the lines turns were asked from: textDocument/inlayHint (at
// the end of each such line, the turn's state in a few characters), textDocument/hover (the turn
// in markdown), and workspace/inlayHint/refresh when a state changes, at most twice a second.
// go.lsp.dev/protocol v0.12.0 has no inlay hint types: the request and its answer are plain JSON
// here.

import (
	"context"
	"log/slog"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
)

// refreshInterval is the least time between two workspace/inlayHint/refresh requests.
const refreshInterval = 500 * time.Millisecond

// MethodInlayHint and MethodInlayHintRefresh are LSP 3.17's inlay hint methods.
const (
	MethodInlayHint        = "textDocument/inlayHint"
	MethodInlayHintRefresh = "workspace/inlayHint/refresh"
)

// InlayHintParams are textDocument/inlayHint's params.
type InlayHintParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
}

// InlayHint is one hint of textDocument/inlayHint's answer.
type InlayHint struct {
	Position    protocol.Position `json:"position"`
	Label       string            `json:"label"`
	Tooltip     string            `json:"tooltip,omitempty"`
	PaddingLeft bool              `json:"paddingLeft"`
}

// Lines are the lines turns were asked from, and what the editor shows on them.
type Lines struct {
	origins Origins
	docs    *textdoc.Documents
	ed      *editor.Client
	log     *slog.Logger
	inline  func() bool   // the inlineStatus setting
	kick    chan struct{} // asks RefreshLoop for a refresh
}

// NewLines returns the lines of docs' documents; inline reports the inlineStatus setting.
func NewLines(docs *textdoc.Documents, ed *editor.Client, log *slog.Logger, inline func() bool) *Lines {
	return &Lines{docs: docs, ed: ed, log: log, inline: inline, kick: make(chan struct{}, 1)}
}

// Origins are the lines turns were asked from.
func (l *Lines) Origins() *Origins { return &l.origins }

// InlayHints answers textDocument/inlayHint: a hint after each origin line in the range.
func (l *Lines) InlayHints(p *InlayHintParams) []InlayHint {
	hints := []InlayHint{}
	if !l.inline() {
		return hints
	}
	uri := string(p.TextDocument.URI)
	for _, o := range l.origins.In(uri) {
		if o.Line < p.Range.Start.Line || o.Line > p.Range.End.Line {
			continue
		}
		text, ok := l.docs.Line(uri, o.Line)
		if !ok {
			continue
		}
		hints = append(hints, InlayHint{
			Position:    protocol.Position{Line: o.Line, Character: textdoc.UTF16Len(text)},
			Label:       o.Rec.Label(),
			Tooltip:     "Hermes: hover the line for the whole turn",
			PaddingLeft: true,
		})
	}
	return hints
}

// Hover answers a hover request: the turn asked from the line, or null.
func (l *Lines) Hover(p *protocol.HoverParams) any {
	uri := string(p.TextDocument.URI)
	text, ok := l.HoverText(uri, p.Position.Line)
	if !ok {
		return nil
	}
	return HoverResult(l.docs, uri, p.Position.Line, protocol.Markdown, text)
}

// HoverText is the hover of the turn asked from line of the document at uri (markdown), with false
// when no turn was.
func (l *Lines) HoverText(uri string, line uint32) (string, bool) {
	rec := l.origins.At(uri, line)
	if rec == nil {
		return "", false
	}
	return rec.Hover(), true
}

// HoverResult is textDocument/hover's answer: text of kind over line of the document at uri.
func HoverResult(docs *textdoc.Documents, uri string, line uint32, kind protocol.MarkupKind, text string) any {
	end := protocol.Position{Line: line}
	if t, ok := docs.Line(uri, line); ok {
		end.Character = textdoc.UTF16Len(t)
	}
	return map[string]any{
		"contents": map[string]any{"kind": kind, "value": text},
		"range":    protocol.Range{Start: protocol.Position{Line: line}, End: end},
	}
}

// Refresh asks for a workspace/inlayHint/refresh (sent by RefreshLoop, coalesced).
func (l *Lines) Refresh() {
	select {
	case l.kick <- struct{}{}:
	default: // one is due already
	}
}

// RefreshLoop sends workspace/inlayHint/refresh when asked, at most once per refreshInterval:
// asks that come while it waits are covered by the one it sends next. It runs until ctx ends.
func (l *Lines) RefreshLoop(ctx context.Context) {
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.kick:
		}
		if wait := refreshInterval - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		select {
		case <-l.kick: // covered by this refresh
		default:
		}
		last = time.Now()
		if err := l.ed.Call(ctx, MethodInlayHintRefresh, nil, nil); err != nil {
			l.log.Debug("inlay hint refresh", "err", err)
		}
	}
}
