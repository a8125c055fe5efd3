// Package chatfallback answers a prompt on an OpenAI-compatible chat completions provider
// (POST {BaseURL}/chat/completions), streamed, text only.
//
// When codex's own provider is out of quota, the agent host retries the user's turn once on a
// configured fallback provider. Codex no longer speaks chat completions, so for a provider of kind
// "chat" the host calls it directly through [Stream], with the conversation so far as context. The
// fallback runs no tools: it only answers with text.
//
// HTTP and server-sent events go through the official OpenAI Go SDK, with no retries and without the
// SDK's OPENAI_* environment defaults, so a local provider never receives an ambient OpenAI key.
package chatfallback

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// A Message is one message of the conversation sent as context.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string // the text
}

// A Request says which provider to ask and what.
type Request struct {
	BaseURL string    // the API's base URL, e.g. "http://127.0.0.1:PORT/v1"
	Model   string    // the model to ask
	APIKey  string    // sent as "Authorization: Bearer KEY"; empty sends no Authorization (local servers)
	History []Message // the transcript so far, already shaped as chat messages, oldest first
	Prompt  string    // the user's new message, sent last
	System  string    // an optional system prompt, sent first
}

// Usage is the token usage the provider reported for the answer.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
	TotalTokens      int64
}

// A Response is the provider's answer.
type Response struct {
	Text  string // the whole answer: the content deltas concatenated
	Usage Usage  // zero if the provider reported none
	Model string // the model the provider said answered; Request.Model if it said none
}

// Stream sends req as one streamed chat completion (stream: true, stream_options.include_usage:
// true) and calls onDelta, unless it is nil, with each non-empty content delta of the answer, in
// order, as it arrives. It returns the whole answer.
//
// It does not retry. A non-2xx answer, a stream that breaks, carries an error or ends before its
// finish reason, and an empty answer are errors; they start with `chat fallback "BASEURL":`, name
// the HTTP status when there is one (wrapping the SDK's *openai.Error), and say what to do next.
// When ctx ends, Stream returns promptly with an error wrapping ctx.Err(). On an error, the
// Response holds what arrived before it.
func Stream(ctx context.Context, req Request, onDelta func(string)) (Response, error) {
	resp := Response{Model: req.Model}
	msgs, err := messages(req)
	if err != nil {
		return resp, req.errorf("%w", err)
	}

	opts := []option.RequestOption{
		option.WithBaseURL(req.BaseURL),
		option.WithMaxRetries(0),
	}
	if req.APIKey != "" {
		opts = append(opts, option.WithAPIKey(req.APIKey))
	}
	// The service, not openai.NewClient: the client would add OPENAI_API_KEY, OPENAI_ORG_ID and the
	// like from the environment, which belong to OpenAI, not to the fallback provider.
	chat := openai.NewChatCompletionService(opts...)
	var httpResp *http.Response
	stream := chat.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      msgs,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}, option.WithResponseInto(&httpResp))
	defer stream.Close()

	var text, refusal strings.Builder
	chunks := 0
	finish := ""
	for stream.Next() {
		chunk := stream.Current()
		chunks++
		if chunk.Model != "" {
			resp.Model = chunk.Model
		}
		if chunk.JSON.Usage.Valid() {
			u := chunk.Usage
			resp.Usage = Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
		}
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			if d := c.Delta.Content; d != "" {
				text.WriteString(d)
				resp.Text = text.String()
				if onDelta != nil {
					onDelta(d)
				}
			}
			refusal.WriteString(c.Delta.Refusal)
			if c.FinishReason != "" {
				finish = c.FinishReason
			}
		}
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return resp, req.errorf("%w", ctx.Err())
		}
		if httpResp == nil || httpResp.StatusCode >= 300 {
			return resp, req.requestError(err, httpResp)
		}
		var serr *ssestream.StreamError
		if errors.As(err, &serr) {
			return resp, req.errorf("the provider sent an error mid-stream: %w: try again later", err)
		}
		return resp, req.errorf("the stream broke: %w: try again", err)
	}
	if ctx.Err() != nil {
		return resp, req.errorf("%w", ctx.Err())
	}
	switch {
	case chunks == 0:
		ct := ""
		if httpResp != nil {
			ct = httpResp.Header.Get("Content-Type")
		}
		return resp, req.errorf("no answer: the response held no stream chunks (Content-Type %q): check that the base URL points at an OpenAI-compatible API", ct)
	case finish == "":
		return resp, req.errorf("the stream ended before the answer finished: try again")
	case strings.TrimSpace(resp.Text) == "" && refusal.Len() > 0:
		return resp, req.errorf("the model refused: %s", refusal.String())
	case strings.TrimSpace(resp.Text) == "":
		return resp, req.errorf("empty answer (finish reason %q): try again, or check the model", finish)
	}
	return resp, nil
}

// messages returns the chat messages of req: the system prompt, the history, then the prompt.
func messages(req Request) ([]openai.ChatCompletionMessageParamUnion, error) {
	if req.BaseURL == "" {
		return nil, errors.New("no base URL: configure the provider's base URL, e.g. http://127.0.0.1:8080/v1")
	}
	if req.Model == "" {
		return nil, errors.New("no model: configure the provider's model")
	}
	if req.Prompt == "" {
		return nil, errors.New("empty prompt: nothing to ask")
	}
	var msgs []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		msgs = append(msgs, openai.SystemMessage(req.System))
	}
	for i, m := range req.History {
		switch m.Role {
		case "system":
			msgs = append(msgs, openai.SystemMessage(m.Content))
		case "user":
			msgs = append(msgs, openai.UserMessage(m.Content))
		case "assistant":
			msgs = append(msgs, openai.AssistantMessage(m.Content))
		default:
			return nil, fmt.Errorf("history message %d has role %q: want system, user or assistant", i, m.Role)
		}
	}
	return append(msgs, openai.UserMessage(req.Prompt)), nil
}

// errorf returns an error prefixed with `chat fallback "BASEURL": `.
func (req Request) errorf(format string, args ...any) error {
	return fmt.Errorf("chat fallback %q: "+format, append([]any{req.BaseURL}, args...)...)
}

// requestError describes err, the failure of the request before any chunk arrived; res is the HTTP
// response, if there was one.
func (req Request) requestError(err error, res *http.Response) error {
	var apiErr *openai.Error
	status := 0
	detail := ""
	if errors.As(err, &apiErr) {
		status, detail = apiErr.StatusCode, apiErr.Message
		if res == nil {
			res = apiErr.Response
		}
	}
	if res != nil && res.StatusCode >= 300 {
		status = res.StatusCode
		if detail == "" {
			detail = bodySnippet(res)
		}
	}
	if status == 0 {
		return req.errorf("cannot reach the provider: %w: check that it is running and that the base URL is right", err)
	}
	statusText := strings.TrimSpace(fmt.Sprintf("%d %s", status, http.StatusText(status)))
	if detail != "" {
		statusText += ": " + detail
	}
	if apiErr != nil {
		err = apiErr
	}
	return &statusError{msg: req.errorf("%s: %s", statusText, hint(status)).Error(), err: err}
}

// A statusError is a non-2xx answer: its text names the status, and it wraps the SDK's error.
type statusError struct {
	msg string
	err error
}

func (e *statusError) Error() string { return e.msg }
func (e *statusError) Unwrap() error { return e.err }

// hint says what to do about an HTTP error status.
func hint(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "check the provider's API key"
	case status == http.StatusNotFound:
		return "check the base URL (it usually ends in /v1) and the model name"
	case status == http.StatusTooManyRequests:
		return "the provider is rate limited or out of quota too: wait, or configure another fallback"
	case status >= 500:
		return "the provider failed: try again later"
	case status >= 400:
		return "the provider rejected the request: check the model name and the provider's configuration"
	}
	return "check the provider's configuration"
}

// bodySnippet returns the start of res's body, on one line, or "".
func bodySnippet(res *http.Response) string {
	if res.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, 200))
	return strings.Join(strings.Fields(string(b)), " ")
}
