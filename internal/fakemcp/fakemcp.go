// Package fakemcp is a scripted MCP server on stdio, for the tests that run the real codex: its
// one tool, ask, asks the user a question through MCP elicitation (elicitation/create, which codex
// passes to its client as mcpServer/elicitation/request) and returns what came back as the tool's
// output, so that a test sees the user's answer reach the server and then the model.
//
// The server is the test binary itself: a package that uses it calls [Main] first in its TestMain,
// and [Config] gives the config.toml lines that make codex start the test binary as the server.
// The server ends when codex closes its input, so it never outlives the codex that started it.
package fakemcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
)

// envServe, set to "1" in the server's environment (by codex, from the config [Config] writes),
// makes the test binary the server instead of running tests.
const envServe = "HERMES_FAKEMCP"

// ToolName is the name of the server's one tool; codex offers it to the model as
// mcp__<server>__ask.
const ToolName = "ask"

// Field is the one field of the form the tool asks the user to fill in.
const Field = "answer"

// maxLine bounds one message from codex.
const maxLine = 1 << 20

// Main serves MCP on stdin and stdout and exits, when the process was started as the server;
// otherwise it returns at once. Call it first in TestMain:
//
//	func TestMain(m *testing.M) {
//		fakemcp.Main()
//		...
//	}
func Main() {
	if os.Getenv(envServe) != "1" {
		return
	}
	if err := Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fakemcp:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Config returns the config.toml lines (key=value, as codex takes them after -c) that declare
// the server as the MCP server name: this test binary, started with [Main]'s environment. The
// argument -test.run=^$ makes the binary run no test should the environment not reach it.
func Config(name string) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("fakemcp: the test binary: %w", err)
	}
	key := "mcp_servers." + name
	return []string{
		key + ".command=" + strconv.Quote(exe),
		key + `.args=["-test.run=^$"]`,
		key + ".env={" + envServe + `="1"}`,
	}, nil
}

// Result is what the tool returns, as JSON text: the elicitation's answer as codex gave it, or
// the error codex answered with, and the server's process id, so that a test can check that the
// server ended with codex.
type Result struct {
	Action  string          `json:"action,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
	Error   string          `json:"error,omitempty"`
	Pid     int             `json:"pid"`
}

// message is one JSON-RPC 2.0 message, in either direction.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Serve speaks MCP (JSON-RPC 2.0, one message a line) on r and w until r ends. It answers
// initialize, ping, tools/list and tools/call; a call of the tool sends elicitation/create and is
// answered when its answer arrives. One goroutine does it all: the calls waiting for their
// elicitation are a map from the elicitation's id to the call's.
func Serve(r io.Reader, w io.Writer) error {
	in := bufio.NewScanner(r)
	in.Buffer(nil, maxLine)
	enc := json.NewEncoder(w) // one message, then "\n"
	send := func(m message) error {
		m.JSONRPC = "2.0"
		return enc.Encode(m)
	}
	waiting := make(map[string]json.RawMessage) // elicitation id -> tools/call id
	var asked int
	for in.Scan() {
		var m message
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			return fmt.Errorf("a message that is not JSON: %w", err)
		}
		var err error
		switch {
		case m.Method != "" && m.ID == nil: // a notification: nothing to answer
		case m.Method != "":
			var elicit *message
			elicit, err = answer(m, send)
			if elicit != nil {
				asked++
				id := "elicit-" + strconv.Itoa(asked)
				waiting[id] = m.ID
				elicit.ID = json.RawMessage(strconv.Quote(id))
				err = send(*elicit)
			}
		default: // the answer to an elicitation
			var id string
			_ = json.Unmarshal(m.ID, &id)
			call, ok := waiting[id]
			if !ok {
				return fmt.Errorf("an answer to %s, which was not asked", m.ID)
			}
			delete(waiting, id)
			err = send(message{ID: call, Result: toJSON(toolResult(elicited(m)))})
		}
		if err != nil {
			return err
		}
	}
	return in.Err()
}

// answer answers the request m with send, or returns the elicitation to send for it (a call of the
// tool).
func answer(m message, send func(message) error) (*message, error) {
	reply := message{ID: m.ID}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		reply.Result = toJSON(map[string]any{
			"protocolVersion": p.ProtocolVersion, // whatever codex speaks: the server is that simple
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "hermes-fakemcp", "version": "1"},
		})
	case "ping":
		reply.Result = toJSON(map[string]any{})
	case "tools/list":
		reply.Result = toJSON(map[string]any{"tools": []any{map[string]any{
			"name":        ToolName,
			"description": "Asks the user a question and returns the answer.",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"question": map[string]any{"type": "string"}},
				"required":   []string{"question"},
			},
		}}})
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Question string `json:"question"`
			} `json:"arguments"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || p.Name != ToolName {
			reply.Error = &rpcError{Code: -32602, Message: fmt.Sprintf("no tool %q", p.Name)}
			break
		}
		return &message{Method: "elicitation/create", Params: elicitation(p.Arguments.Question)}, nil
	default:
		reply.Error = &rpcError{Code: -32601, Message: "method not found: " + m.Method}
	}
	return nil, send(reply)
}

// elicitation is the params of the elicitation/create that asks question: a form of one required
// string field.
func elicitation(question string) json.RawMessage {
	return toJSON(map[string]any{
		"message": question,
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				Field: map[string]any{"type": "string", "title": "Answer", "description": "What to tell the agent"},
			},
			"required": []string{Field},
		},
	})
}

// toJSON is v as JSON; v is made here, of maps, slices and strings, and always encodes.
func toJSON(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

// elicited is the tool's result for the answer m to an elicitation.
func elicited(m message) Result {
	res := Result{Pid: os.Getpid()}
	if m.Error != nil {
		res.Error = m.Error.Message
		return res
	}
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		res.Error = "the elicitation's answer: " + err.Error()
		return res
	}
	res.Action, res.Content = r.Action, r.Content
	return res
}

// toolResult is res as a tools/call result: its JSON as one text part.
func toolResult(res Result) map[string]any {
	text, _ := json.Marshal(res)
	return map[string]any{
		"content": []any{map[string]any{"type": "text", "text": string(text)}},
		"isError": res.Error != "",
	}
}
