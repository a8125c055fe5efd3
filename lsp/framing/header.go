package framing

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// errLineTooLong reports a header line over Options.MaxHeaderLine.
var errLineTooLong = errors.New("header line too long")

// header is what a header block said.
type header struct {
	lines     int    // header lines before the blank line
	length    int64  // the Content-Length; -1 before one is seen
	bad       string // why the Content-Length is unusable, when it is
	oversized string // why the block is over the limits, when it is
}

// initialBody is the most a body's buffer starts with before its bytes arrive.
const initialBody = 64 << 10

// readBody reads exactly n bytes into a buffer that grows as they arrive (doubling, capped at n), so
// that a peer announcing 64 MiB and then stalling holds little memory.
func readBody(r io.Reader, n int64) ([]byte, error) {
	body := make([]byte, 0, min(n, initialBody))
	for int64(len(body)) < n {
		if len(body) == cap(body) {
			grown := make([]byte, len(body), min(2*int64(cap(body)), n))
			copy(grown, body)
			body = grown
		}
		m, err := r.Read(body[len(body):cap(body)])
		body = body[:len(body)+m]
		if err == io.EOF && int64(len(body)) < n {
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
	}
	return body, nil
}

// readFrame reads one frame. It returns its body and size, or a nil body when the frame was skipped
// (answered with an error where one is due). Its error is the input's or one wrapping ErrOversized.
func (s *stream) readFrame() ([]byte, int64, error) {
	h, n, err := s.readHeader()
	if err != nil {
		return nil, 0, err
	}
	switch {
	case h.lines == 0:
		return nil, 0, nil // a stray blank line between frames
	case h.bad == "" && s.opts.HandshakeMaxBody > 0 && h.length > s.opts.HandshakeMaxBody && !s.admitted.Load():
		// Not even skipped: a peer that has not proved itself gets no more of our time.
		return nil, 0, fmt.Errorf("%w: body of %d bytes over the limit of %d before the peer was admitted", ErrOversized, h.length, s.opts.HandshakeMaxBody)
	case h.oversized != "":
		if h.bad == "" && h.length > 0 {
			if err := s.discard(h.length); err != nil {
				return nil, 0, err
			}
		}
		s.log.Warn("framing: skipped a frame", "reason", h.oversized)
		s.replyError(nil, codeInvalidRequest, "invalid request: "+h.oversized)
		return nil, 0, nil
	case h.bad != "" || h.length < 0:
		reason := h.bad
		if reason == "" {
			reason = "no Content-Length header"
		}
		s.log.Warn("framing: skipped a header block", "reason", reason)
		return nil, 0, nil
	case h.length > s.opts.MaxBody:
		reason := fmt.Sprintf("body of %d bytes over the limit of %d", h.length, s.opts.MaxBody)
		if s.opts.CloseOnOversized {
			return nil, 0, fmt.Errorf("%w: %s", ErrOversized, reason)
		}
		if err := s.discard(h.length); err != nil {
			return nil, 0, err
		}
		s.log.Warn("framing: skipped a frame", "reason", reason)
		s.replyError(nil, codeInvalidRequest, "invalid request: "+reason)
		return nil, 0, nil
	}
	body, err := readBody(s.in, h.length)
	if err != nil {
		return nil, 0, eofInFrame(err)
	}
	return body, n + h.length, nil
}

// readHeader reads a header block up to and including its blank line, and its size in bytes.
func (s *stream) readHeader() (header, int64, error) {
	h := header{length: -1}
	var n int64
	for {
		line, err := s.readLine()
		n += int64(len(s.line))
		switch {
		case errors.Is(err, errLineTooLong):
			h.lines++
			h.oversized = fmt.Sprintf("header line over %d bytes", s.opts.MaxHeaderLine)
			if s.opts.CloseOnOversized {
				return h, n, fmt.Errorf("%w: %s", ErrOversized, h.oversized)
			}
			continue
		case errors.Is(err, io.EOF) && h.lines == 0 && len(line) == 0:
			return h, n, io.EOF // the input ended between frames
		case err != nil:
			return h, n, eofInFrame(err)
		case len(line) == 0:
			return h, n, nil
		}
		h.lines++
		if h.lines > maxHeaderLines && h.oversized == "" {
			h.oversized = fmt.Sprintf("header block over %d lines", maxHeaderLines)
			if s.opts.CloseOnOversized {
				return h, n, fmt.Errorf("%w: %s", ErrOversized, h.oversized)
			}
		}
		parseHeaderLine(&h, line)
	}
}

// parseHeaderLine records what one header line says. Headers other than Content-Length are ignored.
//
// A line that is no header but ends in a Content-Length — a skipped body running into the next
// frame's header — counts as that header and replaces what the lines before it said: that brings
// reading back in step after a frame with a missing or bad Content-Length.
func parseHeaderLine(h *header, line []byte) {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok || !equalFoldASCII(bytes.TrimSpace(name), contentLength) {
		i := lastIndexFoldASCII(line, contentLength+":")
		if i < 0 {
			return
		}
		if n, ok := parseLength(line[i+len(contentLength)+1:]); ok {
			h.length, h.bad = n, ""
		}
		return
	}
	n, ok := parseLength(value)
	switch {
	case h.bad != "":
	case !ok:
		h.bad = fmt.Sprintf("invalid Content-Length %.40q", bytes.TrimSpace(value))
	case h.length >= 0 && h.length != n:
		h.bad = "conflicting Content-Length headers"
	default:
		h.length = n
	}
}

// parseLength parses a Content-Length value: decimal digits, with spaces around them.
func parseLength(value []byte) (int64, bool) {
	value = bytes.TrimSpace(value)
	if len(value) == 0 || value[0] < '0' || value[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(value), 10, 64)
	return n, err == nil
}

// contentLength is the one header the stream reads, in lower case.
const contentLength = "content-length"

// readLine reads a line and returns it without its "\n" or "\r\n"; it is valid until the next call,
// and s.line holds the line as read. A line over Options.MaxHeaderLine gives errLineTooLong: with
// Options.CloseOnOversized at once, otherwise after the rest of the line has been read and dropped, a
// buffer at a time.
func (s *stream) readLine() ([]byte, error) {
	limit := s.opts.MaxHeaderLine + 2 // the line and its CRLF
	s.line = s.line[:0]
	tooLong := false
	for {
		chunk, err := s.in.ReadSlice('\n')
		if !tooLong && len(s.line)+len(chunk) > limit {
			tooLong = true
			if s.opts.CloseOnOversized {
				return nil, errLineTooLong
			}
		}
		if !tooLong {
			s.line = append(s.line, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return s.line, err
		case tooLong:
			return nil, errLineTooLong
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(s.line, []byte("\n")), []byte("\r"))
		if len(line) > s.opts.MaxHeaderLine {
			return nil, errLineTooLong
		}
		return line, nil
	}
}

// discard reads and drops n bytes of input in small chunks.
func (s *stream) discard(n int64) error {
	if _, err := io.CopyN(io.Discard, s.in, n); err != nil {
		return eofInFrame(err)
	}
	return nil
}

// eofInFrame turns io.EOF, met inside a frame, into io.ErrUnexpectedEOF.
func eofInFrame(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// equalFoldASCII reports whether b equals the lower-case ASCII string lower, ignoring ASCII case.
func equalFoldASCII(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// lastIndexFoldASCII returns the index of the last instance of the lower-case ASCII string lower in
// b, ignoring ASCII case, or -1.
func lastIndexFoldASCII(b []byte, lower string) int {
	for i := len(b) - len(lower); i >= 0; i-- {
		if equalFoldASCII(b[i:i+len(lower)], lower) {
			return i
		}
	}
	return -1
}
