package agenthost

import (
	"bytes"
	"encoding/json"
	"fmt"
	fastjson "github.com/segmentio/encoding/json"
	"go.uber.org/multierr"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// transcriptEntry is one line of a thread's JSONL transcript.
type transcriptEntry struct {
	Time     time.Time `json:"time"`
	Kind     string    `json:"kind"` // message, approval, result
	Folder   string    `json:"folder"`
	ThreadID string    `json:"threadId"`
	TurnID   string    `json:"turnId"`
	Message  *Message  `json:"message,omitempty"`
	Approval *Approval `json:"approval,omitempty"`
	Result   *Result   `json:"result,omitempty"`
}

// TranscriptPaths returns the JSONL and markdown transcript files of a thread in stateDir. A thread
// id names a file only when it is 1 to 128 letters, digits, '-' or '_' (codex's ids are UUIDs): any
// other id could name a file outside the transcripts folder ("..", a path), and is an error.
func TranscriptPaths(stateDir, threadID string) (jsonl, markdown string, err error) {
	if !threadFileName.MatchString(threadID) {
		return "", "", fmt.Errorf("thread id %q cannot name a transcript file: it must be 1 to 128 letters, digits, '-' or '_'", Truncate(threadID, 80))
	}
	base := filepath.Join(stateDir, "transcripts", threadID)
	return base + ".jsonl", base + ".md", nil
}

// threadFileName is what a thread id must look like to be used in a file name.
var threadFileName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// appendTurn records a finished turn in its thread's JSONL transcript (its rows not written yet,
// its approvals and its result) and appends mdTail (its last rows) to the markdown one, whose
// earlier rows the live transcript wrote; it returns the markdown path, or "" when the thread id
// cannot name a file.
func (st *store) appendTurn(folder string, res *Result, msgs []Message, approvals []Approval, mdTail string) string {
	jsonlPath, mdPath, err := TranscriptPaths(st.dir, res.ThreadID)
	if err != nil {
		st.log.Warn("no transcript written for this turn", "folder", folder, "turn", res.TurnID, "err", err)
		return ""
	}
	now := time.Now()
	lines := encodeMessages(nil, folder, res.ThreadID, res.TurnID, now, msgs)
	add := func(e transcriptEntry) {
		e.Time, e.Folder, e.ThreadID, e.TurnID = now, folder, res.ThreadID, res.TurnID
		if b, err := json.Marshal(e); err == nil {
			lines = append(append(lines, b...), '\n')
		}
	}
	for i := range approvals {
		add(transcriptEntry{Kind: "approval", Approval: &approvals[i]})
	}
	summary := *res
	summary.Messages = nil
	add(transcriptEntry{Kind: "result", Result: &summary})
	if err := st.appendRows(jsonlPath, lines, mdPath, []byte(mdTail)); err != nil {
		st.log.Warn("could not write the transcript", "path", mdPath, "err", err)
	}
	return mdPath
}

// encodeMessages appends the JSONL rows of a turn's projected messages to buf.
func encodeMessages(buf []byte, folder, threadID, turnID string, now time.Time, msgs []Message) []byte {
	for i := range msgs {
		e := transcriptEntry{Time: now, Kind: "message", Folder: folder, ThreadID: threadID, TurnID: turnID, Message: &msgs[i]}
		// Appended in place (a long turn writes thousands of rows), as json.Marshal would write it.
		if b, err := fastjson.Append(buf, e, fastjson.EscapeHTML|fastjson.SortMapKeys); err == nil {
			buf = append(b, '\n')
		}
	}
	return buf
}

// appendRows appends rows to a thread's JSONL and markdown transcripts (either may be empty), each
// whole, under the transcripts' lock: another server on the same folder may append to the same
// thread, and the lock keeps each append whole and the two files in the same order.
func (st *store) appendRows(jsonlPath string, jsonl []byte, mdPath string, md []byte) error {
	st.appendMu.Lock()
	defer st.appendMu.Unlock()
	var errs error
	_ = st.transcriptLock.with(func() error {
		if len(jsonl) > 0 {
			errs = multierr.Append(errs, appendFile(jsonlPath, jsonl))
		}
		if len(md) > 0 {
			errs = multierr.Append(errs, appendFile(mdPath, md))
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

// appendFile appends data to the regular file at path with one write, creating it with mode 0600.
// It does not follow a symbolic link at path (on unix): a link planted there would take the
// transcript elsewhere.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY|openNoFollow, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// recordedTurnsMax bounds how much of a JSONL transcript recordedTurns reads.
const recordedTurnsMax = 32 << 20

// recordedTurns counts the turns recorded in a thread's JSONL transcript (one result entry each;
// in a message's JSON the key's quotes are escaped, so only entries count). A missing or
// unreadable transcript counts 0.
func (st *store) recordedTurns(threadID string) int {
	jsonl, _, err := TranscriptPaths(st.dir, threadID)
	if err != nil {
		return 0
	}
	f, err := os.Open(jsonl)
	if err != nil {
		return 0
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, recordedTurnsMax))
	return bytes.Count(data, []byte(`"kind":"result"`))
}
