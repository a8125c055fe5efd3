package agenthost

// This file records what a turn's patches changed, so that the turn can be undone: each file as it
// was before the turn's first patch touched it and after its last, kept on disk under the state
// dir (the last MaxCheckpoints turns of each folder).

import (
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
)

// MaxCheckpoints is how many turns of a folder can be undone; older checkpoints are removed.
const MaxCheckpoints = 20

// MaxCheckpointFile is the largest file a checkpoint records; a larger one is not undoable.
const MaxCheckpointFile = 8 << 20

// FileImage is a file's content at one moment.
type FileImage struct {
	// Absent says there was no file; TooLarge that it was over MaxCheckpointFile (or could not be
	// read), so its content is not recorded.
	Absent   bool   `json:"absent,omitempty"`
	TooLarge bool   `json:"tooLarge,omitempty"`
	Content  []byte `json:"content,omitempty"`
}

// Equal reports whether two images are the same content (or both absent).
func (f FileImage) Equal(g FileImage) bool {
	return f.Absent == g.Absent && !f.TooLarge && !g.TooLarge && string(f.Content) == string(g.Content)
}

// FileCheckpoint is one file a turn's patches changed.
type FileCheckpoint struct {
	Path   string    `json:"path"`
	Before FileImage `json:"before"`
	After  FileImage `json:"after"`
}

// Checkpoint is what one turn's patches changed in a folder.
type Checkpoint struct {
	Folder    string           `json:"folder"`
	ThreadID  string           `json:"threadId"`
	TurnID    string           `json:"turnId"`
	StartedAt time.Time        `json:"startedAt"`
	Files     []FileCheckpoint `json:"files"`
}

// ReadImage reads path as a checkpoint records it.
func ReadImage(path string) FileImage {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return FileImage{Absent: true}
	}
	if err != nil {
		return FileImage{TooLarge: true}
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return FileImage{TooLarge: true}
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxCheckpointFile+1))
	if err != nil || len(b) > MaxCheckpointFile {
		return FileImage{TooLarge: true}
	}
	return FileImage{Content: b}
}

// before records paths as they are now in the turn's checkpoint, for those it has not seen yet: the
// first patch of a turn to touch a file sets what undoing the turn restores. Loop only.
func (ts *turnState) before(images map[string]FileImage) {
	cp := &ts.shared.checkpoint
	for path, img := range images {
		if !slices.ContainsFunc(cp.Files, func(f FileCheckpoint) bool { return f.Path == path }) {
			cp.Files = append(cp.Files, FileCheckpoint{Path: path, Before: img, After: img})
		}
	}
}

// after records paths as a completed patch left them. Loop only.
func (ts *turnState) after(images map[string]FileImage) {
	cp := &ts.shared.checkpoint
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

// saveCheckpoint writes cp (0600 in a 0700 folder) and removes the folder's oldest beyond
// MaxCheckpoints.
func (st *store) saveCheckpoint(cp Checkpoint) error {
	if !isFileID(cp.TurnID) {
		return fmt.Errorf("turn id %q cannot name a checkpoint file", Truncate(cp.TurnID, 80))
	}
	dir := st.checkpointDir(cp.Folder)
	if err := ensurePrivateDir(dir, "folder", st.log); err != nil {
		return err
	}
	data, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%020d-%s.json", cp.StartedAt.UnixNano(), cp.TurnID)
	if err := writeFileAtomic(filepath.Join(dir, name), data); err != nil {
		return fmt.Errorf("save the checkpoint of turn %s: %w", cp.TurnID, err)
	}
	names, err := st.checkpointNames(cp.Folder)
	if err != nil {
		return err
	}
	for len(names) > MaxCheckpoints {
		_ = os.Remove(filepath.Join(dir, names[0]))
		names = names[1:]
	}
	return nil
}

// checkpointNames lists a folder's checkpoint files, oldest first.
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
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// checkpoints loads a folder's checkpoints, newest first.
func (st *store) checkpoints(folder string) ([]Checkpoint, error) {
	names, err := st.checkpointNames(folder)
	if err != nil {
		return nil, err
	}
	var out []Checkpoint
	for _, name := range slices.Backward(names) {
		f, err := os.OpenFile(filepath.Join(st.checkpointDir(folder), name), os.O_RDONLY|openNoFollow, 0)
		if err != nil {
			continue
		}
		var cp Checkpoint
		err = json.NewDecoder(io.LimitReader(f, 4*MaxCheckpointFile*MaxCheckpoints)).Decode(&cp)
		f.Close()
		if err == nil && cp.Folder == folder {
			out = append(out, cp)
		}
	}
	return out, nil
}

// dropCheckpoint removes the checkpoint of turnID in folder.
func (st *store) dropCheckpoint(folder, turnID string) error {
	names, err := st.checkpointNames(folder)
	if err != nil {
		return err
	}
	for _, name := range names {
		if strings.HasSuffix(name, "-"+turnID+".json") {
			return os.Remove(filepath.Join(st.checkpointDir(folder), name))
		}
	}
	return nil
}
