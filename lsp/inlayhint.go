package lsp

// This file is textDocument/inlayHint: at the end of each line a turn was asked from, the turn's
// state in a few characters; and workspace/inlayHint/refresh when a state changes, at most twice a
// second. go.lsp.dev/protocol v0.12.0 has no inlay hint types: the request and its answer are
// plain JSON here.

import (
	"context"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
)

// inlayRefreshInterval is the least time between two workspace/inlayHint/refresh requests.
const inlayRefreshInterval = 500 * time.Millisecond

// MethodInlayHint and MethodInlayHintRefresh are LSP 3.17's inlay hint methods.
const (
	MethodInlayHint        = "textDocument/inlayHint"
	MethodInlayHintRefresh = "workspace/inlayHint/refresh"
)

// inlayHintParams are textDocument/inlayHint's params.
type inlayHintParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
}

// inlayHint is one hint of the answer.
type inlayHint struct {
	Position    protocol.Position `json:"position"`
	Label       string            `json:"label"`
	Tooltip     string            `json:"tooltip,omitempty"`
	PaddingLeft bool              `json:"paddingLeft"`
}

// inlayHints answers textDocument/inlayHint: a hint after each origin line in the range.
func (s *Server) inlayHints(p *inlayHintParams) ([]inlayHint, error) {
	hints := []inlayHint{}
	if !s.settings.Load().InlineStatus {
		return hints, nil
	}
	uri := string(p.TextDocument.URI)
	for _, o := range s.origins.In(uri) {
		if o.Line < p.Range.Start.Line || o.Line > p.Range.End.Line {
			continue
		}
		text, ok := s.docs.Line(uri, o.Line)
		if !ok {
			continue
		}
		hints = append(hints, inlayHint{
			Position:    protocol.Position{Line: o.Line, Character: textdoc.UTF16Len(text)},
			Label:       o.Rec.Label(),
			Tooltip:     "Hermes: hover the line for the whole turn",
			PaddingLeft: true,
		})
	}
	return hints, nil
}

// refreshInlayHints asks for a workspace/inlayHint/refresh (sent by inlayRefreshLoop, coalesced).
func (s *Server) refreshInlayHints() {
	select {
	case s.inlayKick <- struct{}{}:
	default: // one is due already
	}
}

// inlayRefreshLoop sends workspace/inlayHint/refresh when asked, at most once per
// inlayRefreshInterval: asks that come while it waits are covered by the one it sends next.
func (s *Server) inlayRefreshLoop(ctx context.Context) {
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.inlayKick:
		}
		if wait := inlayRefreshInterval - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		select {
		case <-s.inlayKick: // covered by this refresh
		default:
		}
		last = time.Now()
		if err := s.editor.Call(ctx, MethodInlayHintRefresh, nil, nil); err != nil {
			s.log.Debug("inlay hint refresh", "err", err)
		}
	}
}
