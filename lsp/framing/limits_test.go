package framing

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// frameSize is the size of the oversized frames TestOversized sends: 100 MiB.
const frameSize = 100 << 20

// oversized returns inputs over the default limits, each followed by a good message.
func oversized() []struct {
	name  string
	input func() io.Reader
} {
	good := func() io.Reader { return strings.NewReader(frame(next)) }
	return []struct {
		name  string
		input func() io.Reader
	}{
		{"100 MiB header line", func() io.Reader {
			return io.MultiReader(strings.NewReader("X-Junk: "), &repeatReader{n: frameSize, b: 'a'},
				strings.NewReader("\r\n\r\n"), good())
		}},
		{"header line of 8 KiB + 1", func() io.Reader {
			return io.MultiReader(strings.NewReader("Content-Type: "+strings.Repeat("a", 8<<10-13)+"\r\n"+frame(`{"method":"lost"}`)), good())
		}},
		{"100 MiB header line with a Content-Length", func() io.Reader {
			return io.MultiReader(strings.NewReader("Content-Length: 17\r\nX-Junk: "), &repeatReader{n: frameSize, b: 'a'},
				strings.NewReader("\r\n\r\n"+`{"method":"lost"}`), good())
		}},
		{"100 MiB body", func() io.Reader {
			return io.MultiReader(strings.NewReader("Content-Length: 104857600\r\n\r\n"), &repeatReader{n: frameSize, b: '{'}, good())
		}},
		{"header block of 33 lines", func() io.Reader {
			return io.MultiReader(strings.NewReader(strings.Repeat("X-A: b\r\n", 32)+frame(`{"method":"lost"}`)), good())
		}},
	}
}

// TestOversized checks that a frame over the limits is skipped, answered with -32600 and id null,
// without holding memory in proportion to it, and that the next message is read.
func TestOversized(t *testing.T) {
	for _, tt := range oversized() {
		t.Run(tt.name, func(t *testing.T) {
			s, conn := newTestStream(tt.input(), Options{})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got, err := readAll(t, s)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %d KiB while reading", alloc>>10)
			if alloc > 16<<20 {
				t.Errorf("allocated %d MiB while reading, want under 16 MiB", alloc>>20)
			}
			if !errors.Is(err, io.EOF) {
				t.Errorf("Read ended with %v, want io.EOF", err)
			}
			if !slices.Equal(got, []string{nextRead}) {
				t.Errorf("read %q, want only the next message", got)
			}
			if got := replies(t, conn); !slices.Equal(got, []string{"-32600 null"}) {
				t.Errorf("replies %q, want one -32600 with id null", got)
			}
		})
	}
}

// TestCloseOnOversized checks that, with CloseOnOversized, Read fails with ErrOversized on a frame
// over the limits as soon as it sees it, without reading the rest of it.
func TestCloseOnOversized(t *testing.T) {
	for _, tt := range oversized() {
		t.Run(tt.name, func(t *testing.T) {
			in := &countingReader{r: tt.input()}
			s, conn := newTestStream(in, Options{CloseOnOversized: true})
			got, err := readAll(t, s)
			if !errors.Is(err, ErrOversized) {
				t.Errorf("Read ended with %v, want ErrOversized", err)
			}
			if len(got) != 0 {
				t.Errorf("read %q, want nothing", got)
			}
			if in.n > 64<<10 {
				t.Errorf("read %d KiB of input, want under 64 KiB", in.n>>10)
			}
			if w := conn.written(); len(w) != 0 {
				t.Errorf("wrote %q, want nothing", w)
			}
		})
	}
}

// TestLimits checks the edges of small limits: a header line and a body of exactly the limit are
// read; one byte more is skipped and answered.
func TestLimits(t *testing.T) {
	const body = `{"jsonrpc":"2.0","method":"x"}` // 30 bytes
	header := "Content-Length: 30"                // 18 bytes
	tests := []struct {
		name    string
		opts    Options
		read    []string
		replies []string
	}{
		{"at the limits", Options{MaxHeaderLine: 18, MaxBody: 30}, []string{"notify x "}, nil},
		{"header line over", Options{MaxHeaderLine: 17, MaxBody: 30}, nil, []string{"-32600 null"}},
		{"body over", Options{MaxHeaderLine: 18, MaxBody: 29}, nil, []string{"-32600 null"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, conn := newTestStream(strings.NewReader(header+"\r\n\r\n"+body), tt.opts)
			got, err := readAll(t, s)
			if !errors.Is(err, io.EOF) {
				t.Errorf("Read ended with %v, want io.EOF", err)
			}
			if !slices.Equal(got, tt.read) {
				t.Errorf("read %q, want %q", got, tt.read)
			}
			if got := replies(t, conn); !slices.Equal(got, tt.replies) {
				t.Errorf("replies %q, want %q", got, tt.replies)
			}
		})
	}
}

// TestContextCancelled checks that Read and Write give up on a cancelled context.
func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, conn := newTestStream(strings.NewReader(frame(next)), Options{})
	if _, _, err := s.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read: %v, want context.Canceled", err)
	}
	if _, err := s.Write(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Write: %v, want context.Canceled", err)
	}
	if err := s.Close(); err != nil || !conn.closed {
		t.Errorf("Close: %v, closed %v", err, conn.closed)
	}
}

// TestOversizedConn sends a jsonrpc2.Conn served by the stream an endless-looking header line and a
// 100 MiB body, in chunks over net.Pipe, then a request: the connection answers the oversized frames
// with -32600 and goes on to answer the request.
func TestOversizedConn(t *testing.T) {
	ctx := context.Background()
	c1, c2 := net.Pipe()
	server := jsonrpc2.NewConn(NewStream(c2, Options{}))
	server.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		return reply(ctx, req.Method(), nil)
	})
	defer func() {
		_ = c1.Close()
		<-server.Done()
	}()
	go func() {
		chunk := bytes.Repeat([]byte{'a'}, 1<<20)
		_, _ = io.WriteString(c1, "X-Junk: ")
		for range 32 {
			_, _ = c1.Write(chunk)
		}
		_, _ = io.WriteString(c1, "\r\n\r\nContent-Length: 104857600\r\n\r\n")
		for range 100 {
			_, _ = c1.Write(chunk)
		}
		_, _ = io.WriteString(c1, frame(`{"jsonrpc":"2.0","id":1,"method":"after"}`))
	}()
	in := newReplyReader(c1)
	var got []string
	for range 3 {
		r, err := in()
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, r.String())
	}
	if want := []string{"-32600 null", "-32600 null", `result 1 "after"`}; !slices.Equal(got, want) {
		t.Errorf("replies %q, want %q", got, want)
	}
	if err := server.Err(); err != nil {
		t.Errorf("connection failed: %v", err)
	}
}

// TestAnnouncedBodyNotPreallocated: a body announced at 60 MiB of which only a few bytes arrive
// before the input ends costs little memory: the buffer grows with what arrives.
func TestAnnouncedBodyNotPreallocated(t *testing.T) {
	input := strings.NewReader("Content-Length: 62914560\r\n\r\n{\"jsonrpc\":")
	s, _ := newTestStream(input, Options{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := readAll(t, s)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Read ended with %v, want io.ErrUnexpectedEOF", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d KiB for a stalled 60 MiB body, want under 1 MiB", alloc>>10)
	}
}
