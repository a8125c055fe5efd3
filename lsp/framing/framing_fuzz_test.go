package framing

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// FuzzFraming feeds arbitrary bytes to a stream as its input, with small limits (so that the
// fuzzer reaches them), skipping oversized frames and closing on them. Read must not panic and must end, with io.EOF or
// io.ErrUnexpectedEOF (or ErrOversized when closing on them), and never return more messages than
// the input has bytes. Every call read is answered through Write, and everything written must be
// well-formed frames of JSON-RPC responses, with no made-up ID left at the end.
func FuzzFraming(f *testing.F) {
	for _, seed := range []string{
		"",
		"\r\n",
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":null}}`),
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"Content-Length: 5\r\n\r\n"}}`),
		frame(`{"jsonrpc":"2.0","id":"s","result":[1,2]}`) + frame(`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}`),
		frame(`{"jsonrpc":"2.0","id":1099511627776,"method":"big"}`),
		frame(`{"jsonrpc":"2.0","id":"","method":"empty"}`) + frame(`{"jsonrpc":"2.0","id":"framing-id:1","method":"m"}`),
		frame(`{"jsonrpc":"2.0","id":7,"method":"x","params":{`),
		frame(`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`) + frame(`{"jsonrpc":"2.0","id":1.5,"method":"x"}`),
		frame(`{"jsonrpc":"2.0","id":4}`) + frame(`[1]`) + frame(`null`),
		"Content-Length: -5\r\n\r\n{}" + frame(`{"method":"a"}`),
		"Content-Type: x\r\n\r\n{}Content-Length: 14\r\n\r\n" + `{"method":"a"}`,
		"content-length: 14\n\n" + `{"method":"a"}`,
		"Content-Length: 600\r\n\r\n" + strings.Repeat("x", 600) + frame(`{"method":"a"}`),
		"X: " + strings.Repeat("x", 100) + "\r\n\r\n" + frame(`{"method":"a"}`),
		strings.Repeat("X: y\r\n", 40) + "\r\n",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Length: 5\r\n\r\n{",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		skipping := Options{MaxHeaderLine: 64, MaxBody: 512}
		closing := skipping
		closing.CloseOnOversized = true
		for _, opts := range []Options{skipping, closing} {
			s, conn := newTestStream(bytes.NewReader(input), opts)
			err := readAnswering(t, s, len(input))
			switch {
			case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			case opts.CloseOnOversized && errors.Is(err, ErrOversized):
			default:
				t.Fatalf("Read ended with %v, want the end of the input", err)
			}
			if _, err := parseFrames(conn.written()); err != nil {
				t.Fatalf("written frames: %v", err)
			}
			if len(s.ids) != 0 {
				t.Fatalf("%d made-up IDs left", len(s.ids))
			}
		}
	})
}

// readAnswering reads until Read fails, answers every call with its params, and returns Read's
// error. It fails t if Read returns more than limit messages.
func readAnswering(t *testing.T, s *stream, limit int) error {
	ctx := context.Background()
	for n := 0; ; n++ {
		msg, _, err := s.Read(ctx)
		if err != nil {
			return err
		}
		if n >= limit {
			t.Fatalf("read more messages than the input has bytes")
		}
		if call, ok := msg.(*jsonrpc2.Call); ok {
			resp, err := jsonrpc2.NewResponse(call.ID(), call.Params(), nil)
			if err != nil {
				t.Fatalf("making a response: %v", err)
			}
			if _, err := s.Write(ctx, resp); err != nil {
				t.Fatalf("writing a response to %s: %v", summary(msg), err)
			}
		}
	}
}
