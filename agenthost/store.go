package agenthost

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// The state dir holds:
//
//	state.json                       per folder: the last thread id and the usage totals
//	state.json.lock                  taken while state.json is read, merged and rewritten
//	transcripts/<thread>.jsonl       every turn's projected rows, approvals and result, appended
//	transcripts/<thread>.md          the same, readable
//	transcripts.lock                 taken while a turn's records are appended
//
// state.json is written atomically (a temporary file renamed over it), so a crash never leaves it
// half written, and a restart resumes each folder's thread. Several servers (editor windows) may
// share the state dir: each writes only the folders it changed, merged into the file as it is on
// disk under the lock, so no server's save drops another's folders.

// folderState is what survives a restart for one folder.
type folderState struct {
	ThreadID string `json:"threadId"`
	// ThreadTotal is codex's running token total of the thread as last seen: the baseline the next
	// turn's total is counted from.
	ThreadTotal *codex.TokenUsage `json:"threadTotal,omitempty"`
	Usage       hermesproto.Usage `json:"usage"`
	Turns       int               `json:"turns"`
	Compactions int               `json:"compactions"`
	// IneffectiveCompactions and CompactionUnjudged are the compaction verdicts so far
	// (compaction.go): the ineffective ones in a row, and whether the last awaits its verdict.
	IneffectiveCompactions int  `json:"ineffectiveCompactions,omitempty"`
	CompactionUnjudged     bool `json:"compactionUnjudged,omitempty"`
	// Model and Effort are the folder's choice for its turns (hermes.setModel); empty: defaults.
	Model  string `json:"model,omitempty"`
	Effort string `json:"effort,omitempty"`
	// RevertNotes are the user's reverts of the agent's changes not yet told to the model.
	RevertNotes []RevertNote `json:"revertNotes,omitempty"`
	Updated     time.Time    `json:"updated"`
}

type stateFile struct {
	Version int                    `json:"version"`
	Folders map[string]folderState `json:"folders"`
}

// store persists state and transcripts under one directory. A failure to write is logged, never
// fatal: a turn's answer matters more than its record.
type store struct {
	dir string
	log *slog.Logger

	// saving is held through a save, so that one store's saves go in order; mu only while the
	// maps are read or changed, so that staging a change never waits for the disk.
	saving   sync.Mutex
	mu       sync.Mutex
	known    map[string]folderState // state.json as last read or written
	dirty    map[string]folderState // the folders this store changed and has not saved yet
	dirtySeq map[string]uint64      // when each dirty folder was staged (seq), so a save keeps later changes
	seq      uint64
	kick     chan struct{} // saveSoon's signal to saveLoop

	// appendMu keeps this store's appends whole even where the lock file cannot be taken; it
	// guards transcriptLock.
	appendMu       sync.Mutex
	transcriptLock keptLock // transcripts.lock, held while a thread's transcripts are appended to
}

func openStore(dir string, log *slog.Logger) (*store, error) {
	if err := ensureStateDir(dir, log); err != nil {
		return nil, err
	}
	st := &store{dir: dir, log: log, dirty: map[string]folderState{}, dirtySeq: map[string]uint64{}, kick: make(chan struct{}, 1)}
	st.transcriptLock = keptLock{path: filepath.Join(dir, "transcripts.lock"), log: log}
	err := withFileLock(st.lockPath(), log, func() error {
		folders, err := st.load()
		st.known = folders
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read state: %w (check the permissions of %s)", err, st.statePath())
	}
	return st, nil
}

func (st *store) statePath() string { return filepath.Join(st.dir, "state.json") }

func (st *store) lockPath() string { return st.statePath() + ".lock" }

// load reads state.json: missing, it is an empty state; broken, it is moved aside and is an empty
// state too (it costs the threads' continuity, not the server). Call it holding the state lock, so
// that the file moved aside is never one another server has just renamed into place.
//
//hermes:ownfile the state folder's state.json
func (st *store) load() (map[string]folderState, error) {
	data, err := os.ReadFile(st.statePath())
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]folderState{}, nil
	}
	if err != nil {
		return nil, err
	}
	folders, err := parseState(data)
	if err != nil {
		aside := st.statePath() + ".broken"
		if rerr := os.Rename(st.statePath(), aside); rerr != nil {
			return nil, fmt.Errorf("state file unreadable (%v) and not moved aside: %w", err, rerr)
		}
		st.log.Warn("state file unreadable; moved aside", "path", aside, "err", err)
		return map[string]folderState{}, nil
	}
	return folders, nil
}

func parseState(data []byte) (map[string]folderState, error) {
	var f stateFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if f.Folders == nil {
		f.Folders = map[string]folderState{}
	}
	return f.Folders, nil
}

// folder returns what is recorded for folder: this store's unsaved change if it has one, else what
// state.json says now, since another server may have saved the folder since this one read it.
//
//hermes:ownfile the state folder's state.json
func (st *store) folder(folder string) folderState {
	st.mu.Lock()
	defer st.mu.Unlock()
	if changed, ok := st.dirty[folder]; ok {
		return changed
	}
	// No lock is needed to read: state.json is only ever replaced whole, by a rename. A file that
	// cannot be read now leaves the last one read in force; the next save deals with it.
	data, err := os.ReadFile(st.statePath())
	switch {
	case err == nil:
		if folders, perr := parseState(data); perr == nil {
			st.known = folders
		}
	case errors.Is(err, fs.ErrNotExist):
		st.known = map[string]folderState{}
	}
	return st.known[folder]
}

// stage records a folder's state in memory, to be written by the next flush. It does no I/O, so a
// session's goroutine can stage its changes in the order they happen.
func (st *store) stage(folder string, saved folderState) {
	st.mu.Lock()
	st.seq++
	st.dirty[folder], st.dirtySeq[folder] = saved, st.seq
	st.mu.Unlock()
}

// setFolder stages a folder's state and writes it.
func (st *store) setFolder(folder string, saved folderState) {
	st.stage(folder, saved)
	st.flushLogged()
}

// saveSoon has saveLoop flush within saveDelay: a turn's end is reported without waiting for the
// disk, and the turns that end within saveDelay share one write (and one fsync, which also holds a
// CPU of the server while it waits). A crash in between loses at most those turns' totals and
// thread ids; the file itself is replaced whole.
func (st *store) saveSoon() {
	select {
	case st.kick <- struct{}{}:
	default: // a save is due already
	}
}

// saveDelay is how long saveLoop gathers changes before it writes them.
const saveDelay = 50 * time.Millisecond

// saveLoop runs the saves saveSoon asks for until closing is closed (the owner then flushes what is
// left). It runs on a goroutine of the store's owner.
func (st *store) saveLoop(closing <-chan struct{}) {
	timer := time.NewTimer(saveDelay)
	timer.Stop()
	for {
		select {
		case <-st.kick:
			timer.Reset(saveDelay)
			select {
			case <-timer.C:
				st.flushLogged()
			case <-closing:
				timer.Stop()
				return
			}
		case <-closing:
			return
		}
	}
}

// flushLogged flushes, logging a failure: the folders stay dirty for the next flush.
func (st *store) flushLogged() {
	if err := st.flush(); err != nil {
		st.log.Warn("could not save state", "err", err)
	}
}

// flush saves the folders this store changed: holding the state lock, it reads state.json as it is
// now, sets those folders in it and writes it back, leaving every other folder as another server may
// have just saved it. Unsaved folders stay dirty, to be saved with the next change or at Close.
func (st *store) flush() error {
	st.saving.Lock()
	defer st.saving.Unlock()
	st.mu.Lock()
	if len(st.dirty) == 0 {
		st.mu.Unlock()
		return nil
	}
	changed, seqs := maps.Clone(st.dirty), maps.Clone(st.dirtySeq)
	st.mu.Unlock()
	err := withFileLock(st.lockPath(), st.log, func() error {
		folders, err := st.load()
		if err != nil {
			// Writing without what is on disk would drop the other servers' folders.
			return fmt.Errorf("read state: %w", err)
		}
		for folder, c := range changed {
			// Another server on the folder may have saved it since this one staged its change:
			// the newer entry wins, whichever server writes last.
			if disk, ok := folders[folder]; ok && disk.Updated.After(c.Updated) {
				continue
			}
			folders[folder] = c
		}
		data, err := json.MarshalIndent(stateFile{Version: 1, Folders: folders}, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFileAtomic(st.statePath(), data); err != nil {
			return err
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		st.known = folders
		for folder, seq := range seqs {
			if st.dirtySeq[folder] == seq { // not staged again while it was written
				delete(st.dirty, folder)
				delete(st.dirtySeq, folder)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save state to %s: %w", st.statePath(), err)
	}
	return nil
}

// writeFileAtomic writes data to a temporary file beside path (mode 0600), syncs it, renames it over
// path and syncs the folder, so that after a crash path holds either the old data or the new.
//
//hermes:ownfile files of the state folder (state.json, checkpoints, reviews)
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The rename itself is only durable once the folder that holds the name is synced.
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Dir(path), err)
	}
	return nil
}
