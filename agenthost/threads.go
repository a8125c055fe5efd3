package agenthost

// This file is a folder's past threads: listing them (codex thread/list, filtered to the folder),
// making one the folder's thread again, and naming new threads after their first prompt.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// maxThreads is the most threads Threads lists, and the page size thread/list is asked for.
const maxThreads = 50

// maxThreadPages bounds how many pages of thread/list a search for one thread reads: a folder's
// newest maxThreadPages*maxThreads threads are found.
const maxThreadPages = 40

// ThreadInfo is one of a folder's codex threads.
type ThreadInfo struct {
	ID string `json:"threadId"`
	// Title is the thread's name (set from its first prompt), else codex's preview of it.
	Title     string    `json:"title"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Turns is how many turns hermes-lsp recorded in the thread's transcript.
	Turns int `json:"turns"`
	// Current says it is the folder's thread: the next turn runs on it.
	Current bool `json:"current"`
	// Review says it is the thread of a code review (hermes.review), not a conversation.
	Review bool `json:"review,omitempty"`
}

// Threads lists the folder's threads in codex, newest first (at most maxThreads), each once: codex
// lists a thread a second time after thread/revert (an undo), as its newest rollout and its older
// one; the first, newest, is kept.
func (s *Session) Threads(ctx context.Context) ([]ThreadInfo, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	client, _, err := s.h.codexClient(ctx)
	if err != nil {
		return nil, err
	}
	current, _, _ := s.thread()
	var out []ThreadInfo
	seen := make(map[string]bool)
	err = listThreads(ctx, client, s.folder, maxThreadPages, func(t codex.Thread) bool {
		if seen[t.ID] {
			return true
		}
		seen[t.ID] = true
		rec := s.h.store.recorded(t.ID)
		title := threadTitle(t)
		if title == "" && rec.review {
			title = "Code review" // codex gives a review's thread neither a name nor a preview
		}
		out = append(out, ThreadInfo{
			ID: t.ID, Title: title, UpdatedAt: time.Unix(t.UpdatedAt, 0).UTC(),
			Turns: rec.turns, Current: t.ID == current, Review: rec.review,
		})
		return len(out) < maxThreads
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []ThreadInfo{}
	}
	return out, nil
}

// listThreads hands yield the threads whose cwd is folder, newest first, until it returns false:
// page by page (thread/list, following nextCursor), at most pages pages.
func listThreads(ctx context.Context, client Agent, folder string, pages int, yield func(codex.Thread) bool) error {
	cwd, _ := json.Marshal(folder)
	cursor := ""
	for range pages {
		res, err := client.ListThreads(ctx, codex.ThreadListParams{
			Cwd: cwd, SortKey: "updated_at", SortDirection: "desc", Limit: maxThreads, Cursor: cursor,
		})
		if err != nil {
			return fmt.Errorf("thread/list: %w", err)
		}
		for _, t := range res.Data {
			if !yield(t) {
				return nil
			}
		}
		if res.NextCursor == "" || res.NextCursor == cursor {
			return nil
		}
		cursor = res.NextCursor
	}
	return nil
}

// folderHasThread reports whether threadID is one of the folder's threads in codex. It looks for it
// itself rather than ask thread/list for it by id: codex before 0.171.0 ignores includedThreadIds
// (codex.ProblemThreadFilter) and would answer with any thread of the folder.
func folderHasThread(ctx context.Context, client Agent, folder, threadID string) (bool, error) {
	found := false
	err := listThreads(ctx, client, folder, maxThreadPages, func(t codex.Thread) bool {
		found = t.ID == threadID
		return !found
	})
	return found, err
}

// threadTitle is what a thread is called in a list.
func threadTitle(t codex.Thread) string {
	title := t.Name
	if title == "" {
		title = t.Preview
	}
	return Truncate(oneLine(title), 80)
}

// ResumeThread makes threadID the folder's thread: the next turn resumes it in codex, with its
// history. It must be one of the folder's threads, and no turn may run.
func (s *Session) ResumeThread(ctx context.Context, threadID string) error {
	if !isFileID(threadID) {
		return fmt.Errorf("%q is not a thread id", Truncate(threadID, 80))
	}
	if current, _, _ := s.thread(); current == threadID {
		return nil // already the folder's (a turn may run on it: a prompt steers it)
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	client, _, err := s.h.codexClient(ctx)
	if err != nil {
		return err
	}
	found, err := folderHasThread(ctx, client, s.folder, threadID)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("thread %s is not one of %s's threads", threadID, s.folder)
	}
	busy, err := s.useThread(threadID)
	if err != nil {
		return err
	}
	if busy {
		return fmt.Errorf("%w: stop the running turn first", ErrBusy)
	}
	s.flush()
	return nil
}

// claimName returns the title t's thread gets once t has ended, or "": a prompt's turn names its
// thread when codex started it for this session and no turn has named it. It is named at the turn's
// end, as codex refuses to name a thread whose rollout is still empty. On the session's goroutine.
func (st *sessionState) claimName(t *turn, threadID string) string {
	if !t.names() || st.unnamed == "" || st.unnamed != threadID {
		return ""
	}
	st.unnamed = ""
	if t.input.Title != "" {
		return t.input.Title
	}
	return t.input.Prompt
}

// nameThread gives a thread codex started for this session a title from the prompt of its first
// turn (thread/name/set); failing is only logged.
func (s *Session) nameThread(ctx context.Context, client Agent, threadID, prompt string) {
	name := Truncate(oneLine(firstLine(prompt)), 60)
	if name == "" || !client.Info().Supports.NameThread {
		return // an agent that cannot name its threads (ACP) keeps its own titles
	}
	if err := client.NameThread(ctx, threadID, name); err != nil {
		s.h.log.Info("could not name the thread", "thread", threadID, "err", err)
	}
}

// turnTitle names a turn for people: the first line of the user's words, bounded.
func turnTitle(in Input) string {
	words := in.Title
	if words == "" {
		words = in.Prompt
	}
	return Truncate(oneLine(firstLine(words)), 60)
}

// firstLine is s's first non-empty line.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}
