package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/undo"
)

// undoTurn is hermes.undoTurn (lsp/undo).
func (s *Server) undoTurn(ctx context.Context, a hermesproto.UndoTurnArgs) (hermesproto.UndoTurnResult, error) {
	folder, sess, err := s.sessionFor(a.URI)
	if err != nil {
		return hermesproto.UndoTurnResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	res, msg, err := undo.Turn(ctx, s.undoEditor(), folder, sess, a)
	if ue := (*undo.Error)(nil); errors.As(err, &ue) {
		code := jsonrpc2.InternalError
		if ue.Invalid {
			code = jsonrpc2.InvalidParams
		}
		return res, errorf(code, "%v", err)
	}
	s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, msg)
	return res, nil
}

// undoEditor is the editor as lsp/undo needs it.
func (s *Server) undoEditor() undo.Editor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return undo.Editor{
		Docs: s.docs,
		ApplyEdit: func(ctx context.Context, params any) (res protocol.ApplyWorkspaceEditResponse, err error) {
			err = s.editor.Call(ctx, protocol.MethodWorkspaceApplyEdit, params, &res)
			return res, err
		},
		SyncBuffers: s.syncBuffers,
		CanEdit:     s.editor.Caps().ApplyEdit,
		ResourceOps: s.editor.Caps().ResourceOps,
		SavesEdits:  s.editor.Caps().SavesUndoEdits,
	}
}
