// Package changes keeps the agent's edits as changes under review: each hunk of a patch the agent
// applied is a change on its file's lines (document marks, so it follows the user's edits), shown
// where it is (a Hint diagnostic, an inlay hint, a hover with the hunk as a diff), kept or reverted
// one by one (code actions, hermes.keepChange and hermes.revertChange), and saved in the folder's
// state so that a restart shows it again. A revert puts back the text the hunk replaced, through the
// editor when the file is open there, else on disk; the model is told of it before its next request
// (agenthost's revert notes), and the checkpoint of the last turn that changed the file records it.
package changes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/lsp/editor"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
)

// Feature names the changes' set among the server's diagnostics.
const Feature = "changes"

// Bounds of the changes under review.
const (
	// MaxPerFile bounds the changes on one file, MaxPerFolder those of a folder: hunks past them
	// are not under review (the turn can still be undone whole).
	MaxPerFile   = 50
	MaxPerFolder = 500
	// MaxFileBytes bounds the files whose patches are diffed into changes.
	MaxFileBytes = 4 << 20
	// maxOldBytes bounds the text a change keeps of what it replaced: a larger one is listed, and
	// reverted only with its whole turn (hermes.undoTurn).
	maxOldBytes = 32 << 10
	// maxNewBytes bounds the text a change keeps of what the patch wrote, for its hover.
	maxNewBytes = 4 << 10
	// maxFirstBytes bounds the text of a change's first line kept to find it again.
	maxFirstBytes = 1 << 10
)

// Change is one hunk of an agent's patch on a file, under review.
type Change struct {
	ID       string `json:"changeId"`
	Folder   string `json:"folder"`
	Path     string `json:"path"`
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	// Start is the change's first line (0-based) as last seen, and Added how many lines it has: the
	// lines the patch wrote. A change that only deleted lines has none, and Start is the line after
	// them. Removed counts the lines it replaced.
	Start   uint32 `json:"start"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	// Old is the text the change replaced, whole lines with their line breaks; OldCut says it was
	// over maxOldBytes and is not kept. OldSum is the SHA-256 of all of it.
	Old    string `json:"old"`
	OldCut bool   `json:"oldCut,omitempty"`
	OldSum string `json:"oldSum"`
	// New is the text the patch wrote, cut to maxNewBytes (for hover; NewCut says it was); NewSum is
	// the SHA-256 of all of it, which tells whether the user edited it since; First is its first
	// line (without its line break, cut), to find it again.
	New    string `json:"new"`
	NewCut bool   `json:"newCut,omitempty"`
	NewSum string `json:"newSum"`
	First  string `json:"first"`
	// Anchor is, for a change that only deleted lines, the text of the line after them.
	Anchor string `json:"anchor,omitempty"`

	run      string // the turn's run in this server (its observer's): a later patch of it recomputes it
	afterSum string // the file's SHA-256 as the patch left it: a buffer that holds it shows the change
	placed   bool   // its lines are marked (else the buffer does not show the patch yet)
	start    *textdoc.Mark
	end      *textdoc.Mark // nil for a change without lines
	busy     bool          // a revert of it is under way
	gone     bool          // kept, reverted, undone or dead: no longer in the list
}

// Session is a folder's agent session as the changes need it; *agenthost.Session is one.
type Session interface {
	SaveChanges(data []byte) error
	LoadChanges() ([]byte, error)
	NoteRevert(n agenthost.RevertNote) error
	ChangedByHand(path string, was, now []byte) (bool, error)
}

// Config is what Changes needs of the server.
type Config struct {
	// Docs are the documents open in the editor: a change's lines are marks in them.
	Docs *textdoc.Documents
	// Editor is the editor: workspace/applyEdit for a revert, and what it can take.
	Editor *editor.Client
	// Publish publishes the changes' diagnostics of the file at uri (replacing the last ones).
	Publish func(ctx context.Context, uri string, diags []protocol.Diagnostic)
	// RefreshHints asks the editor to ask for inlay hints again.
	RefreshHints func()
	// SyncBuffers brings a folder's clean buffers in line with the disk (after a revert on disk).
	SyncBuffers func(ctx context.Context, folder string)
	// Session is a folder's session: its saved state, revert notes and checkpoints.
	Session func(folder string) (Session, error)
	// Busy reports whether a turn runs in folder: nothing is reverted meanwhile.
	Busy func(folder string) bool
	// Enabled says whether changes are recorded and shown (the edits.review setting).
	Enabled func() bool
	// Source is the diagnostics' source.
	Source string
	Log    *slog.Logger
}

// Changes holds the changes under review of every folder. Its mutex guards the map, the changes and
// the kept hunks of running turns; it is taken before the documents' own (marks), never after.
type Changes struct {
	cfg      Config
	mu       sync.Mutex
	byFolder map[string][]*Change
	kept     map[string]map[string]bool // by run: the hunks kept while the turn runs (keyOf)
}

// New returns an empty set of changes.
func New(cfg Config) *Changes {
	return &Changes{cfg: cfg, byFolder: make(map[string][]*Change), kept: make(map[string]map[string]bool)}
}

// Enabled reports the edits.review setting.
func (cs *Changes) Enabled() bool { return cs.cfg.Enabled() }

// newID is a change's id: random, so that no two changes of any folder share one.
func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "c" + hex.EncodeToString(b)
}

// uri is the URI of a change's file.
func (c *Change) uri() string { return string(uri.File(c.Path)) }

// linesNow returns the change's lines now, from its marks: its first and last (equal for a change
// without lines), with false once both marks died or it is not placed.
func (c *Change) linesNow() (start, end uint32, ok bool) {
	if !c.placed {
		return 0, 0, false
	}
	s, sok := c.start.Line()
	if c.end == nil {
		return s, s, sok
	}
	e, eok := c.end.Line()
	switch {
	case sok && eok:
		return s, max(s, e), true
	case sok:
		return s, s, true
	case eok:
		return e, e, true
	}
	return 0, 0, false
}

// span returns the change's lines now, for a revert: its first line and how many lines it has (its
// marks' lines; when one of them died, as many lines as the patch wrote from the one alive), with
// false once both died or it is not placed.
func (c *Change) span() (start uint32, n int, ok bool) {
	if !c.placed {
		return 0, 0, false
	}
	s, sok := c.start.Line()
	if c.end == nil {
		return s, 0, sok
	}
	e, eok := c.end.Line()
	switch {
	case sok && eok:
		return s, int(max(s, e)-s) + 1, true
	case sok:
		return s, c.Added, true
	case eok:
		s = e + 1 - min(e+1, uint32(c.Added))
		return s, int(e + 1 - s), true
	}
	return 0, 0, false
}

// drop kills the change's marks and takes it out of the list's reach. Under cs.mu.
func (c *Change) drop() {
	if c.start != nil {
		c.start.Drop()
	}
	if c.end != nil {
		c.end.Drop()
	}
	c.gone = true
}

// removeLocked takes the changes gone says of folder out ("" every folder), and returns them with the
// files and folders they were on. Under cs.mu.
func (cs *Changes) removeLocked(folder string, gone func(*Change) bool) (removed []*Change, files, folders map[string]bool) {
	files, folders = map[string]bool{}, map[string]bool{}
	for fo, list := range cs.byFolder {
		if folder != "" && fo != folder {
			continue
		}
		cs.byFolder[fo] = slices.DeleteFunc(list, func(c *Change) bool {
			if !gone(c) {
				return false
			}
			c.drop()
			removed = append(removed, c)
			files[c.Path], folders[fo] = true, true
			return true
		})
	}
	return removed, files, folders
}

// after republishes files and saves folders once changes moved or went, and has the inlay hints
// asked for again.
func (cs *Changes) after(ctx context.Context, files, folders map[string]bool) {
	for path := range files {
		cs.Publish(ctx, string(uri.File(path)))
	}
	for folder := range folders {
		cs.save(folder)
	}
	if len(files) > 0 {
		cs.cfg.RefreshHints()
	}
}

// save writes a folder's changes into its state; failing is logged.
func (cs *Changes) save(folder string) {
	cs.mu.Lock()
	list := cs.byFolder[folder]
	var data []byte
	var err error
	if len(list) > 0 {
		data, err = json.Marshal(list)
	}
	cs.mu.Unlock()
	if err == nil {
		var sess Session
		if sess, err = cs.cfg.Session(folder); err == nil {
			err = sess.SaveChanges(data)
		}
	}
	if err != nil {
		cs.cfg.Log.Warn("could not save the changes under review", "folder", folder, "err", err)
	}
}

// Has reports whether the file at docURI has changes (for the edit loop).
func (cs *Changes) Has(docURI string) bool {
	key := textdoc.Key(docURI)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, list := range cs.byFolder {
		for _, c := range list {
			if textdoc.Key(c.Path) == key {
				return true
			}
		}
	}
	return false
}

// files returns the URIs of the files with changes.
func (cs *Changes) files() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, list := range cs.byFolder {
		for _, c := range list {
			if !seen[c.Path] {
				seen[c.Path] = true
				out = append(out, c.uri())
			}
		}
	}
	return out
}
