// Package buffers keeps the editor's open buffers in line with what the agent wrote on disk, and
// says when a patch would conflict with a buffer's unsaved edits.
package buffers

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/approve"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// MaxReloadBytes bounds the files whose new text the server sends to the editor: a larger one the
// editor reloads itself, or the user does.
const MaxReloadBytes = 8 << 20

// Buffers keep the editor's buffers in line with what the agent wrote on disk.
type Buffers struct {
	docs *textdoc.Documents
	ed   *editor.Client
	log  *slog.Logger

	mu   sync.Mutex
	told map[string][sha256.Size]byte // for an editor that reloads by hand: path -> the disk text it was told of
}

// New returns the buffers of docs, open in ed.
func New(docs *textdoc.Documents, ed *editor.Client, log *slog.Logger) *Buffers {
	return &Buffers{docs: docs, ed: ed, log: log, told: map[string][sha256.Size]byte{}}
}

// Follow returns the turn observer of a turn in folder: it keeps the buffers in line with the disk
// as the turn changes files, and marks an approval whose patch conflicts with unsaved edits
// (Approval.Warning, on a copy: the approval is the host's) for the observers after it.
func (s *Buffers) Follow(folder string) Observer { return Observer{s, folder} }

// Observer is a turn observer (see Follow).
type Observer struct {
	s      *Buffers
	folder string
}

// Event takes one of the turn's events.
func (o Observer) Event(ctx context.Context, ev *hermesproto.Event) {
	if warning := o.s.agentEdits(ctx, o.folder, *ev); warning != "" && ev.Approval != nil {
		a := *ev.Approval
		a.Warning = warning
		ev.Approval = &a
	}
}

// End brings the buffers in line with every file the turn changed, by patches or commands.
func (o Observer) End(ctx context.Context, _ *hermesproto.Result) {
	o.s.Sync(ctx, o.folder)
}

// agentEdits follows what a turn event means for the editor's buffers: a patch applied brings them
// in line with the disk; a patch waiting for approval, or auto-approved, that touches a file with
// unsaved edits returns the sentence that says so (for the progress report), and an auto-approved
// one is also a Warning, since nobody is asked.
func (s *Buffers) agentEdits(ctx context.Context, folder string, ev hermesproto.Event) string {
	switch {
	case ev.Kind == hermesproto.EventKindToolCompleted && ev.Tool != nil && ev.Tool.Name == "apply_patch" && !ev.Tool.IsError:
		s.Sync(ctx, folder)
	case ev.Approval != nil && (ev.Kind == hermesproto.EventKindApprovalWaiting || ev.Kind == hermesproto.EventKindApprovalResolved):
		files := approve.Unsaved(s.docs, *ev.Approval)
		if len(files) == 0 {
			return ""
		}
		if ev.Kind == hermesproto.EventKindApprovalResolved && ev.Approval.DecidedBy == "policy" {
			s.ed.ShowMessage(ctx, protocol.MessageTypeWarning, "Hermes auto-approved a patch: "+approve.UnsavedSentence(files)+".")
		}
		return approve.UnsavedSentence(files)
	}
	return ""
}

// Sync brings the open buffers of folder in line with the disk after the agent changed
// files there: a clean buffer whose file changed gets the new text (or the editor reloads it
// itself); a buffer with unsaved edits keeps them, and the user is told. Only buffers whose file
// resolves inside folder (links followed) are read or sent anything: a buffer opened through a
// link that leads outside is not the agent's to change.
func (s *Buffers) Sync(ctx context.Context, folder string) {
	canEdit := s.ed.Caps().ApplyEdit
	reloads := s.ed.Caps().ReloadsBuffers // VS Code, and Neovim with the hermes plugin, reload a clean buffer themselves
	byHand := s.ed.Caps().ReloadByHand    // Helix: an edit would leave the buffer unsaved and unsavable
	var stale []string
	for _, f := range s.docs.OpenFiles(folder) {
		b, err := workspace.ReadFile(ctx, folder, f.Path, MaxReloadBytes)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				s.log.Debug("not reloading a buffer", "path", f.Path, "err", err)
			}
			continue
		}
		disk := string(b)
		if disk == f.Saved {
			continue // not changed on disk since the editor last had it
		}
		rel, _ := workspace.Rel(folder, f.Path)
		switch {
		case f.Text != f.Saved:
			s.docs.Reloaded(f.Path, disk) // the buffer stays as the user left it, now unsaved against the disk
			s.ed.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
				"Hermes changed %s on disk, but it has unsaved changes in your editor: your changes are kept. "+
					"Saving overwrites the agent's change; reload the file to take it instead.", rel))
		case reloads:
			s.docs.Reloaded(f.Path, disk) // the editor reloads it and tells us with didChange
		case byHand:
			// The buffer stays as it was, clean, until the person reloads it (didChange then
			// brings the new text); told once per change.
			if s.tell(f.Path, disk) {
				stale = append(stale, rel)
			}
		case canEdit:
			if s.sendNewText(ctx, f, disk, rel) {
				s.docs.Reloaded(f.Path, disk)
			}
		}
	}
	if len(stale) > 0 {
		s.ed.ShowMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf(
			"Hermes changed %s on disk: :reload-all shows it (saving the old text would overwrite the change)", strings.Join(stale, ", ")))
	}
}

// tell reports whether the person has not yet been told that path now holds disk, and records
// that they are.
func (s *Buffers) tell(path, disk string) bool {
	sum := sha256.Sum256([]byte(disk))
	s.mu.Lock()
	defer s.mu.Unlock()
	if told, ok := s.told[path]; ok && told == sum {
		return false
	}
	s.told[path] = sum
	return true
}

// sendNewText replaces a clean buffer's text with its file's new content (workspace/applyEdit),
// and reports whether the editor applied it. A buffer the editor did not change stays recorded as
// it was (clean, not reloaded): never as unsaved edits the user did not make.
func (s *Buffers) sendNewText(ctx context.Context, f textdoc.OpenFile, disk, rel string) bool {
	docURI := uri.URI(f.URI)
	edit := protocol.ApplyWorkspaceEditParams{
		Label: "Hermes: " + filepath.Base(f.Path) + " as the agent left it",
		Edit: protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{
			docURI: {{Range: protocol.Range{End: textdoc.EndOf(f.Text)}, NewText: disk}},
		}},
	}
	var res protocol.ApplyWorkspaceEditResponse
	if err := s.ed.Call(ctx, protocol.MethodWorkspaceApplyEdit, &edit, &res); err != nil || !res.Applied {
		s.log.Info("the editor did not take the agent's change of a buffer", "path", rel, "err", err, "reason", res.FailureReason)
		return false
	}
	return true
}
