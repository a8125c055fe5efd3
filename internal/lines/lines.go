// Package lines reads newline-terminated lines with a bound on each: what an agent writes on its
// stdout (one JSON-RPC message a line) or its stderr (a log) is read whole, however long a line it
// writes, while at most the bound of each line is kept.
package lines

import (
	"bufio"
	"bytes"
	"io"
)

// TooLongMarker ends a line that was cut at the reader's limit.
const TooLongMarker = "…[cut]"

// Reader reads newline-terminated lines and keeps at most limit bytes of each: the rest of an
// over-long line is read and dropped, and the line is reported as cut.
type Reader struct {
	r     *bufio.Reader
	limit int
	buf   []byte // the line Next returned, reused for the next one
}

// NewReader returns a Reader of r that keeps at most limit bytes of each line.
func NewReader(r io.Reader, limit int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// Next returns the next line (without its newline, at most limit bytes), the number of bytes it
// consumed, and io.EOF after the last line. A line cut at the limit ends in TooLongMarker. The line
// is valid until the next call: its buffer is reused.
func (lr *Reader) Next() (line []byte, size int, err error) {
	buf := lr.buf[:0]
	if cap(buf) > 1<<20 {
		buf = nil // a long line's buffer is not kept for the short ones
	}
	defer func() { lr.buf = line }()
	cut := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
		if !cut {
			if room := lr.limit - len(buf); len(chunk) <= room {
				buf = append(buf, chunk...)
			} else {
				buf = append(buf, chunk[:room]...)
				cut = true
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && size == 0:
			return nil, 0, io.EOF
		case err != nil && err != io.EOF:
			return buf, size, err
		}
		if cut {
			buf = append(buf, TooLongMarker...)
		}
		return bytes.TrimRight(buf, "\r\n"), size, nil
	}
}
