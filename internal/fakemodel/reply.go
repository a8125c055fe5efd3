package fakemodel

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Usage is the token usage a completed reply reports, in the shape of the Responses API's usage
// object. InputTokens includes CachedTokens and OutputTokens includes ReasoningTokens, as in the API.
type Usage struct {
	InputTokens     int64
	CachedTokens    int64
	OutputTokens    int64
	ReasoningTokens int64
	TotalTokens     int64
}

// DefaultUsage is the usage every completed reply reports unless it says otherwise.
var DefaultUsage = Usage{InputTokens: 1200, CachedTokens: 1000, OutputTokens: 34, ReasoningTokens: 7, TotalTokens: 1234}

// Kind says what a Reply does.
type Kind int

// The kinds of Reply.
const (
	KindMessage   Kind = iota // an assistant message
	KindExec                  // a function_call to exec_command
	KindPatch                 // a custom_tool_call to apply_patch
	KindFailed                // a stream ending in response.failed
	KindHTTPError             // a plain HTTP error status, no stream
	KindHang                  // response.created, then nothing until the client or the server goes away
	KindCall                  // a function_call to any tool, with JSON arguments
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindMessage:
		return "message"
	case KindExec:
		return "exec"
	case KindPatch:
		return "patch"
	case KindFailed:
		return "failed"
	case KindHTTPError:
		return "http-error"
	case KindHang:
		return "hang"
	case KindCall:
		return "call"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// A Reply is one scripted answer to one request. It is a value: build it with one of the
// constructors ([Message], [Exec], [Call], [Patch], [Failed], [HTTPError], [UsageLimit], [Hang]) and adjust
// it with its With methods, which return a modified copy.
type Reply struct {
	kind      Kind
	chunks    []string // KindMessage: the text deltas, in order
	text      string   // KindExec: the command; KindCall: the arguments; KindPatch: the patch; KindFailed: the error message
	tool      string   // KindCall: the tool's name
	namespace string   // KindCall: the namespace the tool is in, if any
	status    int      // KindHTTPError
	body      string   // KindHTTPError
	header    http.Header
	callID    string // KindExec, KindCall, KindPatch: empty means the server assigns call_N
	usage     Usage
	noUsage   bool
	reasoning string        // a reasoning summary streamed before the output, if not empty
	pace      time.Duration // a pause after each streamed frame (WithPace)
}

// WithPace streams the reply with a pause of d after each frame, as a slow model does: an editor
// test can then watch an answer grow.
func (r Reply) WithPace(d time.Duration) Reply {
	r.pace = d
	return r
}

// Message is an assistant message whose text is streamed as several response.output_text.delta
// events, split at word boundaries.
func Message(text string) Reply {
	return Reply{kind: KindMessage, chunks: splitChunks(text, maxChunks), usage: DefaultUsage}
}

// MessageChunks is an assistant message streamed as exactly these deltas, in order. Its text is
// their concatenation.
func MessageChunks(chunks ...string) Reply {
	return Reply{kind: KindMessage, chunks: append([]string(nil), chunks...), usage: DefaultUsage}
}

// Exec is a function_call of the exec_command tool with the arguments {"cmd": cmd}. Unless
// [Reply.WithCallID] says otherwise, the server gives it a fresh call id: call_1, call_2, ...
func Exec(cmd string) Reply {
	return Reply{kind: KindExec, text: cmd, usage: DefaultUsage}
}

// Call is a function_call of the tool name with arguments, a JSON object, as they are: for tools
// other than exec_command, such as codex's request_user_input, or an MCP server's tool (with
// [Reply.WithNamespace]). Unless [Reply.WithCallID] says otherwise, the server gives it a fresh
// call id: call_1, call_2, ...
func Call(name, arguments string) Reply {
	return Reply{kind: KindCall, tool: name, text: arguments, usage: DefaultUsage}
}

// WithNamespace returns a copy of a [Call] whose function is in namespace ns, as the Responses
// API names a deferred tool: codex 0.171.0 offers an MCP server's tools that way, the tool TOOL
// of the server SERVER being the function TOOL in the namespace mcp__SERVER.
func (r Reply) WithNamespace(ns string) Reply {
	r.namespace = ns
	return r
}

// Patch is a custom_tool_call of the apply_patch tool whose input is patch, a text in codex's
// patch format (see [AddFilePatch]). Unless [Reply.WithCallID] says otherwise, the server gives it
// a fresh call id: call_1, call_2, ...
func Patch(patch string) Reply {
	return Reply{kind: KindPatch, text: patch, usage: DefaultUsage}
}

// AddFilePatch returns an apply_patch text that creates the file at path (relative to the working
// directory) holding content.
func AddFilePatch(path, content string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: ")
	b.WriteString(path)
	b.WriteString("\n")
	if content != "" {
		for line := range strings.SplitSeq(strings.TrimSuffix(content, "\n"), "\n") {
			b.WriteString("+")
			b.WriteString(line)
			b.WriteString("\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// UpdateFilePatch returns an apply_patch text that changes the file at path (relative to the
// working directory): the lines of old, which must be in the file as whole lines, become the lines
// of replacement.
func UpdateFilePatch(path, old, replacement string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: ")
	b.WriteString(path)
	b.WriteString("\n@@\n")
	for _, side := range []struct{ sign, text string }{{"-", old}, {"+", replacement}} {
		for line := range strings.SplitSeq(strings.TrimSuffix(side.text, "\n"), "\n") {
			b.WriteString(side.sign)
			b.WriteString(line)
			b.WriteString("\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// Failed is a stream that starts normally and ends in a response.failed event carrying message.
// Codex reports it as "stream disconnected before completion: <message>".
func Failed(message string) Reply {
	return Reply{kind: KindFailed, text: message, usage: DefaultUsage}
}

// HTTPError is a plain HTTP answer with the given status and body (served as application/json)
// instead of an event stream.
func HTTPError(status int, body string) Reply {
	return Reply{kind: KindHTTPError, status: status, body: body}
}

// UsageLimitMessage is the message of the [UsageLimit] error body. Codex does not show it: it shows
// its own usage-limit text.
const UsageLimitMessage = "The usage limit has been reached"

// UsageLimit is the HTTP 429 that OpenAI sends when an account ran out of usage:
// {"error":{"type":"usage_limit_reached","plan_type":"plus",...}}. The type is what counts: codex
// 0.171.0 classifies it as usageLimitExceeded and fails the turn at once (a 429 of another type is
// responseTooManyFailedAttempts); the plan type only picks its message ("You've hit your usage
// limit. Upgrade to Pro ..."). A "resets_at" (unix seconds) would add the time to try again.
func UsageLimit() Reply {
	body := fmt.Sprintf(`{"error":{"type":"usage_limit_reached","message":%q,"plan_type":"plus"}}`, UsageLimitMessage)
	return HTTPError(http.StatusTooManyRequests, body)
}

// Hang sends response.created and then nothing until the client disconnects or the server closes.
// Use it to test interrupts and kills.
func Hang() Reply {
	return Reply{kind: KindHang}
}

// Kind returns what the reply does.
func (r Reply) Kind() Kind { return r.kind }

// Text returns the message text of a [Message] reply, the command of an [Exec], the arguments of a
// [Call], the patch of a
// [Patch], the error message of a [Failed] and the body of an [HTTPError].
func (r Reply) Text() string {
	switch r.kind {
	case KindMessage:
		return strings.Join(r.chunks, "")
	case KindHTTPError:
		return r.body
	}
	return r.text
}

// WithUsage returns a copy of r that reports u when it completes.
func (r Reply) WithUsage(u Usage) Reply {
	r.usage = u
	r.noUsage = false
	return r
}

// WithoutUsage returns a copy of r whose response.completed carries no usage object, like a
// provider that does not report usage.
func (r Reply) WithoutUsage() Reply {
	r.noUsage = true
	return r
}

// WithReasoning returns a copy of a streamed reply ([Message], [Exec], [Call], [Patch]) that first streams
// a reasoning item whose summary is summary, as reasoning models do. Codex shows it as a reasoning
// item before the message or tool call.
func (r Reply) WithReasoning(summary string) Reply {
	r.reasoning = summary
	return r
}

// WithCallID returns a copy of a tool-call reply ([Exec], [Call], [Patch]) that uses id as its call id
// instead of a fresh one.
func (r Reply) WithCallID(id string) Reply {
	r.callID = id
	return r
}

// WithHeader returns a copy of r that sends the header key: value with its HTTP answer.
func (r Reply) WithHeader(key, value string) Reply {
	h := r.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	r.header = h
	return r
}

// maxChunks bounds how many deltas [Message] splits its text into; the last one holds the rest.
const maxChunks = 16

// splitChunks splits text after each run of spaces into at most max pieces whose concatenation is
// text. An empty text is one empty piece, so a message always has one delta.
func splitChunks(text string, max int) []string {
	var chunks []string
	rest := text
	for len(chunks) < max-1 {
		i := strings.IndexByte(rest, ' ')
		if i < 0 {
			break
		}
		j := i
		for j < len(rest) && rest[j] == ' ' {
			j++
		}
		if j == len(rest) {
			break
		}
		chunks = append(chunks, rest[:j])
		rest = rest[j:]
	}
	return append(chunks, rest)
}
