package agenthost

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The state dir holds:
//
//	state.json                       per folder: the last thread id and the usage totals
//	transcripts/<thread>.jsonl       every turn's projected rows, approvals and result, appended
//	transcripts/<thread>.md          the same, readable
//
// state.json is written atomically (a temporary file renamed over it), so a crash never leaves it
// half written, and a restart resumes each folder's thread.

// folderState is what survives a restart for one folder.
type folderState struct {
	ThreadID    string    `json:"threadId"`
	Usage       Usage     `json:"usage"`
	Turns       int       `json:"turns"`
	Compactions int       `json:"compactions"`
	Updated     time.Time `json:"updated"`
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

	mu    sync.Mutex
	state stateFile
	dirty bool
}

func openStore(dir string, log *slog.Logger) (*store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "transcripts"), 0o700); err != nil {
		return nil, fmt.Errorf("state dir: %w (set hermes stateDir to a writable folder)", err)
	}
	st := &store{dir: dir, log: log, state: stateFile{Version: 1, Folders: map[string]folderState{}}}
	data, err := os.ReadFile(st.statePath())
	switch {
	case err == nil:
		var f stateFile
		if jerr := json.Unmarshal(data, &f); jerr != nil {
			// A broken state file costs the threads' continuity, not the server: keep it aside.
			aside := st.statePath() + ".broken"
			_ = os.Rename(st.statePath(), aside)
			log.Warn("state file unreadable; moved aside", "path", aside, "err", jerr)
		} else if f.Folders != nil {
			st.state = f
		}
	case !os.IsNotExist(err):
		return nil, fmt.Errorf("read state: %w", err)
	}
	return st, nil
}

func (st *store) statePath() string { return filepath.Join(st.dir, "state.json") }

func (st *store) folder(folder string) folderState {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.state.Folders[folder]
}

func (st *store) setFolder(folder string, fs folderState) {
	st.mu.Lock()
	st.state.Folders[folder] = fs
	st.dirty = true
	st.mu.Unlock()
	if err := st.flush(); err != nil {
		st.log.Warn("could not save state", "err", err)
	}
}

// flush writes the state file if it changed.
func (st *store) flush() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.dirty {
		return nil
	}
	data, err := json.MarshalIndent(st.state, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(st.statePath(), data); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	st.dirty = false
	return nil
}

// writeFileAtomic writes data to a temporary file beside path, syncs it and renames it over path.
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
	return os.Rename(tmp.Name(), path)
}

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

// TranscriptPaths returns the JSONL and markdown transcript files of a thread in stateDir.
func TranscriptPaths(stateDir, threadID string) (jsonl, markdown string) {
	base := filepath.Join(stateDir, "transcripts", safeFileName(threadID))
	return base + ".jsonl", base + ".md"
}

func safeFileName(s string) string {
	if s == "" {
		return "no-thread"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, s)
}

// appendTurn records a finished turn in its thread's transcripts and returns the markdown path.
func (st *store) appendTurn(folder string, in Input, res *Result, approvals []Approval, compaction bool) string {
	jsonlPath, mdPath := TranscriptPaths(st.dir, res.ThreadID)
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

	st.mu.Lock()
	defer st.mu.Unlock()
	if err := appendFile(jsonlPath, lines); err != nil {
		st.log.Warn("could not write the transcript", "path", jsonlPath, "err", err)
	}
	if err := appendFile(mdPath, []byte(renderTurn(folder, in, res, approvals, compaction, now))); err != nil {
		st.log.Warn("could not write the transcript", "path", mdPath, "err", err)
	}
	return mdPath
}

func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// renderTurn renders one turn as markdown: the prompt, reasoning, tool calls and results, approvals
// and decisions, the answer and the usage.
func renderTurn(folder string, in Input, res *Result, approvals []Approval, compaction bool, at time.Time) string {
	var b strings.Builder
	title := "Turn"
	if compaction {
		title = "Compaction"
	}
	fmt.Fprintf(&b, "\n## %s %s — %s\n\n", title, res.TurnID, at.Format("2006-01-02 15:04:05"))
	fmt.Fprintf(&b, "_Folder `%s`, thread `%s`, status **%s**", folder, res.ThreadID, res.Status)
	if res.Fallback != "" {
		fmt.Fprintf(&b, ", answered by fallback **%s**", res.Fallback)
	}
	b.WriteString("_\n\n")

	for _, m := range res.Messages {
		switch {
		case m.Role == "user":
			b.WriteString("### You\n\n" + quote(m.Content) + "\n\n")
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			if m.Reasoning != "" {
				b.WriteString("_Reasoning:_ " + oneLine(m.Reasoning) + "\n\n")
			}
			call := m.ToolCalls[0]
			fmt.Fprintf(&b, "**Tool `%s`** `%s`\n\n", call.Function.Name, Truncate(call.Function.Arguments, 300))
			for _, a := range approvals {
				if callOfItem(call.ID, a.ItemID) {
					b.WriteString(approvalLine(a))
				}
			}
		case m.Role == "tool":
			b.WriteString(fence(m.Content) + "\n")
		case m.Role == "assistant":
			if m.Reasoning != "" {
				b.WriteString("_Reasoning:_ " + oneLine(m.Reasoning) + "\n\n")
			}
			b.WriteString("### Hermes\n\n" + m.Content + "\n\n")
		}
	}
	// Approvals whose tool call never made it into the transcript.
	for _, a := range approvals {
		if !hasCall(res.Messages, a.ItemID) {
			b.WriteString(approvalLine(a))
		}
	}
	if res.Error != "" {
		b.WriteString("**Error:** " + oneLine(res.Error) + "\n\n")
	}
	u := res.Usage
	fmt.Fprintf(&b, "_Usage: prompt %d (cached %d), output %d (reasoning %d), total %d tokens", u.Prompt, u.CacheRead, u.Output, u.Reasoning, u.Total)
	if p := u.ContextPercent(); p > 0 {
		fmt.Fprintf(&b, "; context %d%%", p)
	}
	fmt.Fprintf(&b, "; %d tool call(s), %s._\n", res.ToolIterations, res.Duration.Round(time.Millisecond))
	return b.String()
}

func approvalLine(a Approval) string {
	return fmt.Sprintf("> **Approval %s** (%s): %s — **%s** (%s)\n\n", a.ID, a.Kind, a.Summary, a.Decision, a.DecidedBy)
}

// callOfItem reports whether a projected tool-call id is that of codex item itemID (ids end in it).
func callOfItem(callID, itemID string) bool {
	return itemID != "" && strings.HasSuffix(callID, "_"+itemID)
}

func hasCall(msgs []Message, itemID string) bool {
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if callOfItem(c.ID, itemID) {
				return true
			}
		}
	}
	return false
}

func quote(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n> ")
}

// fence wraps text in a code fence longer than any run of backticks inside it.
func fence(s string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + "\n" + strings.TrimRight(s, "\n") + "\n" + ticks + "\n"
}
