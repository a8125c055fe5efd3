package changes

// This file makes changes of a turn's patches and places them on their files' lines: at once on a
// file the editor does not have open (marks that find their line again by its text when it is
// opened), and on an open one once its buffer shows the patch (the editor reloads it, or takes the
// server's edit, a little after the patch). A restarted server places the changes it saved the same
// way, on the files as they are.

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/lsp/textdoc"
	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// Observer is a turn observer (lsp's follow): each patch the turn applies becomes changes.
type Observer struct {
	cs          *Changes
	folder, run string
}

// Follow returns the observer of a turn in folder.
func (cs *Changes) Follow(folder string) *Observer {
	o := &Observer{cs: cs, folder: folder, run: newID()}
	cs.mu.Lock()
	cs.kept[o.run] = map[string]bool{} // what the user keeps while the turn runs
	cs.mu.Unlock()
	return o
}

// Event takes one of the turn's events: a completed patch's files.
func (o *Observer) Event(ctx context.Context, ev *hermesproto.Event) {
	if ev.Kind != hermesproto.EventKindToolCompleted || ev.Tool == nil || ev.Tool.Name != "apply_patch" || ev.Tool.IsError {
		return
	}
	for _, c := range ev.Tool.Changes {
		if c.Before != nil && c.After != nil {
			o.cs.patched(ctx, o.folder, o.run, ev.ThreadID, ev.TurnID, c.Path, string(c.Before), string(c.After))
		}
	}
}

// End forgets what the turn's run kept: its hunks are computed no more.
func (o *Observer) End(context.Context, *hermesproto.Result) {
	o.cs.mu.Lock()
	delete(o.cs.kept, o.run)
	o.cs.mu.Unlock()
}

// keyOf names a hunk within its run and file, so that the same hunk computed again (a later patch
// of the file) keeps its id, or stays kept.
func keyOf(path, oldSum, newSum string) string {
	return path + "\x00" + oldSum + "\x00" + newSum
}

// patched makes the hunks of path, from before (the file before the run's first patch of it) to
// after (as the run's last patch left it), the run's changes of the file, in place of those it had;
// a hunk the user kept while the run went on stays kept. Other runs' changes of the file stay, and
// find their lines again in after when the editor does not have the file open.
func (cs *Changes) patched(ctx context.Context, folder, run, threadID, turnID, path, before, after string) {
	if !cs.cfg.Enabled() {
		return
	}
	if len(before) > MaxFileBytes || len(after) > MaxFileBytes || !reviewable(before) || !reviewable(after) {
		cs.cfg.Log.Info("a patched file is not under review (too large, or lone carriage returns)", "path", path)
		return
	}
	if _, err := workspace.Inside(folder, path); err != nil {
		return // agenthost records only the folder's own files; this is no change to show
	}
	hunks := diffHunks(before, after)
	afterSum := sum(after)
	afterLines := newLines(after)
	docURI := (&Change{Path: path}).uri()

	cs.mu.Lock()
	// The buffer is read under cs.mu: an editor's reload (didChange) that comes after it finds
	// these changes pending in Refresh, which waits for cs.mu.
	text, open := cs.cfg.Docs.Text(docURI)
	shows := open && sum(text) == afterSum // the buffer shows the patch already
	list := cs.byFolder[folder]
	prev := map[string]*Change{}
	var others []*Change // other runs' changes of the file
	onFile := 0
	list = slices.DeleteFunc(list, func(c *Change) bool {
		if c.Path != path {
			return false
		}
		if c.run != run {
			others = append(others, c)
			onFile++
			return false
		}
		c.drop()
		prev[keyOf(c.Path, c.OldSum, c.NewSum)] = c
		return true
	})
	kept := cs.kept[run]
	left := 0
	for _, h := range hunks {
		oldSum, newSum := sum(h.old), sum(h.new)
		key := keyOf(path, oldSum, newSum)
		if kept[key] {
			continue
		}
		if onFile >= MaxPerFile || len(list) >= MaxPerFolder {
			left++
			continue
		}
		c := &Change{
			ID: newID(), Folder: folder, Path: path, ThreadID: threadID, TurnID: turnID,
			Start: h.line, Added: h.added, Removed: h.removed, OldSum: oldSum, NewSum: newSum, Anchor: h.anchor,
			New: cutText(h.new, maxNewBytes), NewCut: len(h.new) > maxNewBytes, First: cutText(lineAt(h.new, 0), maxFirstBytes),
			run: run, afterSum: afterSum,
		}
		if len(h.old) > maxOldBytes {
			c.OldCut = true
		} else {
			c.Old = h.old
		}
		if p, ok := prev[key]; ok {
			c.ID = p.ID // the same hunk as before this patch: the same change
		}
		if !open || shows {
			cs.placeLocked(c, afterLines, true)
		} // else the buffer shows the patch later: Refresh places it then
		list = append(list, c)
		onFile++
	}
	cs.byFolder[folder] = list
	if !open {
		for _, c := range others {
			cs.cfg.Docs.RelocateMarks(after, c.start, c.end) // the file changed while closed
		}
	}
	cs.mu.Unlock()
	if left > 0 {
		cs.cfg.Log.Info("hunks of a patch not under review: too many changes", "path", path, "left", left)
	}
	cs.after(ctx, map[string]bool{path: true}, map[string]bool{folder: true})
}

// cutText is s cut to n bytes (at a character's start), for a hover or a search.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// placeLocked marks c's lines in l, the text of its file as the editor or the disk has it: at its
// Start when its text is there, else where its text is, if it is there once only (a buffer that
// does not show the patch may hold the same lines elsewhere by chance: never guessed). Unless
// exact, a change whose text is nowhere stays unplaced; exact says l is the text the hunk was
// computed on. It reports whether it placed c. Under cs.mu.
func (cs *Changes) placeLocked(c *Change, l lines, exact bool) bool {
	line, ok := c.Start, exact || cs.at(c, l, c.Start)
	if !ok {
		line, ok = cs.findOnce(c, l)
	}
	if !ok {
		return false
	}
	docURI := c.uri()
	c.Start, c.placed = line, true
	c.start = cs.cfg.Docs.Mark(docURI, line, l.line(line))
	if c.Added > 0 {
		last := line + uint32(c.Added) - 1
		c.end = cs.cfg.Docs.Mark(docURI, last, l.line(last))
	}
	return true
}

// at reports whether c's text is at line s of l: its lines, or for a change without lines the line
// after what it deleted.
func (cs *Changes) at(c *Change, l lines, s uint32) bool {
	if c.Added == 0 {
		return int(s) < l.count() && l.line(s) == c.Anchor
	}
	start, end, ok := l.region(s, c.Added)
	return ok && int(s)+c.Added <= l.count() && sum(l.text[start:end]) == c.NewSum
}

// findOnce finds the line where c's text is in l, when it is there once only.
func (cs *Changes) findOnce(c *Change, l lines) (uint32, bool) {
	line, n := cs.find(c, l, 2)
	return line, n == 1
}

// count is how many times c's text is in l.
func (cs *Changes) count(c *Change, l lines) int {
	_, n := cs.find(c, l, l.count())
	return n
}

// find returns the first line where c's text is in l and how many times it is there, counting up
// to most.
func (cs *Changes) find(c *Change, l lines, most int) (first uint32, n int) {
	for s := range l.count() {
		line := l.line(uint32(s))
		if c.Added == 0 && line != c.Anchor || c.Added > 0 && !strings.HasPrefix(line, c.First) {
			continue
		}
		if cs.at(c, l, uint32(s)) {
			if n == 0 {
				first = uint32(s)
			}
			if n++; n >= most {
				break
			}
		}
	}
	return first, n
}

// Refresh publishes the changes of the documents at uris again after the editor's edits (their
// lines moved, or went); all publishes every file's (the edits.review setting changed). A change
// whose buffer did not show its patch yet is placed once it does.
func (cs *Changes) Refresh(ctx context.Context, uris []string, all bool) {
	if all {
		uris = append(slices.Clone(uris), cs.files()...)
	}
	seen := map[string]bool{}
	for _, u := range uris {
		key := textdoc.Key(u)
		if seen[key] || !all && !cs.Has(u) {
			continue
		}
		seen[key] = true
		cs.placePending(ctx, u)
		cs.Publish(ctx, u)
	}
}

// placePending places the changes of the file at docURI that wait for its buffer to show their
// patch: in the buffer when the editor has it open, else in the file on disk (the buffer was closed
// unsaved). One whose text is in neither the buffer nor the file (the user saved their own text
// over the patch) is gone; one whose file is gone or unreadable waits on.
func (cs *Changes) placePending(ctx context.Context, docURI string) {
	key := textdoc.Key(docURI)
	cs.mu.Lock()
	var pending []*Change
	for _, list := range cs.byFolder {
		for _, c := range list {
			if textdoc.Key(c.Path) == key && !c.placed {
				pending = append(pending, c)
			}
		}
	}
	cs.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	text, open := cs.cfg.Docs.Text(docURI)
	disk, err := workspace.ReadFile(ctx, pending[0].Folder, pending[0].Path, MaxFileBytes)
	if !open {
		if err != nil {
			return
		}
		text = string(disk)
	}
	l := newLines(text)
	textSum := sum(text)
	var onDisk *lines // the file, when the buffer does not show a change
	if open && err == nil {
		d := newLines(string(disk))
		onDisk = &d
	}
	folders := map[string]bool{}
	cs.mu.Lock()
	// Each pending change is placed if it can be; one that cannot, and whose text the file lacks
	// too, goes.
	_, _, gone := cs.removeLocked(pending[0].Folder, func(c *Change) bool {
		switch {
		case c.gone || c.placed || !slices.Contains(pending, c):
			return false
		case cs.placeLocked(c, l, textSum == c.afterSum):
			folders[c.Folder] = true
			return false
		}
		return onDisk != nil && !cs.at(c, *onDisk, c.Start) && cs.count(c, *onDisk) == 0
	})
	cs.mu.Unlock()
	maps.Copy(folders, gone)
	for folder := range folders {
		cs.save(folder)
		cs.cfg.RefreshHints()
	}
}

// Load places the changes saved for folder (at start) on their files as they are now, the editor's
// buffer when it has the file open: each where its text is (at its line, else where it is once
// only); one whose text is gone, or whose file now lies outside the folder or is not a regular file,
// is dropped.
func (cs *Changes) Load(ctx context.Context, folder string, data []byte) {
	if len(data) == 0 {
		return
	}
	var saved []*Change
	if err := json.Unmarshal(data, &saved); err != nil {
		cs.cfg.Log.Warn("the saved changes under review are unreadable; dropping them", "folder", folder, "err", err)
		return
	}
	byFile := map[string][]*Change{}
	var paths []string
	for _, c := range saved {
		if c == nil || !cs.admit(folder, c) {
			continue
		}
		if byFile[c.Path] == nil {
			paths = append(paths, c.Path)
		}
		if len(byFile[c.Path]) < MaxPerFile {
			byFile[c.Path] = append(byFile[c.Path], c)
		}
	}
	var list []*Change
	dropped := 0
	for _, path := range paths {
		docURI := byFile[path][0].uri()
		text, open := cs.cfg.Docs.Text(docURI)
		if !open {
			b, err := workspace.ReadFile(ctx, folder, path, MaxFileBytes)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					cs.cfg.Log.Info("the file of saved changes cannot be read", "path", path, "err", err)
				}
				dropped += len(byFile[path])
				continue
			}
			text = string(b)
		}
		l := newLines(text)
		cs.mu.Lock()
		for _, c := range byFile[path] {
			if len(list) < MaxPerFolder && cs.placeLocked(c, l, false) {
				list = append(list, c)
			} else {
				dropped++
			}
		}
		cs.mu.Unlock()
	}
	cs.mu.Lock()
	cs.byFolder[folder] = append(cs.byFolder[folder], list...)
	cs.mu.Unlock()
	if dropped > 0 {
		cs.cfg.Log.Info("saved changes under review dropped: their lines are gone", "folder", folder, "dropped", dropped)
	}
	files, folders := map[string]bool{}, map[string]bool{}
	for _, c := range list {
		files[c.Path] = true
	}
	if dropped > 0 {
		folders[folder] = true
	}
	cs.after(ctx, files, folders)
}

// admit checks a saved change of folder, which the state folder held: a file inside the folder, an
// id, counts and texts within their bounds. The file's text decides the rest.
func (cs *Changes) admit(folder string, c *Change) bool {
	if c.ID == "" || len(c.ID) > 64 || c.Added < 0 || c.Removed < 0 || c.Added > 1<<20 || c.Removed > 1<<20 ||
		len(c.Old) > maxOldBytes || len(c.New) > maxNewBytes || len(c.First) > maxFirstBytes || len(c.Anchor) > MaxFileBytes {
		return false
	}
	if !filepath.IsAbs(c.Path) {
		return false
	}
	if _, err := workspace.Inside(folder, c.Path); err != nil {
		return false
	}
	c.Folder = folder
	if c.Added > 0 && c.NewSum == "" {
		return false
	}
	return true
}

// LoadSaved places the changes saved for each of folders (at start).
func (cs *Changes) LoadSaved(ctx context.Context, folders []workspace.Folder) {
	for _, f := range folders {
		sess, err := cs.cfg.Session(f.Path)
		if err != nil {
			continue
		}
		data, err := sess.LoadChanges()
		if err != nil {
			cs.cfg.Log.Warn("the saved changes under review cannot be read", "folder", f.Path, "err", err)
			continue
		}
		cs.Load(ctx, f.Path, data)
	}
}
