package fakemodel

import (
	"encoding/json"
	"fmt"
	"strings"
)

// anthropicUsage is u as the Messages API's usage object, whose input_tokens leave out the tokens
// read from the cache (the Responses API's include them).
func anthropicUsage(u Usage, output bool) map[string]any {
	m := map[string]any{
		"input_tokens":                u.InputTokens - u.CachedTokens,
		"cache_read_input_tokens":     u.CachedTokens,
		"cache_creation_input_tokens": 0,
		"output_tokens":               0,
	}
	if output {
		m["output_tokens"] = u.OutputTokens
	}
	return m
}

// anthropicBlocks returns the content blocks a reply answers with, whole, and its stop reason.
func anthropicBlocks(r Reply) (blocks []map[string]any, stopReason string) {
	if r.reasoning != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": r.reasoning, "signature": "fakemodel"})
	}
	switch r.kind {
	case KindExec, KindCall:
		name, args := anthropicToolCall(r)
		return append(blocks, map[string]any{"type": "tool_use", "id": r.callID, "name": name, "input": json.RawMessage(args)}), "tool_use"
	default:
		return append(blocks, map[string]any{"type": "text", "text": strings.Join(r.chunks, "")}), "end_turn"
	}
}

// anthropicToolCall returns the tool name and JSON input of an [Exec] (Claude's Bash tool) or a
// [Call]. An input that is not a JSON object becomes {}.
func anthropicToolCall(r Reply) (name, input string) {
	if r.kind == KindExec {
		b, _ := json.Marshal(map[string]string{"command": r.text})
		return "Bash", string(b)
	}
	var obj map[string]any
	if json.Unmarshal([]byte(r.text), &obj) != nil {
		return r.tool, "{}"
	}
	return r.tool, r.text
}

// anthropicMessage is the non-streamed answer to a Messages API request.
func anthropicMessage(r Reply, id, model string) map[string]any {
	blocks, stop := anthropicBlocks(r)
	m := map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": blocks, "stop_reason": stop, "stop_sequence": nil,
	}
	if !r.noUsage {
		m["usage"] = anthropicUsage(r.usage, true)
	}
	return m
}

// anthropicEvents returns the server-sent events that stream a reply: message_start, each content
// block (content_block_start, its deltas, content_block_stop), message_delta with the stop reason
// and the output tokens, message_stop. A hanging reply is only message_start; a failed one ends in
// an error event.
func anthropicEvents(r Reply, id, model string) []Event {
	ev := func(typ string, kv ...any) Event {
		m := map[string]any{"type": typ}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return Event{Type: typ, Data: m}
	}
	start := map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": anthropicUsage(r.usage, false),
	}
	events := []Event{ev("message_start", "message", start)}
	switch r.kind {
	case KindHang:
		return events
	case KindFailed:
		return append(events, ev("error", "error", map[string]any{"type": "api_error", "message": r.text}))
	}

	index := 0
	// block streams one content block: its start (the block with its streamed field empty), the
	// deltas, its stop.
	block := func(empty map[string]any, deltas ...map[string]any) {
		events = append(events, ev("content_block_start", "index", index, "content_block", empty))
		for _, d := range deltas {
			events = append(events, ev("content_block_delta", "index", index, "delta", d))
		}
		events = append(events, ev("content_block_stop", "index", index))
		index++
	}
	if r.reasoning != "" {
		block(map[string]any{"type": "thinking", "thinking": ""},
			map[string]any{"type": "thinking_delta", "thinking": r.reasoning},
			map[string]any{"type": "signature_delta", "signature": "fakemodel"})
	}
	stop := "end_turn"
	switch r.kind {
	case KindExec, KindCall:
		name, input := anthropicToolCall(r)
		block(map[string]any{"type": "tool_use", "id": r.callID, "name": name, "input": map[string]any{}},
			map[string]any{"type": "input_json_delta", "partial_json": input})
		stop = "tool_use"
	case KindMessage:
		var deltas []map[string]any
		for _, c := range r.chunks {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
		}
		block(map[string]any{"type": "text", "text": ""}, deltas...)
	default:
		panic(fmt.Sprintf("fakemodel: reply of kind %v has no Messages API stream", r.kind))
	}
	delta := ev("message_delta", "delta", map[string]any{"stop_reason": stop, "stop_sequence": nil})
	if !r.noUsage {
		delta.Data["usage"] = map[string]any{"output_tokens": r.usage.OutputTokens}
	}
	return append(events, delta, ev("message_stop"))
}
