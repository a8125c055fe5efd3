// Package framing reads and writes LSP base-protocol frames ("Content-Length: N\r\n\r\n" and N
// bytes of JSON) as a jsonrpc2.Stream that bounds memory and survives bad input.
//
// The stream of go.lsp.dev/jsonrpc2 grows without bound on a long header line or a huge
// Content-Length, and its Read fails — ending the connection — on any body it cannot decode. The
// stream here reads a header line of at most Options.MaxHeaderLine bytes and a body of at most
// Options.MaxBody bytes. A bad frame is answered with a JSON-RPC error where the specification asks
// for one (-32700 Parse error, -32600 Invalid Request) or skipped, and reading goes on. Read returns
// an error only when the input ends or fails, or, with Options.CloseOnOversized, on a frame over the
// limits.
//
// jsonrpc2's ID holds an int32 or a string. A request whose id is a larger integer (or the empty
// string, which jsonrpc2 cannot tell from 0) reaches the caller with an ID made up by the stream;
// the response to it is written with the id the peer sent.
package framing

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
)

// The limits used where Options leaves them zero.
const (
	defaultMaxHeaderLine = 8 << 10  // 8 KiB
	defaultMaxBody       = 64 << 20 // 64 MiB
)

// maxHeaderLines bounds how many lines one header block may have.
const maxHeaderLines = 32

// JSON-RPC error codes the stream answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// Options bound a stream.
type Options struct {
	// MaxHeaderLine is the longest header line, without its line ending, in bytes (default 8 KiB).
	MaxHeaderLine int
	// MaxBody is the largest body in bytes (default 64 MiB).
	MaxBody int64
	// CloseOnOversized ends the stream (Read returns an error wrapping ErrOversized) on a header
	// line or body over the limits (used on TCP/unix sockets); without it the frame is skipped — its
	// bytes read and discarded in small chunks, never buffered — an error reply -32600 with id null
	// is written, and Read goes on.
	CloseOnOversized bool
	// HandshakeMaxBody, when positive, is the largest body read until the stream's Admit is called:
	// a larger one ends the stream (Read returns an error wrapping ErrOversized) as soon as its
	// header is read, whatever CloseOnOversized says. Sockets set it so that a peer that has not yet
	// proved itself cannot make the server hold MaxBody bytes per connection.
	HandshakeMaxBody int64
	// Logger receives a message for every frame skipped or answered with an error; nil discards.
	Logger *slog.Logger
}

// ErrOversized is wrapped by the error Read returns, with Options.CloseOnOversized, on a header line,
// header block or body over the limits.
var ErrOversized = errors.New("framing: frame over the size limits")

// stream is the jsonrpc2.Stream NewStream returns.
type stream struct {
	rwc  io.ReadWriteCloser
	in   *bufio.Reader
	opts Options
	log  *slog.Logger
	line []byte // the header line being read, reused

	admitted atomic.Bool // Admit was called: HandshakeMaxBody no longer applies

	writeMu sync.Mutex // serialises every write to rwc

	idMu sync.Mutex
	ids  map[jsonrpc2.ID]json.RawMessage // IDs made up by Read -> the id the peer sent
	seq  uint64                          // numbers the made-up IDs
}

// NewStream returns a jsonrpc2.Stream speaking the LSP base protocol on rwc within the bounds of
// opts. Like jsonrpc2's own streams it expects Read to be called from one goroutine; Write may be
// called from many.
func NewStream(rwc io.ReadWriteCloser, opts Options) jsonrpc2.Stream {
	if opts.MaxHeaderLine <= 0 {
		opts.MaxHeaderLine = defaultMaxHeaderLine
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = defaultMaxBody
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &stream{
		rwc:  rwc,
		in:   bufio.NewReader(rwc),
		opts: opts,
		log:  log,
		ids:  make(map[jsonrpc2.ID]json.RawMessage),
	}
}

// An Admitter lifts Options.HandshakeMaxBody. The streams NewStream returns are Admitters.
type Admitter interface {
	// Admit says the peer has proved itself: from the next frame on, Options.MaxBody applies.
	Admit()
}

// Admit lifts Options.HandshakeMaxBody. It may be called from any goroutine.
func (s *stream) Admit() { s.admitted.Store(true) }

// Read returns the next good message and the size of its frame in bytes. It answers or skips bad
// frames on the way; its error is the input's (io.EOF at the end, io.ErrUnexpectedEOF in the middle
// of a frame), the context's, or one wrapping ErrOversized.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		if err != nil {
			return nil, 0, err
		}
		if body == nil {
			continue
		}
		if msg := s.decode(body); msg != nil {
			return msg, n, nil
		}
	}
}

// Write writes msg as one frame. A response to a request whose id Read made up goes out with the id
// the peer sent.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data, err := marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	resp, isResponse := msg.(*jsonrpc2.Response)
	if !isResponse {
		return s.writeFrame(data)
	}
	raw, mapped := s.lookupID(resp.ID())
	if !mapped {
		return s.writeFrame(data)
	}
	defer s.forgetID(resp.ID())
	if data, err = replaceID(data, raw); err != nil {
		return 0, err
	}
	return s.writeFrame(data)
}

// marshal encodes msg. jsonrpc2's messages encode themselves (with segmentio's encoder): calling
// that directly skips encoding/json's reflection and its second pass over the output, a third of
// the cost of writing a progress report.
func marshal(msg jsonrpc2.Message) ([]byte, error) {
	if m, ok := msg.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return json.Marshal(msg)
}

// Close closes the underlying connection.
func (s *stream) Close() error {
	return s.rwc.Close()
}

// writeFrame writes data with its header in one write.
func (s *stream) writeFrame(data []byte) (int64, error) {
	frame := make([]byte, 0, len(data)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(data)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, data...)
	if err := s.write(frame); err != nil {
		return 0, err
	}
	return int64(len(frame)), nil
}

// write writes a whole frame.
func (s *stream) write(frame []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.rwc.Write(frame); err != nil {
		return fmt.Errorf("writing frame: %w", err)
	}
	return nil
}

// errorReply is a JSON-RPC error response.
type errorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"` // nil is written as null
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// replyError writes an error response to a bad frame; id is nil for null. A failed write is logged:
// reading goes on, and a dead connection shows as the end of the input.
func (s *stream) replyError(id json.RawMessage, code int, message string) {
	r := errorReply{JSONRPC: "2.0", ID: id}
	r.Error.Code, r.Error.Message = code, message
	data, err := json.Marshal(r)
	if err == nil {
		_, err = s.writeFrame(data)
	}
	if err != nil {
		s.log.Warn("framing: could not write an error reply", "code", code, "err", err)
	}
}
