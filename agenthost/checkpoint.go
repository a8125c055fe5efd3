package agenthost

// This file records what a turn's patches changed, so that the turn can be undone: each file as it
// was before the turn's first patch touched it and after its last, kept on disk under the state
// dir (the last MaxCheckpoints turns of each folder).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/workspace"
)

// MaxCheckpoints is how many turns of a folder can be undone; older checkpoints are removed.
const MaxCheckpoints = 20

// MaxCheckpointFile is the largest file a checkpoint records; a larger one is not undoable.
const MaxCheckpointFile = 8 << 20

// Bounds on reading the state folder's checkpoint files: a summary is small (paths, sizes, sums);
// the contents file holds at most two images per file.
const (
	maxCheckpointSummary = 1 << 20
	maxCheckpointFiles   = 1000
	maxLegacyCheckpoint  = 64 << 20
)

// FileImage is a file's content at one moment. A checkpoint's summary (see [Session.Checkpoints])
// has its size and sum without the content; [Session.LoadCheckpoint] has the content too.
type FileImage struct {
	// Absent says there was no file; TooLarge that it was over MaxCheckpointFile (or could not be
	// read), so its content is not recorded.
	Absent   bool `json:"absent,omitempty"`
	TooLarge bool `json:"tooLarge,omitempty"`
	// Size is the content's length in bytes and SHA256 its hex digest.
	Size    int64  `json:"size,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	Content []byte `json:"-"`
}

// Equal reports whether two images are the same content (or both absent).
func (f FileImage) Equal(g FileImage) bool {
	if f.Absent || g.Absent {
		return f.Absent == g.Absent
	}
	return !f.TooLarge && !g.TooLarge && f.Size == g.Size && f.SHA256 == g.SHA256
}

// newImage is the image of content.
func newImage(content []byte) FileImage {
	sum := sha256.Sum256(content)
	return FileImage{Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:]), Content: content}
}

// FileCheckpoint is one file a turn's patches changed.
type FileCheckpoint struct {
	Path   string    `json:"path"`
	Before FileImage `json:"before"`
	After  FileImage `json:"after"`
}

// Checkpoint is what one turn's patches changed in a folder.
type Checkpoint struct {
	Folder    string    `json:"folder"`
	ThreadID  string    `json:"threadId"`
	TurnID    string    `json:"turnId"`
	StartedAt time.Time `json:"startedAt"`
	// Title names the turn for people: the first line of the user's words (empty in checkpoints
	// kept before it was recorded).
	Title string           `json:"title,omitempty"`
	Files []FileCheckpoint `json:"files"`
	// Version is 2 for a checkpoint kept as a summary and its contents apart; 0 for the older
	// single file, converted when it is first listed.
	Version int `json:"version,omitempty"`
}

// ReadImage reads the file at path inside folder as a checkpoint records it: through the
// workspace boundary (links resolved and contained, a regular file, bounded); a file that is not
// there is Absent, one that cannot be read that way TooLarge.
func ReadImage(ctx context.Context, folder, path string) FileImage {
	b, err := workspace.ReadFile(ctx, folder, path, MaxCheckpointFile)
	if errors.Is(err, fs.ErrNotExist) {
		return FileImage{Absent: true}
	}
	if err != nil {
		return FileImage{TooLarge: true}
	}
	return newImage(b)
}

// before records paths as they are now in the turn's checkpoint, for those it has not seen yet: the
// first patch of a turn to touch a file sets what undoing the turn restores. On the session's
// goroutine.
func (ts *turnSession) before(images map[string]FileImage) {
	cp := &ts.checkpoint
	for path, img := range images {
		if !slices.ContainsFunc(cp.Files, func(f FileCheckpoint) bool { return f.Path == path }) {
			cp.Files = append(cp.Files, FileCheckpoint{Path: path, Before: img, After: img})
		}
	}
}

// after records paths as a completed patch left them. On the session's goroutine.
func (ts *turnSession) after(images map[string]FileImage) {
	cp := &ts.checkpoint
	for i := range cp.Files {
		if img, ok := images[cp.Files[i].Path]; ok {
			cp.Files[i].After = img
		}
	}
}

// checkpointDir is where a folder's checkpoints are kept: one folder per workspace folder, named by
// a hash of its path.
func (st *store) checkpointDir(folder string) string {
	sum := sha256.Sum256([]byte(folder))
	return filepath.Join(st.dir, "checkpoints", hex.EncodeToString(sum[:8]))
}

// saveCheckpoint writes cp as a summary (NAME.json) and its contents (NAME.images), both 0600 in a
// 0700 folder, and removes the folder's oldest beyond MaxCheckpoints.
func (st *store) saveCheckpoint(cp Checkpoint) error {
	if !isFileID(cp.TurnID) {
		return fmt.Errorf("turn id %q cannot name a checkpoint file", Truncate(cp.TurnID, 80))
	}
	dir := st.checkpointDir(cp.Folder)
	if err := ensurePrivateDir(dir, "folder", st.log); err != nil {
		return err
	}
	name := fmt.Sprintf("%020d-%s", cp.StartedAt.UnixNano(), cp.TurnID)
	if err := st.writeCheckpoint(dir, name, cp); err != nil {
		return fmt.Errorf("save the checkpoint of turn %s: %w", cp.TurnID, err)
	}
	names, err := st.checkpointNames(cp.Folder)
	if err != nil {
		return err
	}
	for len(names) > MaxCheckpoints {
		st.removeCheckpoint(dir, names[0])
		names = names[1:]
	}
	return nil
}

// writeCheckpoint writes cp's contents, then its summary: a summary is only ever listed once its
// contents are on disk. The contents file is each file's before-image then its after-image, one
// after the other, as they are: the summary's sizes cut it apart and its sums check it.
func (st *store) writeCheckpoint(dir, name string, cp Checkpoint) error {
	var contents []byte
	for _, f := range cp.Files {
		contents = append(contents, f.Before.Content...)
		contents = append(contents, f.After.Content...)
	}
	if err := writeFileAtomic(filepath.Join(dir, name+".images"), contents); err != nil {
		return err
	}
	cp.Version = 2
	data, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, name+".json"), data)
}

// removeCheckpoint removes a checkpoint's summary, then its contents.
//
//hermes:ownfile a checkpoint in the state folder
func (st *store) removeCheckpoint(dir, name string) {
	_ = os.Remove(filepath.Join(dir, name+".json"))
	_ = os.Remove(filepath.Join(dir, name+".images"))
}

// checkpointNames lists a folder's checkpoints by name (without ".json"), oldest first.
//
//hermes:ownfile the checkpoints folder of the state folder
func (st *store) checkpointNames(folder string) ([]string, error) {
	entries, err := os.ReadDir(st.checkpointDir(folder))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, strings.TrimSuffix(e.Name(), ".json"))
		}
	}
	slices.Sort(names)
	return names, nil
}

// checkpoints lists a folder's checkpoints, newest first, as summaries (no contents): each is a
// small file read with a bound. An entry that is unreadable, corrupt, empty or not a regular file
// is skipped with a log line; an older single-file checkpoint is converted first.
func (st *store) checkpoints(folder string) ([]Checkpoint, error) {
	names, err := st.checkpointNames(folder)
	if err != nil {
		return nil, err
	}
	dir := st.checkpointDir(folder)
	var out []Checkpoint
	for _, name := range slices.Backward(names) {
		cp, err := st.checkpointSummary(dir, name, folder)
		if err != nil {
			st.log.Warn("skipping a checkpoint", "path", filepath.Join(dir, name+".json"), "err", err)
			continue
		}
		out = append(out, cp)
	}
	return out, nil
}

// checkpointSummary reads the summary NAME.json of a checkpoint of folder.
func (st *store) checkpointSummary(dir, name, folder string) (Checkpoint, error) {
	path := filepath.Join(dir, name+".json")
	data, err := readStateFile(path, maxCheckpointSummary)
	if errors.Is(err, workspace.ErrTooLarge) {
		data, err = st.convertLegacy(dir, name) // a single file of the older form holds the contents
	}
	if err != nil {
		return Checkpoint{}, err
	}
	var cp Checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return Checkpoint{}, fmt.Errorf("corrupt: %w", err)
	}
	if cp.Version == 0 {
		if data, err = st.convertLegacy(dir, name); err != nil {
			return Checkpoint{}, err
		}
		if err := json.Unmarshal(data, &cp); err != nil {
			return Checkpoint{}, fmt.Errorf("corrupt: %w", err)
		}
	}
	switch {
	case cp.Folder != folder:
		return Checkpoint{}, fmt.Errorf("it is of another folder (%s)", Truncate(cp.Folder, 200))
	case cp.TurnID == "" || len(cp.Files) == 0 || len(cp.Files) > maxCheckpointFiles:
		return Checkpoint{}, errors.New("it names no turn, or no files, or too many")
	}
	for _, f := range cp.Files {
		for _, img := range []FileImage{f.Before, f.After} {
			if img.Size < 0 || img.Size > MaxCheckpointFile || (img.Absent || img.TooLarge) && img.Size != 0 {
				return Checkpoint{}, fmt.Errorf("corrupt: %s has an impossible size", Truncate(f.Path, 200))
			}
		}
	}
	return cp, nil
}

// convertLegacy rewrites a checkpoint kept in the older single file (contents inline) as a summary
// and its contents, and returns the new summary.
func (st *store) convertLegacy(dir, name string) ([]byte, error) {
	data, err := readStateFile(filepath.Join(dir, name+".json"), maxLegacyCheckpoint)
	if err != nil {
		return nil, err
	}
	var legacy struct {
		Checkpoint
		Files []struct {
			Path   string      `json:"path"`
			Before legacyImage `json:"before"`
			After  legacyImage `json:"after"`
		} `json:"files"`
	}
	if err := json.Unmarshal(data, &legacy); err != nil {
		return nil, fmt.Errorf("corrupt: %w", err)
	}
	cp := legacy.Checkpoint
	cp.Files = nil
	for _, f := range legacy.Files {
		cp.Files = append(cp.Files, FileCheckpoint{Path: f.Path, Before: f.Before.image(), After: f.After.image()})
	}
	if err := st.writeCheckpoint(dir, name, cp); err != nil {
		return nil, fmt.Errorf("convert it: %w", err)
	}
	st.log.Info("converted a checkpoint to its summary and contents", "path", filepath.Join(dir, name+".json"))
	return readStateFile(filepath.Join(dir, name+".json"), maxCheckpointSummary)
}

// legacyImage is a file image as the older checkpoints kept it, content inline.
type legacyImage struct {
	Absent   bool   `json:"absent,omitempty"`
	TooLarge bool   `json:"tooLarge,omitempty"`
	Content  []byte `json:"content,omitempty"`
}

func (l legacyImage) image() FileImage {
	if l.Absent || l.TooLarge {
		return FileImage{Absent: l.Absent, TooLarge: l.TooLarge}
	}
	return newImage(l.Content)
}

// loadCheckpoint reads the checkpoint of turnID in folder with its contents.
func (st *store) loadCheckpoint(folder, turnID string) (Checkpoint, error) {
	names, err := st.checkpointNames(folder)
	if err != nil {
		return Checkpoint{}, err
	}
	i := slices.IndexFunc(names, func(n string) bool { return strings.HasSuffix(n, "-"+turnID) })
	if i < 0 {
		return Checkpoint{}, fmt.Errorf("no checkpoint of turn %s", Truncate(turnID, 80))
	}
	return st.loadNamed(st.checkpointDir(folder), names[i], folder)
}

// loadNamed reads the checkpoint NAME of folder with its contents, checked against its summary.
func (st *store) loadNamed(dir, name, folder string) (Checkpoint, error) {
	cp, err := st.checkpointSummary(dir, name, folder)
	if err != nil {
		return Checkpoint{}, err
	}
	var total int64
	for _, f := range cp.Files {
		total += f.Before.Size + f.After.Size
	}
	data, err := readStateFile(filepath.Join(dir, name+".images"), total)
	if err != nil && !(total == 0 && errors.Is(err, errEmptyFile)) {
		return Checkpoint{}, fmt.Errorf("read the checkpoint's contents: %w", err)
	}
	if int64(len(data)) != total {
		return Checkpoint{}, errors.New("the checkpoint's contents are cut short")
	}
	take := func(img *FileImage) error {
		img.Content, data = data[:img.Size:img.Size], data[img.Size:]
		if !img.Absent && !img.TooLarge && !newImage(img.Content).Equal(*img) {
			return errors.New("do not match its summary")
		}
		return nil
	}
	for i := range cp.Files {
		f := &cp.Files[i]
		if err := errors.Join(take(&f.Before), take(&f.After)); err != nil {
			return Checkpoint{}, fmt.Errorf("the checkpoint's contents of %s %w", filepath.Base(f.Path), err)
		}
	}
	return cp, nil
}

// changedByHand records that the file at path of folder went from was to now by the user's hand (a
// revert of changes under review): the newest checkpoint that has the file records now as its
// after-image, if it left the file as was; else nothing changes (the file changed since that turn,
// and undoing it needs force anyway). It reports whether a checkpoint changed.
func (st *store) changedByHand(folder, path string, was, now []byte) (bool, error) {
	names, err := st.checkpointNames(folder)
	if err != nil {
		return false, err
	}
	dir := st.checkpointDir(folder)
	for _, name := range slices.Backward(names) {
		cp, err := st.checkpointSummary(dir, name, folder)
		if err != nil {
			continue // listed and skipped elsewhere, with a log line
		}
		i := slices.IndexFunc(cp.Files, func(f FileCheckpoint) bool { return f.Path == path })
		if i < 0 {
			continue
		}
		if !cp.Files[i].After.Equal(newImage(was)) {
			return false, nil
		}
		full, err := st.loadNamed(dir, name, folder)
		if err != nil {
			return false, err
		}
		full.Files[i].After = newImage(now)
		if err := st.writeCheckpoint(dir, name, full); err != nil {
			return false, fmt.Errorf("update the checkpoint of turn %s: %w", cp.TurnID, err)
		}
		return true, nil
	}
	return false, nil
}

// dropCheckpoint removes the checkpoint of turnID in folder.
func (st *store) dropCheckpoint(folder, turnID string) error {
	names, err := st.checkpointNames(folder)
	if err != nil {
		return err
	}
	for _, name := range names {
		if strings.HasSuffix(name, "-"+turnID) {
			st.removeCheckpoint(st.checkpointDir(folder), name)
		}
	}
	return nil
}

// errEmptyFile is an empty file of the state folder.
var errEmptyFile = errors.New("empty")

// readStateFile reads a regular file of the state folder, at most limit bytes: never through a
// link, never blocking on a FIFO.
//
//hermes:ownfile a file of the state folder (checkpoints), not followed through a link
func readStateFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, workspace.ErrNotRegular
	}
	if fi.Size() == 0 {
		return nil, errEmptyFile
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("over %d bytes: %w", limit, workspace.ErrTooLarge)
	}
	// One buffer of the file's size: the contents of a checkpoint are read at once.
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, err
	}
	return b, nil
}
