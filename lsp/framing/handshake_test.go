package framing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// errBodyRead is what TestHandshakeMaxBody's input fails with when the stream reads past a header.
var errBodyRead = errors.New("the stream read the body")

// failingReader fails every read.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errBodyRead }

// TestHandshakeMaxBody: before Admit, a body over HandshakeMaxBody ends the stream as soon as its
// header is read (whatever CloseOnOversized says), without a reply; one of exactly the limit is read;
// after Admit the limit is MaxBody's.
func TestHandshakeMaxBody(t *testing.T) {
	const limit = 64 << 10
	for _, closeOnOversized := range []bool{true, false} {
		t.Run(fmt.Sprintf("over/CloseOnOversized=%v", closeOnOversized), func(t *testing.T) {
			// A 60 MB initialize, of which only the header arrives before the input fails.
			in := io.MultiReader(strings.NewReader("Content-Length: 60000000\r\n\r\n"), failingReader{})
			s, conn := newTestStream(in, Options{HandshakeMaxBody: limit, CloseOnOversized: closeOnOversized})
			got, err := readAll(t, s)
			if !errors.Is(err, ErrOversized) || len(got) != 0 {
				t.Errorf("read %q, then %v; want nothing, then ErrOversized", got, err)
			}
			if w := conn.written(); len(w) != 0 {
				t.Errorf("wrote %q, want nothing", w)
			}
		})
	}

	body := func(n int) string {
		head := `{"jsonrpc":"2.0","method":"x","params":"`
		return head + strings.Repeat("a", n-len(head)-2) + `"}`
	}
	t.Run("at the limit", func(t *testing.T) {
		s, _ := newTestStream(strings.NewReader(frame(body(limit))), Options{HandshakeMaxBody: limit, CloseOnOversized: true})
		got, err := readAll(t, s)
		if !errors.Is(err, io.EOF) || len(got) != 1 {
			t.Errorf("read %d messages, then %v; want 1, then io.EOF", len(got), err)
		}
	})
	t.Run("admitted", func(t *testing.T) {
		input := frame(body(100)) + frame(body(limit+1)) + frame(body(4<<20))
		s, _ := newTestStream(strings.NewReader(input), Options{HandshakeMaxBody: limit, CloseOnOversized: true})
		msg, _, err := s.Read(context.Background())
		if err != nil {
			t.Fatalf("the first, small frame: %v (%v)", err, msg)
		}
		s.Admit()
		got, err := readAll(t, s)
		if !errors.Is(err, io.EOF) || len(got) != 2 {
			t.Errorf("after Admit read %d messages, then %v; want both frames over the handshake limit, then io.EOF", len(got), err)
		}
	})
}
