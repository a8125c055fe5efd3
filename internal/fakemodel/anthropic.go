package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The Anthropic Messages API (POST /v1/messages), as Claude Code and its ACP adapter call it with
// ANTHROPIC_BASE_URL set to [Server.AnthropicBaseURL]. Its replies have their own queue, like the
// chat completions': see [Server.EnqueueAnthropic].

// DefaultAnthropicModel is the model the fake names when a request names none.
const DefaultAnthropicModel = "claude-fake"

// An AnthropicRequest is one POST /v1/messages the server received, parsed. Fields it does not
// know are only in Body.
type AnthropicRequest struct {
	Model    string             // "model"
	System   string             // "system": the string, or the text blocks concatenated
	Messages []AnthropicMessage // "messages", in order
	Tools    []string           // the names of the offered tools ("Bash", "Edit", "Write", ...)
	Stream   bool               // "stream"
	Header   http.Header        // the HTTP request header
	Body     []byte             // the raw request body
}

// An AnthropicMessage is one element of a Messages API request's messages.
type AnthropicMessage struct {
	Role   string           // "user" or "assistant"
	Blocks []AnthropicBlock // its content: a string content is one text block
}

// An AnthropicBlock is one content block of a message.
type AnthropicBlock struct {
	Type      string // "text", "tool_use", "tool_result", "thinking", "image", ...
	Text      string // text: the text; tool_result: its text content, concatenated
	ID        string // tool_use: the call's id
	ToolUseID string // tool_result: the id of the call it answers
	Name      string // tool_use: the tool's name
	Input     string // tool_use: the JSON input
	IsError   bool   // tool_result: "is_error"
}

// UserText returns the text of the newest user message's text blocks, concatenated, or "". A user
// message that holds only tool results has no text: the one before it counts.
func (r AnthropicRequest) UserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		var b strings.Builder
		for _, bl := range m.Blocks {
			if bl.Type == "text" {
				b.WriteString(bl.Text)
			}
		}
		if b.Len() > 0 {
			return b.String()
		}
	}
	return ""
}

// ToolResult returns the newest block of the last message if it is a tool_result, and false
// otherwise: the request then follows a tool call.
func (r AnthropicRequest) ToolResult() (AnthropicBlock, bool) {
	if len(r.Messages) == 0 {
		return AnthropicBlock{}, false
	}
	blocks := r.Messages[len(r.Messages)-1].Blocks
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].Type == "tool_result" {
			return blocks[i], true
		}
	}
	return AnthropicBlock{}, false
}

// AnthropicBaseURL returns what ANTHROPIC_BASE_URL should be for a client to reach this server,
// "http://127.0.0.1:PORT" (the client adds /v1/messages).
func (s *Server) AnthropicBaseURL() string { return "http://" + s.ln.Addr().String() }

// EnqueueAnthropic queues replies for the next POST /v1/messages requests, one reply per request,
// in order; the queue is separate from the others. A [Message] answers with a text block (its
// chunks as text_delta events), a [Call] with a tool_use block of that tool whose input is its
// arguments, an [Exec] with a tool_use of Claude's Bash tool ({"command": cmd}), a [Failed] with
// an error event in the stream, an [HTTPError] with its status and body, and a [Hang] with
// message_start and then nothing. [Reply.WithReasoning] adds a thinking block first. A [Patch] has
// no Messages API form: it is answered 500.
func (s *Server) EnqueueAnthropic(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.anthropicQueue = append(s.anthropicQueue, replies...)
}

// SetAnthropicDefault sets the function that answers a Messages API request when its queue is
// empty; nil restores [DefaultAnthropicReply].
func (s *Server) SetAnthropicDefault(f func(AnthropicRequest) Reply) {
	if f == nil {
		f = DefaultAnthropicReply
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.anthropicDef = f
}

// DefaultAnthropicReply answers like [DefaultReply]: after a tool call, Message("Done. Tool said: "
// + the tool's result); otherwise Message("Done. Hello from the fake model.").
func DefaultAnthropicReply(r AnthropicRequest) Reply {
	if res, ok := r.ToolResult(); ok {
		return Message("Done. Tool said: " + res.Text)
	}
	return Message("Done. Hello from the fake model.")
}

// AnthropicRequests returns every /v1/messages request received so far, oldest first.
func (s *Server) AnthropicRequests() []AnthropicRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]AnthropicRequest(nil), s.anthropic...)
}

// WaitAnthropicRequests blocks until at least n /v1/messages requests arrived. It returns ctx's
// error if ctx ends first, and [ErrClosed] if the server closes first.
func (s *Server) WaitAnthropicRequests(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return len(s.anthropic) >= n })
}

// parseAnthropicRequest decodes a Messages API request body leniently: what does not parse is
// left out.
func parseAnthropicRequest(body []byte, header http.Header) AnthropicRequest {
	req := AnthropicRequest{Header: header, Body: body}
	var raw struct {
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if json.Unmarshal(body, &raw) != nil {
		return req
	}
	req.Model, req.Stream, req.System = raw.Model, raw.Stream, contentText(raw.System)
	for _, m := range raw.Messages {
		req.Messages = append(req.Messages, AnthropicMessage{Role: m.Role, Blocks: parseAnthropicBlocks(m.Content)})
	}
	for _, t := range raw.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	return req
}

// parseAnthropicBlocks decodes a message's content: a string, or a list of blocks.
func parseAnthropicBlocks(data json.RawMessage) []AnthropicBlock {
	var s string
	if json.Unmarshal(data, &s) == nil {
		return []AnthropicBlock{{Type: "text", Text: s}}
	}
	var raws []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		ID        string          `json:"id"`
		ToolUseID string          `json:"tool_use_id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
	}
	if json.Unmarshal(data, &raws) != nil {
		return nil
	}
	blocks := make([]AnthropicBlock, 0, len(raws))
	for _, b := range raws {
		bl := AnthropicBlock{Type: b.Type, Text: b.Text, ID: b.ID, ToolUseID: b.ToolUseID, Name: b.Name, IsError: b.IsError}
		switch b.Type {
		case "tool_use":
			bl.Input = string(b.Input)
		case "tool_result":
			bl.Text = contentText(b.Content)
		case "thinking":
			bl.Text = b.Thinking
		}
		blocks = append(blocks, bl)
	}
	return blocks
}

// serveAnthropic answers POST /v1/messages with the next Messages API reply.
func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	req := parseAnthropicRequest(body, r.Header.Clone())
	reply, n := take(s, &s.anthropic, &s.anthropicQueue, &s.anthropicDef, req)
	if !startReply(w, reply) {
		return
	}
	if reply.kind == KindPatch || (!req.Stream && reply.kind == KindFailed) {
		msg := reply.text
		if reply.kind == KindPatch {
			msg = "fakemodel: an apply_patch reply has no Messages API form"
		}
		writeAnthropicError(w, http.StatusInternalServerError, "api_error", msg)
		return
	}
	model := req.Model
	if model == "" {
		model = DefaultAnthropicModel
	}
	id := "msg_" + strconv.Itoa(n)
	if req.Stream {
		stream(s, w, r, reply, anthropicEvents(reply, id, model))
		return
	}
	if reply.kind == KindHang {
		s.hang(r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(anthropicMessage(reply, id, model))
	w.Write(b)
}

// serveAnthropicCountTokens answers POST /v1/messages/count_tokens with a token count of a
// quarter of the body's length: enough for a client that sizes its context.
func (s *Server) serveAnthropicCountTokens(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4+1)
}

// writeAnthropicError answers with a Messages API error object.
func writeAnthropicError(w http.ResponseWriter, status int, typ, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": message}})
	w.Write(b)
}
