package framing

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// frame returns body with a Content-Length header.
func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// fakeConn reads from r and keeps what is written to it.
type fakeConn struct {
	r      io.Reader
	mu     sync.Mutex
	out    bytes.Buffer
	closed bool
}

func (c *fakeConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *fakeConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}

func (c *fakeConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

// written returns a copy of what was written.
func (c *fakeConn) written() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.out.Bytes())
}

// newTestStream returns a stream reading input.
func newTestStream(input io.Reader, opts Options) (*stream, *fakeConn) {
	conn := &fakeConn{r: input}
	return NewStream(conn, opts).(*stream), conn
}

// readAll reads messages until Read fails, and returns them summed up and Read's error.
func readAll(t testing.TB, s *stream) ([]string, error) {
	t.Helper()
	var got []string
	for {
		msg, _, err := s.Read(context.Background())
		if err != nil {
			return got, err
		}
		got = append(got, summary(msg))
	}
}

// summary describes a message in a line.
func summary(msg jsonrpc2.Message) string {
	switch m := msg.(type) {
	case *jsonrpc2.Call:
		return fmt.Sprintf("call %s %q %s", m.Method(), m.ID(), absentIfNull(m.Params()))
	case *jsonrpc2.Notification:
		return fmt.Sprintf("notify %s %s", m.Method(), absentIfNull(m.Params()))
	case *jsonrpc2.Response:
		return fmt.Sprintf("response %q %s %v", m.ID(), absentIfNull(m.Result()), m.Err())
	}
	return fmt.Sprintf("%T", msg)
}

// absentIfNull shows null params or results as absent ones: the stream reads an absent member as
// null (jsonrpc2's constructors marshal it), which every handler takes as it takes an absent one.
func absentIfNull(raw json.RawMessage) string {
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// reply is a response as written on the wire.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// String sums a reply up as "code id" or "result id".
func (r reply) String() string {
	if r.Error != nil {
		return fmt.Sprintf("%d %s", r.Error.Code, r.ID)
	}
	return fmt.Sprintf("result %s %s", r.ID, r.Result)
}

// parseFrames splits data into frames written as writeFrame writes them, and checks that each body
// is a JSON-RPC 2.0 response.
func parseFrames(data []byte) ([]reply, error) {
	var replies []reply
	in := bufio.NewReader(bytes.NewReader(data))
	for {
		r, err := readReply(in)
		if errors.Is(err, io.EOF) {
			return replies, nil
		}
		if err != nil {
			return replies, err
		}
		replies = append(replies, r)
	}
}

// errorPrefixes starts the messages of the errors the stream answers with.
var errorPrefixes = map[int]string{codeParseError: "parse error: ", codeInvalidRequest: "invalid request: "}

// readReply reads one frame from in and decodes it as a response; io.EOF at the end of the input.
func readReply(in *bufio.Reader) (reply, error) {
	var r reply
	line, err := in.ReadString('\n')
	if errors.Is(err, io.EOF) && line == "" {
		return r, io.EOF
	}
	if err != nil {
		return r, fmt.Errorf("reading a header: %w", err)
	}
	value, ok := strings.CutPrefix(line, "Content-Length: ")
	if !ok || !strings.HasSuffix(value, "\r\n") {
		return r, fmt.Errorf("bad header line %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSuffix(value, "\r\n"))
	if err != nil {
		return r, fmt.Errorf("bad Content-Length in %q", line)
	}
	if blank, err := in.ReadString('\n'); err != nil || blank != "\r\n" {
		return r, fmt.Errorf("no blank line after the header: %q", blank)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(in, body); err != nil {
		return r, fmt.Errorf("reading a body: %w", err)
	}
	if !json.Valid(body) {
		return r, fmt.Errorf("body is not JSON: %q", body)
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return r, fmt.Errorf("body is not an object: %q", body)
	}
	if r.JSONRPC != "2.0" || r.ID == nil || (r.Error == nil) == (r.Result == nil) {
		return r, fmt.Errorf("body is not a JSON-RPC response: %q", body)
	}
	if r.Error != nil && !strings.HasPrefix(r.Error.Message, errorPrefixes[r.Error.Code]) {
		return r, fmt.Errorf("error message %q does not start with %q", r.Error.Message, errorPrefixes[r.Error.Code])
	}
	return r, nil
}

// replies sums up the responses written to conn.
func replies(t testing.TB, conn *fakeConn) []string {
	t.Helper()
	rs, err := parseFrames(conn.written())
	if err != nil {
		t.Fatalf("written frames: %v", err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// repeatReader reads n copies of a byte without holding them.
type repeatReader struct {
	n     int64
	b     byte
	block []byte // copies of b to copy from
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	if len(r.block) == 0 || r.block[0] != r.b {
		r.block = bytes.Repeat([]byte{r.b}, 32<<10)
	}
	n := 0
	for n < len(p) {
		n += copy(p[n:], r.block)
	}
	r.n -= int64(n)
	return n, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
