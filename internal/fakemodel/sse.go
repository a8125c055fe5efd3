package fakemodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// An Event is one server-sent event of a Responses API stream: its type (the SSE "event" name, also
// the "type" member of its data) and its JSON data.
type Event struct {
	Type string
	Data map[string]any
}

// WriteTo writes the event in SSE framing: "event: TYPE\ndata: JSON\n\n".
func (e Event) WriteTo(w io.Writer) (int64, error) {
	data, err := json.Marshal(e.Data)
	if err != nil {
		return 0, err
	}
	n, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Type, data)
	return int64(n), err
}

// ReadEvents parses an SSE stream into its events, keyed by their "event" field (or, lacking one,
// the "type" member of their data). It is the inverse of [Event.WriteTo], for tests and tools.
func ReadEvents(r io.Reader) ([]Event, error) {
	var (
		events []Event
		name   string
		data   bytes.Buffer
	)
	flush := func() error {
		if data.Len() == 0 {
			name = ""
			return nil
		}
		var m map[string]any
		if err := json.Unmarshal(data.Bytes(), &m); err != nil {
			return fmt.Errorf("fakemodel: event %q: %w", name, err)
		}
		if name == "" {
			name, _ = m["type"].(string)
		}
		events = append(events, Event{Type: name, Data: m})
		name = ""
		data.Reset()
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if err := flush(); err != nil {
				return events, err
			}
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil {
		return events, err
	}
	return events, flush()
}

// ids are the identifiers the server gives one reply.
type ids struct {
	response string // resp_N
	call     string // call_N, for tool calls
	created  int64  // unix seconds
	model    string // echoed from the request
}

// responseEvents returns the stream of events that serves r, from response.created to
// response.completed or response.failed. A hanging reply is only response.created, and an HTTP
// error has no events.
func responseEvents(r Reply, id ids) []Event {
	if r.kind == KindHTTPError {
		return nil
	}
	ev := func(typ string, kv ...any) Event {
		m := map[string]any{"type": typ}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return Event{Type: typ, Data: m}
	}
	response := func(status string, output []any) map[string]any {
		return map[string]any{
			"id":         id.response,
			"object":     "response",
			"created_at": id.created,
			"status":     status,
			"model":      id.model,
			"output":     output,
		}
	}
	events := []Event{ev("response.created", "response", response("in_progress", []any{}))}
	switch r.kind {
	case KindHang:
		return numbered(events)
	case KindFailed:
		failed := response("failed", []any{})
		failed["error"] = map[string]any{"code": "server_error", "message": r.text}
		return numbered(append(events, ev("response.failed", "response", failed)))
	}

	var output []any
	// add streams one output item: output_item.added, the item's own deltas, output_item.done.
	add := func(added, done map[string]any, deltas ...Event) {
		idx := len(output)
		events = append(events, ev("response.output_item.added", "output_index", idx, "item", added))
		for _, d := range deltas {
			d.Data["output_index"] = idx
			events = append(events, d)
		}
		events = append(events, ev("response.output_item.done", "output_index", idx, "item", done))
		output = append(output, done)
	}

	if r.reasoning != "" {
		itemID := "rs_" + id.response
		part := func(text string) map[string]any { return map[string]any{"type": "summary_text", "text": text} }
		add(
			map[string]any{"id": itemID, "type": "reasoning", "summary": []any{}},
			map[string]any{"id": itemID, "type": "reasoning", "summary": []any{part(r.reasoning)}},
			ev("response.reasoning_summary_part.added", "item_id", itemID, "summary_index", 0, "part", part("")),
			ev("response.reasoning_summary_text.delta", "item_id", itemID, "summary_index", 0, "delta", r.reasoning),
			ev("response.reasoning_summary_text.done", "item_id", itemID, "summary_index", 0, "text", r.reasoning),
			ev("response.reasoning_summary_part.done", "item_id", itemID, "summary_index", 0, "part", part(r.reasoning)),
		)
	}

	switch r.kind {
	case KindMessage:
		itemID := "msg_" + id.response
		text := strings.Join(r.chunks, "")
		part := func(text string) map[string]any {
			return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
		}
		deltas := []Event{ev("response.content_part.added", "item_id", itemID, "content_index", 0, "part", part(""))}
		for _, c := range r.chunks {
			deltas = append(deltas, ev("response.output_text.delta", "item_id", itemID, "content_index", 0, "delta", c))
		}
		deltas = append(deltas,
			ev("response.output_text.done", "item_id", itemID, "content_index", 0, "text", text),
			ev("response.content_part.done", "item_id", itemID, "content_index", 0, "part", part(text)),
		)
		add(
			map[string]any{"id": itemID, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}},
			map[string]any{"id": itemID, "type": "message", "status": "completed", "role": "assistant", "content": []any{part(text)}},
			deltas...,
		)
	case KindExec, KindCall:
		itemID := "fc_" + id.response
		name, args := functionCall(r)
		item := func(status, args string) map[string]any {
			m := map[string]any{
				"id": itemID, "type": "function_call", "status": status,
				"call_id": id.call, "name": name, "arguments": args,
			}
			if r.namespace != "" {
				m["namespace"] = r.namespace
			}
			return m
		}
		add(item("in_progress", ""), item("completed", args),
			ev("response.function_call_arguments.delta", "item_id", itemID, "delta", args),
			ev("response.function_call_arguments.done", "item_id", itemID, "arguments", args),
		)
	case KindPatch:
		itemID := "ctc_" + id.response
		item := func(status, input string) map[string]any {
			return map[string]any{
				"id": itemID, "type": "custom_tool_call", "status": status,
				"call_id": id.call, "name": "apply_patch", "input": input,
			}
		}
		add(item("in_progress", ""), item("completed", r.text),
			ev("response.custom_tool_call_input.delta", "item_id", itemID, "delta", r.text),
			ev("response.custom_tool_call_input.done", "item_id", itemID, "input", r.text),
		)
	default:
		panic(fmt.Sprintf("fakemodel: reply of unknown kind %v", r.kind))
	}

	completed := response("completed", output)
	if !r.noUsage {
		completed["usage"] = usageJSON(r.usage)
	}
	return numbered(append(events, ev("response.completed", "response", completed)))
}

// functionCall returns the tool name and JSON arguments of an [Exec] or a [Call].
func functionCall(r Reply) (name, args string) {
	if r.kind == KindCall {
		return r.tool, r.text
	}
	b, _ := json.Marshal(map[string]string{"cmd": r.text})
	return "exec_command", string(b)
}

// numbered sets the sequence_number of each event to its index.
func numbered(events []Event) []Event {
	for i, e := range events {
		e.Data["sequence_number"] = i
	}
	return events
}

// usageJSON is u as the Responses API's usage object.
func usageJSON(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.InputTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CachedTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens":          u.TotalTokens,
	}
}
