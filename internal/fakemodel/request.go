package fakemodel

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// A Request is one POST /v1/responses the server received, parsed. Fields it does not know are
// only in Body.
type Request struct {
	Model  string      // "model"
	Input  []Item      // "input", in order
	Tools  []string    // the names of the offered tools ("exec_command", "apply_patch", ...)
	Stream bool        // "stream"
	Header http.Header // the HTTP request header
	Body   []byte      // the raw request body
}

// An Item is one element of a request's input.
type Item struct {
	Type      string // "message", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "reasoning", ...
	Role      string // for messages: "user", "assistant", "developer", ...
	Text      string // for messages: the text of all content parts, concatenated
	CallID    string // for tool calls and their outputs
	Name      string // for tool calls: the tool's name
	Arguments string // for function_call: the JSON arguments; for custom_tool_call: the input
	Output    string // for tool outputs: the output text
}

// IsToolOutput reports whether the item is the output of a tool call.
func (it Item) IsToolOutput() bool {
	return it.Type == "function_call_output" || it.Type == "custom_tool_call_output"
}

// Last returns the newest input item, and false if there is none.
func (r Request) Last() (Item, bool) {
	if len(r.Input) == 0 {
		return Item{}, false
	}
	return r.Input[len(r.Input)-1], true
}

// UserText returns the text of the newest user message in the input, or "".
func (r Request) UserText() string {
	for i := len(r.Input) - 1; i >= 0; i-- {
		if it := r.Input[i]; it.Type == "message" && it.Role == "user" {
			return it.Text
		}
	}
	return ""
}

// HasTool reports whether the request offers the tool with this name.
func (r Request) HasTool(name string) bool {
	return slices.Contains(r.Tools, name)
}

// parseRequest decodes a Responses API request body leniently: what does not parse is left out.
func parseRequest(body []byte, header http.Header) Request {
	req := Request{Header: header, Body: body}
	var raw struct {
		Model  string            `json:"model"`
		Stream bool              `json:"stream"`
		Input  json.RawMessage   `json:"input"`
		Tools  []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(body, &raw) != nil {
		return req
	}
	req.Model = raw.Model
	req.Stream = raw.Stream
	req.Input = parseInput(raw.Input)
	for _, t := range raw.Tools {
		var tool struct {
			Type     string `json:"type"`
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(t, &tool) != nil {
			continue
		}
		switch {
		case tool.Name != "":
			req.Tools = append(req.Tools, tool.Name)
		case tool.Function.Name != "":
			req.Tools = append(req.Tools, tool.Function.Name)
		default:
			req.Tools = append(req.Tools, tool.Type)
		}
	}
	return req
}

// parseInput decodes "input", which is either a string (one user message) or a list of items.
func parseInput(data json.RawMessage) []Item {
	var s string
	if json.Unmarshal(data, &s) == nil {
		return []Item{{Type: "message", Role: "user", Text: s}}
	}
	var raws []json.RawMessage
	if json.Unmarshal(data, &raws) != nil {
		return nil
	}
	items := make([]Item, 0, len(raws))
	for _, r := range raws {
		var it struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Input     string          `json:"input"`
			Output    json.RawMessage `json:"output"`
		}
		if json.Unmarshal(r, &it) != nil {
			continue
		}
		if it.Type == "" && it.Role != "" {
			it.Type = "message"
		}
		item := Item{Type: it.Type, Role: it.Role, CallID: it.CallID, Name: it.Name, Arguments: it.Arguments}
		if it.Type == "custom_tool_call" {
			item.Arguments = it.Input
		}
		item.Text = contentText(it.Content)
		item.Output = contentText(it.Output)
		items = append(items, item)
	}
	return items
}

// contentText returns the text of a content value: a string, or a list of parts with "text"
// members (input_text, output_text, ...), concatenated.
func contentText(data json.RawMessage) string {
	if len(data) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(data, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(data, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	var obj struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(data, &obj) == nil && len(obj.Content) > 0 {
		return contentText(obj.Content)
	}
	return ""
}
