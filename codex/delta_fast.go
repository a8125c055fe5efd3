package codex

// This file decodes the most frequent line codex writes — a streamed delta of an answer, of
// reasoning or of a command's output, most of a turn's notifications — in one pass over the line.
// The general path reads every line twice with a generic decoder (the JSON-RPC envelope, then the
// params into their type), and on a machine whose CPU features the Go runtime cannot use (no AVX:
// some virtual machines) each of those passes scans the bytes again at a byte at a time. Anything
// that is not plainly a delta goes to the general path, which gives the same result for the lines
// this file accepts (FuzzDecodeDelta holds it to that).

import (
	"bytes"
	"unicode/utf8"
	"unsafe"
)

// decodeDelta decodes line when it is a delta notification of the plain shape codex writes:
//
//	{"method":M,"params":{"threadId":S,"turnId":S,"itemId":S,"delta":S},"emittedAtMs":N}
//
// with M one of the delta methods, the members in any order, "emittedAtMs" (a non-negative integer)
// and any of the params' members absent, and the strings free of \u escapes and of bytes that are
// not UTF-8. It reports false for anything else. line is the reader's buffer: the notification's
// params are a copy, and the decoded strings point into that copy (never written again), as the
// general path's do.
func decodeDelta(line []byte) (Notification, *DeltaParams, bool) {
	d := deltaScanner{b: line}
	var (
		method           string
		params           []byte // the params' bytes in line
		paramsAt         int    // where they start in line
		sawMethod, sawTS bool
		fields           [4]span // threadId, turnId, itemId, delta, in params
		seen             [4]bool
	)
	if !d.byte('{') {
		return Notification{}, nil, false
	}
	for {
		key, ok := d.key() // {} has none: not a delta
		if !ok {
			return Notification{}, nil, false
		}
		switch string(key) {
		case "method":
			m, ok := d.plainString()
			if !ok || sawMethod {
				return Notification{}, nil, false
			}
			if method = deltaMethod(m); method == "" {
				return Notification{}, nil, false
			}
			sawMethod = true
		case "params":
			if params != nil {
				return Notification{}, nil, false
			}
			paramsAt = d.skipSpace()
			if !d.params(&fields, &seen) {
				return Notification{}, nil, false
			}
			params = line[paramsAt:d.i]
		case "emittedAtMs":
			if sawTS || !d.integer() {
				return Notification{}, nil, false
			}
			sawTS = true
		default:
			return Notification{}, nil, false
		}
		if d.byte(',') {
			continue
		}
		if !d.byte('}') {
			return Notification{}, nil, false
		}
		break
	}
	if d.skipSpace() != len(line) || !sawMethod || params == nil {
		return Notification{}, nil, false
	}

	raw := bytes.Clone(params)
	v := &DeltaParams{
		ThreadID: fields[0].text(raw, paramsAt), TurnID: fields[1].text(raw, paramsAt),
		ItemID: fields[2].text(raw, paramsAt), Delta: fields[3].text(raw, paramsAt),
	}
	return Notification{Method: method, Params: raw, decoded: v}, v, true
}

// deltaMethod returns the method named m when its params decode as DeltaParams, else "".
func deltaMethod(m []byte) string {
	for _, name := range [...]string{NotifyAgentMessageDelta, NotifyCommandOutputDelta, NotifyReasoningSummaryDelta,
		NotifyReasoningTextDelta, notifyReasoningSummaryDeltaOld, notifyReasoningTextDeltaOld} {
		if string(m) == name {
			return name
		}
	}
	return ""
}

// span is a decoded string value: its bytes in the line (start, end), or, when it had escapes, its
// text unescaped.
type span struct {
	start, end int
	unescaped  string
	escaped    bool
}

// text is the span's string, pointing into raw, the params' copy, whose first byte is at base in
// the line.
func (s span) text(raw []byte, base int) string {
	if s.escaped {
		return s.unescaped
	}
	if s.end == s.start {
		return ""
	}
	return unsafe.String(&raw[s.start-base], s.end-s.start)
}

// deltaScanner reads a line left to right; i is the next byte.
type deltaScanner struct {
	b []byte
	i int
}

// skipSpace skips JSON whitespace and returns the position after it.
func (d *deltaScanner) skipSpace() int {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return d.i
		}
	}
	return d.i
}

// byte consumes c, after whitespace, if it is next.
func (d *deltaScanner) byte(c byte) bool {
	d.skipSpace()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// key reads a member's name and its colon. A name with an escape is not one of ours.
func (d *deltaScanner) key() ([]byte, bool) {
	name, ok := d.plainString()
	if !ok || !d.byte(':') {
		return nil, false
	}
	return name, true
}

// plainString reads a string without escapes or bytes outside printable ASCII (a method, a name)
// and returns its bytes in the line.
func (d *deltaScanner) plainString() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// str reads a string value into s: its place in the line, or its unescaped text when it has one
// of the short escapes. A \u escape, a control byte or bytes that are not UTF-8 make it refuse.
func (d *deltaScanner) str(s *span) bool {
	if !d.byte('"') {
		return false
	}
	start := d.i
	var (
		buf     []byte // the text so far, once an escape was seen
		nonASCI bool
	)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			end := d.i
			d.i++
			if nonASCI && !utf8.Valid(d.b[start:end]) {
				return false
			}
			if buf != nil {
				*s = span{unescaped: string(buf), escaped: true}
			} else {
				*s = span{start: start, end: end}
			}
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if d.i+1 >= len(d.b) {
				return false
			}
			var r byte
			switch d.b[d.i+1] {
			case '"':
				r = '"'
			case '\\':
				r = '\\'
			case '/':
				r = '/'
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default:
				return false // \u and anything else: the general path
			}
			if buf == nil {
				buf = append(make([]byte, 0, d.i-start+16), d.b[start:d.i]...)
			}
			buf = append(buf, r)
			d.i += 2
			continue
		case c >= 0x80:
			nonASCI = true
		}
		if buf != nil {
			buf = append(buf, c)
		}
		d.i++
	}
	return false
}

// params reads the params object: string members named threadId, turnId, itemId or delta, each at
// most once.
func (d *deltaScanner) params(fields *[4]span, seen *[4]bool) bool {
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return true
	}
	for {
		name, ok := d.key()
		if !ok {
			return false
		}
		var k int
		switch string(name) {
		case "threadId":
			k = 0
		case "turnId":
			k = 1
		case "itemId":
			k = 2
		case "delta":
			k = 3
		default:
			return false
		}
		if seen[k] || !d.str(&fields[k]) {
			return false
		}
		seen[k] = true
		if d.byte(',') {
			continue
		}
		return d.byte('}')
	}
}

// integer reads a non-negative integer of at most 18 digits (an int64 whatever they are).
func (d *deltaScanner) integer() bool {
	start := d.skipSpace()
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n := d.i - start
	if n == 0 || n > 18 || (n > 1 && d.b[start] == '0') {
		return false
	}
	return true
}
