package agenthost

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// appendTurn records a finished turn in its thread's JSONL transcript and appends mdTail (its last
// rows) to the markdown one, whose earlier rows the live transcript wrote; it returns the markdown
// path, or "" when the thread id cannot name a file.
func (st *store) appendTurn(folder string, res *Result, approvals []Approval, mdTail string) string {
	jsonlPath, mdPath, err := TranscriptPaths(st.dir, res.ThreadID)
	if err != nil {
		st.log.Warn("no transcript written for this turn", "folder", folder, "turn", res.TurnID, "err", err)
		return ""
	}
	now := time.Now()
	var lines []byte
	add := func(e transcriptEntry) {
		e.Time, e.Folder, e.ThreadID, e.TurnID = now, folder, res.ThreadID, res.TurnID
		b, err := json.Marshal(e)
		if err == nil {
			lines = append(append(lines, b...), '\n')
		}
	}
	for i := range res.Messages {
		add(transcriptEntry{Kind: "message", Message: &res.Messages[i]})
	}
	for i := range approvals {
		add(transcriptEntry{Kind: "approval", Approval: &approvals[i]})
	}
	summary := *res
	summary.Messages = nil
	add(transcriptEntry{Kind: "result", Result: &summary})

	// Another server on the same folder may append to the same thread: the lock keeps each turn's
	// records whole and the two files in the same order.
	st.appendMu.Lock()
	defer st.appendMu.Unlock()
	_ = withFileLock(filepath.Join(st.dir, "transcripts.lock"), st.log, func() error {
		if err := appendFile(jsonlPath, lines); err != nil {
			st.log.Warn("could not write the transcript", "path", jsonlPath, "err", err)
		}
		if err := appendFile(mdPath, []byte(mdTail)); err != nil {
			st.log.Warn("could not write the transcript", "path", mdPath, "err", err)
		}
		return nil
	})
	return mdPath
}

// appendMarkdown appends a row to a markdown transcript, whole, under the transcripts' lock.
func (st *store) appendMarkdown(path, row string) error {
	st.appendMu.Lock()
	defer st.appendMu.Unlock()
	return withFileLock(filepath.Join(st.dir, "transcripts.lock"), st.log, func() error {
		return appendFile(path, []byte(row))
	})
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
