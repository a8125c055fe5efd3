package lsp

// This file is textDocument/hover: on a line a turn was asked from, the turn in markdown (its
// state, the answer so far or whole, tools, files, approvals, tokens, transcript).

import (
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
)

// hover answers a hover request: the turn asked from the line, or null.
func (s *Server) hover(p *protocol.HoverParams) (any, error) {
	uri := string(p.TextDocument.URI)
	rec := s.origins.At(uri, p.Position.Line)
	if rec == nil {
		return nil, nil
	}
	line := p.Position.Line
	end := protocol.Position{Line: line}
	if text, ok := s.docs.Line(uri, line); ok {
		end.Character = textdoc.UTF16Len(text)
	}
	return map[string]any{
		"contents": map[string]any{"kind": protocol.Markdown, "value": rec.Hover()},
		"range":    protocol.Range{Start: protocol.Position{Line: line}, End: end},
	}, nil
}
