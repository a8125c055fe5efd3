package agenthost

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// This file maps codex items to the host's tool vocabulary: names, arguments, previews, results and
// the stable tool-call ids of the projected transcript.

// previewMax bounds a tool preview, in characters.
const previewMax = 120

// isTool reports whether an item is a tool call the host reports as such.
func isTool(item *codex.Item) bool {
	switch item.Type {
	case codex.ItemCommandExecution, codex.ItemFileChange, codex.ItemMcpToolCall, codex.ItemDynamicToolCall, codex.ItemWebSearch:
		return true
	}
	return false
}

// countsAsIteration reports whether a completed item counts as a tool iteration.
func countsAsIteration(item *codex.Item) bool {
	switch item.Type {
	case codex.ItemCommandExecution, codex.ItemFileChange, codex.ItemMcpToolCall, codex.ItemDynamicToolCall:
		return true
	}
	return false
}

// ToolName is the host's name for a tool item: exec_command, apply_patch, mcp.<server>.<tool>, the
// dynamic tool's own name, or web_search. Other items have no tool name.
func ToolName(item *codex.Item) string {
	switch item.Type {
	case codex.ItemCommandExecution:
		return "exec_command"
	case codex.ItemFileChange:
		return "apply_patch"
	case codex.ItemMcpToolCall:
		return "mcp." + item.Server + "." + item.Tool
	case codex.ItemDynamicToolCall:
		return item.Tool
	case codex.ItemWebSearch:
		return "web_search"
	}
	return ""
}

// ToolCallID is the stable id of a tool item in the projected transcript.
func ToolCallID(item *codex.Item) string {
	switch item.Type {
	case codex.ItemCommandExecution:
		return "codex_exec_" + item.ID
	case codex.ItemFileChange:
		return "codex_apply_patch_" + item.ID
	case codex.ItemMcpToolCall:
		return "codex_mcp__" + item.Server + "__" + item.Tool + "_" + item.ID
	case codex.ItemDynamicToolCall:
		return "codex_dyn_" + item.Tool + "_" + item.ID
	case codex.ItemWebSearch:
		return "codex_web_search_" + item.ID
	}
	return "codex_" + item.Type + "_" + item.ID
}

// ToolArgs are a tool item's arguments as JSON.
func ToolArgs(item *codex.Item) json.RawMessage {
	var v any
	switch item.Type {
	case codex.ItemCommandExecution:
		v = struct {
			Command string `json:"command"`
			Cwd     string `json:"cwd"`
		}{item.Command, item.Cwd} // a struct, not a map: the same keys in order, without sorting them
	case codex.ItemFileChange:
		type change struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		}
		changes := make([]change, 0, len(item.Changes))
		for _, c := range item.Changes {
			changes = append(changes, change{Path: c.Path, Kind: c.Kind.Type})
		}
		v = map[string]any{"changes": changes}
	case codex.ItemMcpToolCall, codex.ItemDynamicToolCall:
		if len(item.Arguments) == 0 || string(item.Arguments) == "null" {
			return json.RawMessage(`{}`)
		}
		return item.Arguments
	case codex.ItemWebSearch:
		v = struct {
			Query string `json:"query"`
		}{item.Query}
	default:
		return json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(v)
	return b
}

// ToolPreview is a one-line summary of a tool item, at most 120 characters: the command, the first
// three paths of a patch (", +N more"), the query, or the arguments.
func ToolPreview(item *codex.Item) string {
	var s string
	switch item.Type {
	case codex.ItemCommandExecution:
		s = item.Command
	case codex.ItemFileChange:
		paths := make([]string, 0, 3)
		for i, c := range item.Changes {
			if i == 3 {
				break
			}
			paths = append(paths, c.Path)
		}
		s = strings.Join(paths, ", ")
		if extra := len(item.Changes) - len(paths); extra > 0 {
			s += fmt.Sprintf(", +%d more", extra)
		}
	case codex.ItemWebSearch:
		s = item.Query
	default:
		s = string(ToolArgs(item))
	}
	return Truncate(oneLine(s), previewMax)
}

// ToolResult is the text result of a completed tool item and whether it is an error.
func ToolResult(item *codex.Item) (string, bool) {
	switch item.Type {
	case codex.ItemCommandExecution:
		out := ""
		if item.AggregatedOutput != nil {
			out = *item.AggregatedOutput
		}
		isErr := item.Status == codex.ItemFailed || item.Status == codex.ItemDeclined
		if item.ExitCode != nil && *item.ExitCode != 0 {
			return fmt.Sprintf("[exit %d] %s", *item.ExitCode, out), true
		}
		if item.Status == codex.ItemDeclined && out == "" {
			out = "[declined]"
		}
		return out, isErr
	case codex.ItemFileChange:
		isErr := item.Status == codex.ItemFailed || item.Status == codex.ItemDeclined
		return fmt.Sprintf("apply_patch status=%s, %d change(s)", item.Status, len(item.Changes)), isErr
	case codex.ItemMcpToolCall:
		if item.Error != nil && item.Error.Message != "" {
			return item.Error.Message, true
		}
		return contentText(item.Result), item.Status == codex.ItemFailed
	case codex.ItemDynamicToolCall:
		isErr := item.Status == codex.ItemFailed || (item.Success != nil && !*item.Success)
		return contentText(item.ContentItems), isErr
	case codex.ItemWebSearch:
		return item.Query, false
	}
	return "", false
}

// contentText flattens MCP-style content ({"content":[{"type":"text","text":...}]} or a bare list of
// items) into text; anything else is returned as JSON.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	type part struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var parts []part
	if json.Unmarshal(raw, &parts) != nil {
		var wrapped struct {
			Content []part `json:"content"`
		}
		if json.Unmarshal(raw, &wrapped) != nil || wrapped.Content == nil {
			return string(raw)
		}
		parts = wrapped.Content
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Truncate cuts s to at most n characters, ending in "…" when cut.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
