package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// This file holds the server's calls to the editor. Every request has a timeout: nothing the editor
// does or fails to do blocks a turn forever.

// callClient sends a request to the editor and waits at most the client timeout for its answer.
func (s *Server) callClient(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.ClientTimeout)
	defer cancel()
	if _, err := s.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// notify sends a notification to the editor; failures are logged (the editor may be gone).
func (s *Server) notify(ctx context.Context, method string, params any) {
	notify := s.conn.Notify
	if s.notifier != nil {
		notify = s.notifier.Notify // one encoding pass, not jsonrpc2's two
	}
	if err := notify(context.WithoutCancel(ctx), method, params); err != nil {
		s.log.Debug("notification not sent", "method", method, "err", err)
	}
}

func (s *Server) showMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	s.notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: msg})
}

func (s *Server) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	s.notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: msg})
}

// showDocument asks the editor to open a file; it reports whether the editor did.
func (s *Server) showDocument(ctx context.Context, path string, takeFocus bool) bool {
	s.mu.Lock()
	supported := s.caps.showDocument
	s.mu.Unlock()
	if !supported {
		return false
	}
	params := &showDocumentParams{URI: protocol.URI(workspace.URIFromPath(path)), TakeFocus: takeFocus}
	var res protocol.ShowDocumentResult
	if err := s.callClient(ctx, protocol.MethodShowDocument, params, &res); err != nil {
		s.log.Info("showDocument failed", "path", path, "err", err)
		return false
	}
	return res.Success
}
