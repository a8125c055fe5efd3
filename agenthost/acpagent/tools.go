package acpagent

// This file turns the agent's tool calls into codex's tool items: a command (kind execute) is a
// commandExecution item, an edit (kind edit, or content with diffs) a fileChange item whose changes
// carry unified diffs, anything else a dynamicToolCall item named by its kind or title.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// Bounds of what a tool item carries of the agent's text.
const (
	maxCommand    = 4 << 10  // a command, in bytes
	maxOutput     = 64 << 10 // a tool's output, in bytes
	maxArguments  = 64 << 10 // a tool's arguments (JSON), in bytes
	maxTitle      = 200      // a title or a tool's name, in characters
	maxPath       = 4 << 10  // a path, in bytes
	maxDiffInput  = 4 << 20  // old and new text of one file, in bytes: a larger change gets no diff
	maxFileChange = 100      // files in one fileChange item
)

// tool is one tool call of the agent's, as the turn knows it: what the agent said of it so far,
// and the item it is.
type tool struct {
	itemID string
	seq    int    // when the turn first heard of it
	typ    string // the codex item type, fixed when the item started

	kind, title, status string
	rawInput, rawOutput json.RawMessage
	content             []acp.ToolCallContent
	locations           []acp.ToolCallLocation

	changes []codex.FileChange // a fileChange item's changes as last announced (item/started)
	sent    string             // a command's output sent as deltas so far
	note    string             // the result of a call that never completed
	done    bool
}

// toolCall takes a new tool call: the answer and the reasoning so far are complete, and the call's
// item starts (and completes, when the agent reports it done already).
func (s *session) toolCall(t *turn, c *acp.ToolCall) {
	s.toolCallUpdate(t, &acp.ToolCallUpdate{
		ToolCallID: c.ToolCallID, Kind: c.Kind, Title: c.Title, Status: c.Status, Content: c.Content,
		Locations: c.Locations, RawInput: c.RawInput, RawOutput: c.RawOutput,
	})
}

// toolCallUpdate merges an update into its tool call (a call first heard of in an update starts
// then), reports a command's new output and an edit's new files, and completes the item when the
// call has completed or failed.
func (s *session) toolCallUpdate(t *turn, u *acp.ToolCallUpdate) {
	tc := s.tool(t, u)
	if tc.done {
		return // the agent's last word on it was said
	}
	merge(tc, u)
	switch tc.typ {
	case codex.ItemCommandExecution:
		if out := contentText(tc.content); strings.HasPrefix(out, tc.sent) && len(out) > len(tc.sent) {
			s.publish(t, codex.NotifyCommandOutputDelta, &codex.DeltaParams{ThreadID: s.id, TurnID: t.id, ItemID: tc.itemID, Delta: out[len(tc.sent):]})
			tc.sent = out
		}
	case codex.ItemFileChange:
		if changes := changesOf(tc); hasNewPath(tc.changes, changes) {
			// Announced again, so that the host keeps the new files as they are before the edit.
			tc.changes = changes
			s.publish(t, codex.NotifyItemStarted, &codex.ItemParams{ThreadID: s.id, TurnID: t.id, Item: tc.item(s.folder)})
		}
	}
	if tc.status == acp.ToolCallStatusCompleted || tc.status == acp.ToolCallStatusFailed {
		s.completeTool(t, tc)
	}
}

// tool returns the turn's tool call u names, starting its item when it is new: its type comes from
// the update's kind and content.
func (s *session) tool(t *turn, u *acp.ToolCallUpdate) *tool {
	if tc := t.tools[u.ToolCallID]; tc != nil {
		return tc
	}
	s.closeThought(t)
	s.closeText(t, &t.msg, codex.ItemAgentMessage)
	t.seq++
	tc := &tool{itemID: fmt.Sprintf("tool-%d-%s", t.seq, idPart(u.ToolCallID)), seq: t.seq, status: acp.ToolCallStatusPending}
	merge(tc, u)
	switch {
	case tc.kind == acp.ToolKindExecute:
		tc.typ = codex.ItemCommandExecution
	case tc.kind == acp.ToolKindEdit || slices.ContainsFunc(tc.content, func(c acp.ToolCallContent) bool { return c.Diff != nil }):
		tc.typ = codex.ItemFileChange
		tc.changes = changesOf(tc)
	default:
		tc.typ = codex.ItemDynamicToolCall
	}
	t.tools[u.ToolCallID] = tc
	s.publish(t, codex.NotifyItemStarted, &codex.ItemParams{ThreadID: s.id, TurnID: t.id, Item: tc.item(s.folder)})
	return tc
}

// merge takes what u says of a tool call into tc: each field u has replaces tc's.
func merge(tc *tool, u *acp.ToolCallUpdate) {
	if u.Kind != "" {
		tc.kind = u.Kind
	}
	if u.Title != "" {
		tc.title = u.Title
	}
	if u.Status != "" {
		tc.status = u.Status
	}
	if u.Content != nil {
		tc.content = u.Content
	}
	if u.Locations != nil {
		tc.locations = u.Locations
	}
	if len(u.RawInput) > 0 {
		tc.rawInput = u.RawInput
	}
	if len(u.RawOutput) > 0 {
		tc.rawOutput = u.RawOutput
	}
}

// completeTool completes tc's item with its result.
func (s *session) completeTool(t *turn, tc *tool) {
	tc.done = true
	s.publish(t, codex.NotifyItemCompleted, &codex.ItemParams{ThreadID: s.id, TurnID: t.id, Item: tc.item(s.folder)})
}

// toolsInOrder returns the turn's tool calls in the order they began.
func (t *turn) toolsInOrder() []*tool {
	out := make([]*tool, 0, len(t.tools))
	for _, tc := range t.tools {
		out = append(out, tc)
	}
	slices.SortFunc(out, func(x, y *tool) int { return x.seq - y.seq })
	return out
}

// item is tc as a codex item, as the host reads one (agenthost's ToolName, ToolArgs, ToolResult).
func (tc *tool) item(folder string) codex.Item {
	it := codex.Item{Type: tc.typ, ID: tc.itemID, Status: codex.ItemInProgress}
	if tc.done {
		it.Status = codex.ItemCompleted
		if tc.status == acp.ToolCallStatusFailed {
			it.Status = codex.ItemFailed
		}
	}
	switch tc.typ {
	case codex.ItemCommandExecution:
		it.Command, it.Cwd = tc.command(), folder
		if tc.done {
			out := tc.output()
			it.AggregatedOutput = &out
			it.ExitCode = exitCode(tc.rawOutput)
		}
	case codex.ItemFileChange:
		it.Changes = slices.Clone(tc.changes)
	default:
		it.Tool = tc.name()
		it.Arguments = arguments(tc.rawInput)
		if tc.done {
			ok := it.Status == codex.ItemCompleted
			it.Success = &ok
			it.ContentItems, _ = json.Marshal([]map[string]string{{"type": "inputText", "text": tc.output()}})
		}
	}
	return it
}

// command is what a command call runs: its raw input's command (a string, or the words of one),
// else its title.
func (tc *tool) command() string {
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	cmd := ""
	if json.Unmarshal(tc.rawInput, &in) == nil && len(in.Command) > 0 {
		var words []string
		if json.Unmarshal(in.Command, &cmd) != nil && json.Unmarshal(in.Command, &words) == nil {
			cmd = strings.Join(words, " ")
		}
	}
	if strings.TrimSpace(cmd) == "" {
		cmd = tc.title
	}
	return safeCommand(cmd)
}

// safeCommand is the agent's text as a command the host shows: cleaned, bounded.
func safeCommand(s string) string { return safetext.CutBytes(safetext.Clean(s), maxCommand) }

// name is a dynamic tool's name: its kind, else its title.
func (tc *tool) name() string {
	if tc.kind != "" && tc.kind != acp.ToolKindOther {
		return safetext.LineCut(tc.kind, maxTitle)
	}
	if name := safetext.LineCut(tc.title, maxTitle); name != "" {
		return name
	}
	return "tool"
}

// output is a finished call's result: the text of its content, else its raw output; cleaned and
// bounded. A call that never completed has its note instead.
func (tc *tool) output() string {
	if tc.note != "" {
		return tc.note
	}
	out := contentText(tc.content)
	if out == "" {
		out = rawText(tc.rawOutput)
	}
	return safetext.CutBytes(safetext.Clean(out), maxOutput)
}

// contentText is the text of a tool call's content blocks, one after the other.
func contentText(content []acp.ToolCallContent) string {
	var parts []string
	for _, c := range content {
		switch {
		case c.Content != nil:
			if text := blockText(c.Content.Content); text != "" {
				parts = append(parts, text)
			}
		case c.Terminal != nil:
			parts = append(parts, "[terminal]")
		}
	}
	return strings.Join(parts, "\n")
}

// rawText is a tool's raw output as text: a string as it is, an object's output (or stdout and
// stderr), else the JSON.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Output, Stdout, Stderr string
	}
	if json.Unmarshal(raw, &o) == nil {
		if o.Output != "" {
			return o.Output
		}
		if out := strings.TrimSpace(o.Stdout + "\n" + o.Stderr); out != "" {
			return out
		}
	}
	return string(raw)
}

// exitCode is the exit code a command's raw output gives (exit_code or exitCode), or nil.
func exitCode(raw json.RawMessage) *int {
	var o struct {
		Snake *int `json:"exit_code"`
		Camel *int `json:"exitCode"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	if o.Snake != nil {
		return o.Snake
	}
	return o.Camel
}

// arguments are a dynamic tool's arguments: its raw input, when it is a JSON object or list that
// is not too large.
func arguments(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || (raw[0] != '{' && raw[0] != '['):
		return json.RawMessage(`{}`)
	case len(raw) > maxArguments:
		return json.RawMessage(`{"note":"arguments too large to show"}`)
	}
	return raw
}

// changesOf are the files an edit changes: each diff of its content (an add when it had no old
// text), then each location it names without one. Paths that are not absolute, or not fit to be
// one, are left out; the host checks the rest.
func changesOf(tc *tool) []codex.FileChange {
	var out []codex.FileChange
	add := func(c codex.FileChange) {
		if len(out) < maxFileChange && !slices.ContainsFunc(out, func(o codex.FileChange) bool { return o.Path == c.Path }) {
			out = append(out, c)
		}
	}
	for _, c := range tc.content {
		if d := c.Diff; d != nil {
			if path, ok := cleanPath(d.Path); ok {
				kind := "update"
				if d.OldText == "" {
					kind = "add"
				}
				add(codex.FileChange{Path: path, Kind: codex.PatchChangeKind{Type: kind}, Diff: unifiedDiff(d.OldText, d.NewText)})
			}
		}
	}
	for _, l := range tc.locations {
		if path, ok := cleanPath(l.Path); ok {
			add(codex.FileChange{Path: path, Kind: codex.PatchChangeKind{Type: "update"}})
		}
	}
	return out
}

// hasNewPath reports whether now names a file was does not.
func hasNewPath(was, now []codex.FileChange) bool {
	for _, c := range now {
		if !slices.ContainsFunc(was, func(w codex.FileChange) bool { return w.Path == c.Path }) {
			return true
		}
	}
	return false
}

// cleanPath is a path the agent named, cleaned, when it is absolute and fit to name a file (no
// control characters, not too long).
func cleanPath(p string) (string, bool) {
	if len(p) > maxPath || !filepath.IsAbs(p) || safetext.Clean(p) != p || strings.ContainsAny(p, "\n\r\t") {
		return "", false
	}
	return filepath.Clean(p), true
}

// unifiedDiff is the unified diff of old to new, its hunks only (as codex's fileChange diffs are);
// "" for texts too large to diff.
func unifiedDiff(old, new string) string {
	if len(old)+len(new) > maxDiffInput {
		return ""
	}
	d := udiff.Unified("a", "b", old, new)
	for _, header := range []string{"--- a\n", "+++ b\n"} {
		d = strings.TrimPrefix(d, header)
	}
	return d
}

// idPart is the agent's tool call id as part of an item id: letters, digits, '-' and '_', at most
// 64 of them.
func idPart(id string) string {
	b := make([]byte, 0, min(len(id), 64))
	for i := 0; i < len(id) && len(b) < 64; i++ {
		switch c := id[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b = append(b, c)
		default:
			b = append(b, '_')
		}
	}
	return string(b)
}
