package lsp

import (
	"context"
	"errors"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/buffers"
	"github.com/hermes-lsp/hermes-lsp/lsp/undo"
)

// undoTurn is hermes.undoTurn (lsp/undo).
func (s *Server) undoTurn(ctx context.Context, a hermesproto.UndoTurnArgs) (hermesproto.UndoTurnResult, error) {
	folder, sess, err := s.sessionFor(ctx, a.URI)
	if err != nil {
		return hermesproto.UndoTurnResult{}, errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	caps := s.editor.Caps()
	res, msg, err := undo.Turn(ctx, undo.Editor{
		Docs: s.docs, ApplyEdit: s.editor.ApplyEdit, SyncBuffers: buffers.New(s.docs, s.editor, s.log).Sync,
		CanEdit: caps.ApplyEdit, ResourceOps: caps.ResourceOps, Metadata: caps.EditMetadata, SavesEdits: caps.SavesUndoEdits,
	}, folder, sess, a)
	if ue := (*undo.Error)(nil); errors.As(err, &ue) {
		code := jsonrpc2.InternalError
		if ue.Invalid {
			code = jsonrpc2.InvalidParams
		}
		return res, errorf(code, "%v", err)
	}
	restored := make([]string, 0, len(res.Restored))
	for _, rel := range res.Restored {
		restored = append(restored, filepath.Join(folder.Path, rel))
	}
	s.changes.Undone(ctx, folder.Path, res.TurnID, restored) // the turn's changes went with it
	s.editor.ShowMessage(ctx, protocol.MessageTypeInfo, msg)
	return res, nil
}
