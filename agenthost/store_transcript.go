package agenthost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	// segmentio's encoder writes the transcript's rows. Its make bench row: the flood's "Host CPU
	// time for the turn (codex excluded), per codex event" is 3.0 µs with it, 3.3 µs with
	// encoding/json (docs/benchmarks.md, 2026-12-04).
	fastjson "github.com/segmentio/encoding/json"
	"go.uber.org/multierr"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// transcriptEntry is one line of a thread's JSONL transcript.
type transcriptEntry struct {
	Time     time.Time             `json:"time"`
	Kind     string                `json:"kind"` // message, approval, result
	Folder   string                `json:"folder"`
	ThreadID string                `json:"threadId"`
	TurnID   string                `json:"turnId"`
	Message  *hermesproto.Message  `json:"message,omitempty"`
	Approval *hermesproto.Approval `json:"approval,omitempty"`
	Result   *hermesproto.Result   `json:"result,omitempty"`
	// Review marks the result of a code review's turn: its thread is a review's, not a conversation.
	Review bool `json:"review,omitempty"`
}

// TranscriptPaths returns the JSONL and markdown transcript files of a thread in stateDir. A thread
// id names a file only when it is 1 to 128 letters, digits, '-' or '_' (codex's ids are UUIDs): any
// other id could name a file outside the transcripts folder ("..", a path), and is an error.
func TranscriptPaths(stateDir, threadID string) (jsonl, markdown string, err error) {
	if !isFileID(threadID) {
		return "", "", fmt.Errorf("thread id %q cannot name a transcript file: it must be 1 to 128 letters, digits, '-' or '_'", Truncate(threadID, 80))
	}
	base := filepath.Join(stateDir, "transcripts", threadID)
	return base + ".jsonl", base + ".md", nil
}

// isFileID reports whether an id may name a file: 1 to 128 letters, digits, '-' or '_'.
func isFileID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := range len(id) {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

// appendTurn records a finished turn in its thread's JSONL transcript (its rows not written yet,
// its approvals and its result, marked when the turn was a review) and appends mdTail (its last rows) to the markdown one, whose
// earlier rows the live transcript wrote through tf, the turn's open files (used when they are that
// thread's); it returns the markdown path, or "" when the thread id cannot name a file.
func (st *store) appendTurn(tf *transcriptFiles, folder string, res *hermesproto.Result, review bool, msgs []hermesproto.Message, approvals []hermesproto.Approval, mdTail string) string {
	jsonlPath, mdPath, err := TranscriptPaths(st.dir, res.ThreadID)
	if err != nil {
		st.log.Warn("no transcript written for this turn", "folder", folder, "turn", res.TurnID, "err", err)
		return ""
	}
	if tf == nil || tf.jsonlPath != jsonlPath || tf.mdPath != mdPath {
		// Another thread than the one the turn's rows went to so far: files of its own.
		tf = &transcriptFiles{jsonlPath: jsonlPath, mdPath: mdPath}
		defer tf.close()
	}
	now := time.Now()
	lines := encodeMessages(nil, folder, res.ThreadID, res.TurnID, now, msgs)
	add := func(e transcriptEntry) {
		e.Time, e.Folder, e.ThreadID, e.TurnID = now, folder, res.ThreadID, res.TurnID
		if b, err := fastjson.Marshal(e); err == nil {
			lines = append(append(lines, b...), '\n')
		}
	}
	for i := range approvals {
		add(transcriptEntry{Kind: "approval", Approval: &approvals[i]})
	}
	summary := *res
	summary.Messages = nil
	add(transcriptEntry{Kind: "result", Result: &summary, Review: review})
	if err := st.appendRows(tf, lines, []byte(mdTail)); err != nil {
		st.log.Warn("could not write the transcript", "path", mdPath, "err", err)
	}
	return mdPath
}

// encodeMessages appends the JSONL rows of a turn's projected messages to buf.
func encodeMessages(buf []byte, folder, threadID, turnID string, now time.Time, msgs []hermesproto.Message) []byte {
	for i := range msgs {
		e := transcriptEntry{Time: now, Kind: "message", Folder: folder, ThreadID: threadID, TurnID: turnID, Message: &msgs[i]}
		// Appended in place (a long turn writes thousands of rows), as json.Marshal would write it.
		if b, err := fastjson.Append(buf, e, fastjson.EscapeHTML|fastjson.SortMapKeys); err == nil {
			buf = append(b, '\n')
		}
	}
	return buf
}

// transcriptFiles are a thread's two transcripts as a turn appends to them: opened at its first
// append and kept open until its end (close), so that a turn's appends (its start, bursts of items,
// its end) open each file once. Only the turn's runner uses them; the store's appendMu guards the
// writes.
type transcriptFiles struct {
	jsonlPath, mdPath string
	jsonl, md         *os.File
	jsonlInfo, mdInfo os.FileInfo // what the open files were when opened
	stale             bool        // kept open since an earlier turn: check before the next append
}

// check closes an open file that is no longer the one at its path (removed, or replaced): the next
// append opens the file now there. For files kept open from one turn to the next.
//
//hermes:ownfile the state folder's transcripts
func (tf *transcriptFiles) check() {
	tf.stale = false
	for _, k := range []struct {
		f    **os.File
		info os.FileInfo
		path string
	}{{&tf.jsonl, tf.jsonlInfo, tf.jsonlPath}, {&tf.md, tf.mdInfo, tf.mdPath}} {
		if *k.f == nil {
			continue
		}
		if now, err := os.Lstat(k.path); err != nil || !os.SameFile(now, k.info) {
			_ = (*k.f).Close() // written and left: nothing to lose
			*k.f = nil
		}
	}
}

// close closes the files opened so far; the next append opens them again.
func (tf *transcriptFiles) close() error {
	var errs error
	for _, f := range []**os.File{&tf.jsonl, &tf.md} {
		if *f != nil {
			errs = multierr.Append(errs, (*f).Close())
			*f = nil
		}
	}
	return errs
}

// appendRows appends rows to a thread's JSONL and markdown transcripts (either may be empty), each
// whole, under the transcripts' lock: another server on the same folder may append to the same
// thread, and the lock keeps each append whole and the two files in the same order.
func (st *store) appendRows(tf *transcriptFiles, jsonl, md []byte) error {
	st.appendMu.Lock()
	defer st.appendMu.Unlock()
	if tf.stale {
		tf.check()
	}
	var errs error
	_ = st.transcriptLock.with(func() error {
		if len(jsonl) > 0 {
			errs = multierr.Append(errs, appendKept(&tf.jsonl, &tf.jsonlInfo, tf.jsonlPath, jsonl))
		}
		if len(md) > 0 {
			errs = multierr.Append(errs, appendKept(&tf.md, &tf.mdInfo, tf.mdPath, md))
		}
		return nil
	})
	return errs
}

// closeFiles closes the files the store keeps open. The store must not append after it.
func (st *store) closeFiles() error {
	st.appendMu.Lock()
	defer st.appendMu.Unlock()
	return st.transcriptLock.close()
}

// appendKept appends data to *f with one write, opening the file at path first when *f is nil
// (see openAppend; *info is then what it is). A file that fails a write is closed: the next append
// opens it again.
func appendKept(f **os.File, info *os.FileInfo, path string, data []byte) error {
	if *f == nil {
		opened, fi, err := openAppend(path)
		if err != nil {
			return err
		}
		*f, *info = opened, fi
	}
	if _, err := (*f).Write(data); err != nil {
		_ = (*f).Close()
		*f = nil
		return err
	}
	return nil
}

// openAppend opens the regular file at path for appending, creating it with mode 0600. It does not
// follow a symbolic link at path (on unix): a link planted there would take the transcript
// elsewhere.
//
//hermes:ownfile the state folder's transcripts, not followed through a link
func openAppend(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY|openNoFollow, 0o600)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// recordedTurnsMax bounds how much of a JSONL transcript recorded reads.
const recordedTurnsMax = 32 << 20

// threadRecord is what a thread's JSONL transcript says of it: how many turns it recorded, and
// whether one was a review's.
type threadRecord struct {
	turns  int
	review bool
}

// recorded reads a thread's JSONL transcript: its turns (one result entry each) and whether one
// of them was a review (a result entry marked review). In the JSON of a message or a result the
// quotes of a key are escaped, so only the entries' own keys count. A missing or unreadable
// transcript records nothing.
//
//hermes:ownfile the state folder's transcripts
func (st *store) recorded(threadID string) threadRecord {
	jsonl, _, err := TranscriptPaths(st.dir, threadID)
	if err != nil {
		return threadRecord{}
	}
	f, err := os.Open(jsonl)
	if err != nil {
		return threadRecord{}
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, recordedTurnsMax))
	return threadRecord{turns: bytes.Count(data, []byte(`"kind":"result"`)), review: bytes.Contains(data, []byte(`"review":true`))}
}

// transcriptHeadMax bounds the first line of a JSONL transcript read to find its folder.
const transcriptHeadMax = 1 << 20

// TranscriptFolder reads the workspace folder a JSONL transcript's first entry names (the
// transcript of a thread, from [TranscriptPaths]). The file is read only if regular, never through a
// link, without waiting on a FIFO, and only its first line (at most 1 MiB).
//
//hermes:ownfile a transcript of the state folder
func TranscriptFolder(jsonl string) (string, bool) {
	f, err := os.OpenFile(jsonl, os.O_RDONLY|openNoFollow|openNonBlock, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	line, err := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	if err != nil && len(line) == 0 || len(line) > transcriptHeadMax {
		return "", false
	}
	var e struct {
		Folder string `json:"folder"`
	}
	if json.Unmarshal(line, &e) != nil || e.Folder == "" {
		return "", false
	}
	return e.Folder, true
}
