package lsp

// This file hands the changes under review (lsp/changes) their commands, and puts their hover and
// inlay hints beside the turns'.

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/annotate"
	"github.com/hermes-lsp/hermes-lsp/lsp/changes"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// changesSession is a folder's session as the changes need it.
func (s *Server) changesSession(folder string) (changes.Session, error) {
	sess, err := s.session(folder)
	if err != nil {
		return nil, err // never a nil *agenthost.Session in the interface
	}
	return sess, nil
}

// changeCommand runs hermes.changes, hermes.keepChange and hermes.revertChange.
func (s *Server) changeCommand(ctx context.Context, name string, p *commandParams) (any, error) {
	invalid := func(err error) error { return errorf(jsonrpc2.InvalidParams, "%v", err) }
	switch name {
	case hermesproto.CmdChanges:
		var a hermesproto.ChangesArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		within := ""
		if a.URI != "" {
			path, err := workspace.PathFromURI(a.URI)
			if err != nil {
				return nil, invalid(err)
			}
			within = path
		}
		return hermesproto.ChangesResult{Changes: s.changes.List(ctx, within)}, nil
	case hermesproto.CmdKeepChange:
		var a hermesproto.KeepChangeArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		folder := ""
		if a.ChangeID == "" {
			f, err := s.resolveFolder(a.URI)
			if err != nil {
				return nil, invalid(err)
			}
			folder = f.Path
		}
		n, err := s.changes.Keep(ctx, a.ChangeID, folder)
		if err != nil {
			return nil, invalid(err)
		}
		return hermesproto.KeepChangeResult{Kept: n}, nil
	case hermesproto.CmdRevertChange:
		var a hermesproto.RevertChangeArgs
		if err := args(p, &a); err != nil {
			return nil, invalid(err)
		}
		res, msg, err := s.changes.Revert(ctx, a)
		if err != nil {
			return nil, invalid(err)
		}
		typ := protocol.MessageTypeInfo
		if len(res.Skipped) > 0 {
			typ = protocol.MessageTypeWarning
		}
		s.editor.ShowMessage(ctx, typ, msg)
		return res, nil
	}
	return nil, errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
}

// hover answers textDocument/hover: the turn asked from the line, then the changes under review on
// it; null when there is neither.
func (s *Server) hover(p *protocol.HoverParams) any {
	uri, line := string(p.TextDocument.URI), p.Position.Line
	turn, asked := s.lines.HoverText(uri, line)
	markdown := asked || !s.editor.Caps().PlainHover
	change, changed := s.changes.Hover(uri, line, markdown)
	kind := protocol.Markdown
	switch {
	case asked && changed:
		return annotate.HoverResult(s.docs, uri, line, kind, turn+"\n---\n\n"+change)
	case asked:
		return annotate.HoverResult(s.docs, uri, line, kind, turn)
	case changed:
		if !markdown {
			kind = protocol.PlainText
		}
		return annotate.HoverResult(s.docs, uri, line, kind, change)
	}
	return nil
}

// inlayHints answers textDocument/inlayHint: the turns' state on the lines they were asked from,
// and the changes under review.
func (s *Server) inlayHints(p *annotate.InlayHintParams) []annotate.InlayHint {
	return append(s.lines.InlayHints(p), s.changes.InlayHints(string(p.TextDocument.URI), p.Range)...)
}
