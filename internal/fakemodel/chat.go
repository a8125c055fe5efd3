package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// DefaultChatText is the answer to a chat completion when nothing is queued.
const DefaultChatText = "Hello from the fake chat model."

// defaultChatReply answers a chat completion when nothing is queued.
func defaultChatReply(ChatRequest) Reply { return Message(DefaultChatText) }

// A ChatRequest is one POST /v1/chat/completions the server received, parsed.
type ChatRequest struct {
	Model        string        // "model"
	Messages     []ChatMessage // "messages", in order
	Stream       bool          // "stream"
	IncludeUsage bool          // "stream_options": {"include_usage": true}
	Header       http.Header   // the HTTP request header
	Body         []byte        // the raw request body
}

// A ChatMessage is one element of a chat completion request's messages.
type ChatMessage struct {
	Role    string // "system", "user", "assistant", "tool", ...
	Content string // the text: the string content, or the text parts concatenated
}

// EnqueueChat queues replies for the next POST /v1/chat/completions requests, one reply per
// request, in order. The queue is separate from the one of [Server.Enqueue]. A [Message] answers
// with its text, an [HTTPError] or [UsageLimit] with its status and body, a [Failed] with a 500
// error, a [Hang] with nothing, and an [Exec] or [Patch] with a tool call of exec_command (arguments
// {"cmd": ...}) or apply_patch (arguments {"input": ...}).
func (s *Server) EnqueueChat(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatQueue = append(s.chatQueue, replies...)
}

// SetChatDefault sets the function that answers a chat completion when its queue is empty; nil
// restores the default, Message([DefaultChatText]).
func (s *Server) SetChatDefault(f func(ChatRequest) Reply) {
	if f == nil {
		f = defaultChatReply
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatDef = f
}

// ChatRequests returns every /v1/chat/completions request received so far, oldest first.
func (s *Server) ChatRequests() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatRequest(nil), s.chats...)
}

// WaitChatRequests blocks until at least n /v1/chat/completions requests arrived. It returns ctx's
// error if ctx ends first, and [ErrClosed] if the server closes first.
func (s *Server) WaitChatRequests(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return len(s.chats) >= n })
}

// parseChatRequest decodes a chat completions request body leniently.
func parseChatRequest(body []byte, header http.Header) ChatRequest {
	req := ChatRequest{Header: header, Body: body}
	var raw struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if json.Unmarshal(body, &raw) != nil {
		return req
	}
	req.Model, req.Stream, req.IncludeUsage = raw.Model, raw.Stream, raw.StreamOptions.IncludeUsage
	for _, m := range raw.Messages {
		req.Messages = append(req.Messages, ChatMessage{Role: m.Role, Content: contentText(m.Content)})
	}
	return req
}

// serveChat answers POST /v1/chat/completions with the next chat reply.
func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	req := parseChatRequest(body, r.Header.Clone())
	reply, n := take(s, &s.chats, &s.chatQueue, &s.chatDef, req)
	if !startReply(w, reply) {
		return
	}
	if reply.kind == KindFailed {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"type": "server_error", "message": reply.text}})
		w.Write(b)
		return
	}
	id := "chatcmpl-" + strconv.Itoa(n)
	if req.Stream {
		stream(s, w, r, reply, chatChunks(reply, id, req.Model, req.IncludeUsage))
		return
	}
	if reply.kind == KindHang {
		s.hang(r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(chatCompletion(reply, id, req.Model))
	w.Write(b)
}

// chatChunk is the data of one chunk of a streamed chat completion.
type chatChunk []byte

// WriteTo writes the chunk in SSE framing: "data: DATA\n\n".
func (c chatChunk) WriteTo(w io.Writer) (int64, error) {
	n, err := fmt.Fprintf(w, "data: %s\n\n", c)
	return int64(n), err
}

// chatToolCall returns the name and JSON arguments of the tool call a reply makes in a chat
// completion.
func chatToolCall(r Reply) (name, args string) {
	if r.kind == KindExec || r.kind == KindCall {
		return functionCall(r)
	}
	b, _ := json.Marshal(map[string]string{"input": r.text})
	return "apply_patch", string(b)
}

// chatUsage is u as the chat completions usage object.
func chatUsage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":             u.InputTokens,
		"completion_tokens":         u.OutputTokens,
		"total_tokens":              u.TotalTokens,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CachedTokens},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
	}
}

// chatCompletion is the non-streamed answer to a chat completion.
func chatCompletion(r Reply, id, model string) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil}
	finish := "stop"
	switch r.kind {
	case KindExec, KindCall, KindPatch:
		name, args := chatToolCall(r)
		msg["tool_calls"] = []any{map[string]any{
			"id": r.callID, "type": "function", "function": map[string]any{"name": name, "arguments": args},
		}}
		finish = "tool_calls"
	default:
		msg["content"] = r.Text()
	}
	c := map[string]any{
		"id":      id,
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
	}
	if !r.noUsage {
		c["usage"] = chatUsage(r.usage)
	}
	return c
}

// chatChunks returns the data of the SSE chunks that stream a chat completion, "[DONE]" last. A
// hanging reply is only its first chunk.
func chatChunks(r Reply, id, model string, includeUsage bool) []chatChunk {
	created := time.Now().Unix()
	var out []chatChunk
	add := func(choices []any, usage map[string]any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
	}
	add(choice(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	finish := "stop"
	switch r.kind {
	case KindHang:
		return out
	case KindExec, KindCall, KindPatch:
		name, args := chatToolCall(r)
		add(choice(map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "id": r.callID, "type": "function", "function": map[string]any{"name": name, "arguments": args},
		}}}, nil), nil)
		finish = "tool_calls"
	default:
		for _, c := range r.chunks {
			add(choice(map[string]any{"content": c}, nil), nil)
		}
	}
	add(choice(map[string]any{}, finish), nil)
	if includeUsage && !r.noUsage {
		add([]any{}, chatUsage(r.usage))
	}
	return append(out, chatChunk("[DONE]"))
}
