package agenthost

// This file keeps what the editor face saves of a folder for the next start, in the state folder
// beside the folder's checkpoints: the review findings (lsp/review) and the changes under review
// (lsp/changes). Each is JSON the editor face defines, bounded, 0600 in a 0700 folder, written
// atomically.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The bounds of what the editor face saves of a folder.
const (
	maxReviewState  = 4 << 20
	maxChangesState = 16 << 20
)

// editorStatePath is where a folder's saved state of kind ("reviews", "changes") is kept.
func (st *store) editorStatePath(kind, folder string) string {
	sum := sha256.Sum256([]byte(folder))
	return filepath.Join(st.dir, kind, hex.EncodeToString(sum[:8])+".json")
}

// SaveReview keeps the folder's review findings, replacing the ones saved before; nil forgets them.
func (s *Session) SaveReview(data []byte) error {
	return s.saveEditorState("reviews", data, maxReviewState)
}

// LoadReview returns the folder's saved review findings, or nil when there are none.
func (s *Session) LoadReview() ([]byte, error) {
	return s.loadEditorState("reviews", maxReviewState)
}

// SaveChanges keeps the folder's changes under review, replacing the ones saved before; nil
// forgets them.
func (s *Session) SaveChanges(data []byte) error {
	return s.saveEditorState("changes", data, maxChangesState)
}

// LoadChanges returns the folder's saved changes under review, or nil when there are none.
func (s *Session) LoadChanges() ([]byte, error) {
	return s.loadEditorState("changes", maxChangesState)
}

// saveEditorState keeps data as the folder's state of kind (nil removes it), at most limit bytes.
//
//hermes:ownfile the folder's saved editor state, in the state folder
func (s *Session) saveEditorState(kind string, data []byte, limit int) error {
	path := s.h.store.editorStatePath(kind, s.folder)
	if data == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if len(data) > limit {
		return fmt.Errorf("%s state of %d bytes: more than %d", kind, len(data), limit)
	}
	if err := ensurePrivateDir(filepath.Dir(path), "folder", s.h.log); err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

// loadEditorState returns the folder's state of kind, or nil when there is none.
//
//hermes:ownfile the folder's saved editor state, in the state folder
func (s *Session) loadEditorState(kind string, limit int64) ([]byte, error) {
	f, err := os.Open(s.h.store.editorStatePath(kind, s.folder))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}
