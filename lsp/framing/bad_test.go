package framing

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// next is the good message each case of TestBadInput ends with, and what Read makes of it.
const (
	next     = `{"jsonrpc":"2.0","id":99,"method":"next"}`
	nextRead = `call next #99 `
)

// TestBadInput feeds a stream bad frames, each followed by a good one, and checks what Read returns
// (the good messages, then io.EOF) and what it answers.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		read    []string // besides the final good message
		replies []string
	}{
		{name: "good messages", input: frame(`{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":1}}`) +
			frame(`{"jsonrpc":"2.0","id":"s","method":"b"}`) + frame(`{"jsonrpc":"2.0","method":"c","params":[1]}`) +
			frame(`{"jsonrpc":"2.0","id":2,"result":{"y":2}}`) + frame(`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m"}}`),
			read: []string{`call a #1 {"x":1}`, `call b "s" `, `notify c [1]`, `response #2 {"y":2} <nil>`, `response #3  m`}},

		// Bodies that are not JSON.
		{name: "parse error with a number id", input: frame(`{"jsonrpc":"2.0","id":7,"method":"x","params":{`),
			replies: []string{`-32700 7`}},
		{name: "parse error with a string id", input: frame(`{"jsonrpc":"2.0","id":"a\"b","method":`),
			replies: []string{`-32700 "a\"b"`}},
		{name: "parse error with a big id", input: frame(`{"id":1099511627776,"method":"x"`),
			replies: []string{`-32700 1099511627776`}},
		{name: "parse error after nested values", input: frame(`{"params":{"a":[1,{"id":5}]},"id":6,]`),
			replies: []string{`-32700 6`}},
		{name: "parse error with trailing data", input: frame(`{"id":8,"method":"x"} {`),
			replies: []string{`-32700 8`}},
		{name: "parse error before the id", input: frame(`{"jsonrpc":"2.0",,"id":7}`)},
		{name: "parse error with an object id", input: frame(`{"id":{"a":1},"method":`)},
		{name: "parse error with no id", input: frame(`{"jsonrpc":"2.0","method":"x"`)},
		{name: "not JSON", input: frame(`hello`)},
		{name: "empty body", input: "Content-Length: 0\r\n\r\n"},

		// Ids that are no string or number.
		{name: "object id", input: frame(`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`), replies: []string{`-32600 null`}},
		{name: "array id", input: frame(`{"jsonrpc":"2.0","id":[1],"method":"x"}`), replies: []string{`-32600 null`}},
		{name: "bool id", input: frame(`{"jsonrpc":"2.0","id":true,"method":"x"}`), replies: []string{`-32600 null`}},
		{name: "fraction id", input: frame(`{"jsonrpc":"2.0","id":1.5,"method":"x"}`), replies: []string{`-32600 null`}},
		{name: "exponent id", input: frame(`{"jsonrpc":"2.0","id":1e3,"method":"x"}`), replies: []string{`-32600 null`}},
		{name: "object id, no method", input: frame(`{"jsonrpc":"2.0","id":{}}`), replies: []string{`-32600 null`}},
		{name: "null id is a notification", input: frame(`{"jsonrpc":"2.0","id":null,"method":"x"}`), read: []string{`notify x `}},

		// JSON that is no JSON-RPC message.
		{name: "array", input: frame(`[{"jsonrpc":"2.0","id":1,"method":"x"}]`)},
		{name: "string", input: frame(`"x"`)},
		{name: "null", input: frame(`null`)},
		{name: "no method or result, with an id", input: frame(`{"jsonrpc":"2.0","id":4}`), replies: []string{`-32600 4`}},
		{name: "no method or result, with a big id", input: frame(`{"jsonrpc":"2.0","id":4294967296}`), replies: []string{`-32600 4294967296`}},
		{name: "no method or result, no id", input: frame(`{"jsonrpc":"2.0"}`)},
		{name: "wrong version", input: frame(`{"jsonrpc":"1.0","id":5,"method":"x"}`), replies: []string{`-32600 5`}},
		{name: "wrong version, big id", input: frame(`{"jsonrpc":"1.0","id":5000000000,"method":"x"}`), replies: []string{`-32600 5000000000`}},
		{name: "wrong version, no id", input: frame(`{"jsonrpc":"1.0","method":"x"}`)},
		{name: "number method", input: frame(`{"jsonrpc":"2.0","id":6,"method":5}`), replies: []string{`-32600 6`}},
		{name: "empty method", input: frame(`{"jsonrpc":"2.0","id":"e","method":""}`), replies: []string{`-32600 "e"`}},
		{name: "response with an object id", input: frame(`{"jsonrpc":"2.0","id":{},"result":1}`)},
		{name: "response with a big id", input: frame(`{"jsonrpc":"2.0","id":4294967296,"result":1}`)},
		{name: "response with no id", input: frame(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`)},
		{name: "response with a bad error", input: frame(`{"jsonrpc":"2.0","id":3,"error":"boom"}`)},

		// Header blocks.
		{name: "no Content-Length", input: "Content-Type: application/json\r\n\r\n" + `{"jsonrpc":"2.0","method":"lost"}`},
		{name: "negative Content-Length", input: "Content-Length: -5\r\n\r\n" + `{"jsonrpc":"2.0","method":"lost"}`},
		{name: "Content-Length not a number", input: "Content-Length: abc\r\n\r\n" + `{"jsonrpc":"2.0","method":"lost"}`},
		{name: "Content-Length with a sign", input: "Content-Length: +5\r\n\r\n" + `{"jsonrpc":"2.0","method":"lost"}`},
		{name: "Content-Length too big for int64", input: "Content-Length: 99999999999999999999\r\n\r\n" + `{"method":"lost"}`},
		{name: "conflicting Content-Lengths", input: "Content-Length: 5\r\nContent-Length: 6\r\n\r\n" + `{"method":"lost"}`},
		{name: "no Content-Length, body with lines", input: "X: y\r\n\r\n{\n  \"method\": \"lost\"\n}"},
		{name: "no colon", input: "garbage\r\n\r\n"},
		{name: "garbage line before a header", input: "garbage\r\n" + frame(`{"jsonrpc":"2.0","method":"kept"}`),
			read: []string{`notify kept `}},
		{name: "stray blank lines", input: "\r\n\n\r\n" + frame(`{"jsonrpc":"2.0","method":"kept"}`) + "\r\n",
			read: []string{`notify kept `}},
		{name: "bare newlines, case, other headers", input: "content-length:  33 \nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n" +
			`{"jsonrpc":"2.0","method":"kept"}` + "CONTENT-LENGTH: 33\r\n\r\n" + `{"jsonrpc":"2.0","method":"also"}`,
			read: []string{`notify kept `, `notify also `}},
		{name: "repeated equal Content-Lengths", input: "Content-Length: 33\r\nContent-Length: 33\r\n\r\n" + `{"jsonrpc":"2.0","method":"kept"}`,
			read: []string{`notify kept `}},
		{name: "too many header lines", input: strings.Repeat("X-A: b\r\n", 40) + frame(`{"jsonrpc":"2.0","method":"lost"}`),
			replies: []string{`-32600 null`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, conn := newTestStream(strings.NewReader(tt.input+frame(next)), Options{})
			got, err := readAll(t, s)
			if !errors.Is(err, io.EOF) {
				t.Errorf("Read ended with %v, want io.EOF", err)
			}
			if want := append(slices.Clip(tt.read), nextRead); !slices.Equal(got, want) {
				t.Errorf("read\n%q\nwant\n%q", got, want)
			}
			if got := replies(t, conn); !slices.Equal(got, tt.replies) {
				t.Errorf("replies %q, want %q", got, tt.replies)
			}
			if len(s.ids) != 0 {
				t.Errorf("%d made-up IDs left", len(s.ids))
			}
		})
	}
}

// TestEndOfInput checks Read's error when the input ends between frames and inside one.
func TestEndOfInput(t *testing.T) {
	tests := []struct {
		input string
		want  error
	}{
		{"", io.EOF},
		{frame(`{"jsonrpc":"2.0","method":"x"}`), io.EOF},
		{"\r\n", io.EOF},
		{"Content-Length: 5", io.ErrUnexpectedEOF},
		{"Content-Length: 5\r\n", io.ErrUnexpectedEOF},
		{"Content-Length: 5\r\n\r\n{}", io.ErrUnexpectedEOF},
		{"Content-Length: 100000000\r\n\r\n{}", io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		s, _ := newTestStream(strings.NewReader(tt.input), Options{})
		if _, err := readAll(t, s); !errors.Is(err, tt.want) {
			t.Errorf("%q: Read ended with %v, want %v", tt.input, err, tt.want)
		}
	}
}
