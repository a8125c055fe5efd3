package framing

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestRoundTrip runs calls, notifications and responses both ways between two jsonrpc2.Conns over
// net.Pipe, with this package's stream on one end or both and jsonrpc2's own on the other.
func TestRoundTrip(t *testing.T) {
	ours := func(c net.Conn) jsonrpc2.Stream { return NewStream(c, Options{}) }
	tests := []struct {
		name           string
		client, server func(net.Conn) jsonrpc2.Stream
	}{
		{"both", ours, ours},
		{"library client", func(c net.Conn) jsonrpc2.Stream { return jsonrpc2.NewStream(c) }, ours},
		{"library server", ours, func(c net.Conn) jsonrpc2.Stream { return jsonrpc2.NewStream(c) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c1, c2 := net.Pipe()
			client := jsonrpc2.NewConn(tt.client(c1))
			server := jsonrpc2.NewConn(tt.server(c2))
			notes := make(chan string, 1)
			server.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
				switch req.Method() {
				case "echo":
					return reply(ctx, req.Params(), nil)
				case "fail":
					return reply(ctx, nil, jsonrpc2.NewError(-32001, "failed"))
				case "note":
					notes <- string(req.Params())
					return nil
				case "ask": // calls the client while handling the request
					go func() {
						var answer string
						_, err := server.Call(ctx, "ping", "hi", &answer)
						if err != nil {
							answer = err.Error()
						}
						_ = reply(ctx, answer, nil)
					}()
					return nil
				}
				return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, req.Method()))
			})
			client.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
				var p string
				_ = json.Unmarshal(req.Params(), &p)
				return reply(ctx, "pong "+p, nil)
			})
			defer func() {
				_ = client.Close()
				_ = server.Close()
				<-client.Done()
				<-server.Done()
			}()

			var got map[string]any
			if _, err := client.Call(ctx, "echo", map[string]any{"a": "b\r\n\r\nContent-Length: 3"}, &got); err != nil {
				t.Fatalf("echo: %v", err)
			}
			if got["a"] != "b\r\n\r\nContent-Length: 3" {
				t.Errorf("echo = %v", got)
			}
			_, err := client.Call(ctx, "fail", nil, nil)
			var werr *jsonrpc2.Error
			if !errors.As(err, &werr) || werr.Code != -32001 {
				t.Errorf("fail: %v, want code -32001", err)
			}
			if err := client.Notify(ctx, "note", []int{1, 2}); err != nil {
				t.Fatalf("note: %v", err)
			}
			if n := <-notes; n != "[1,2]" {
				t.Errorf("note params = %s", n)
			}
			var answer string
			if _, err := client.Call(ctx, "ask", nil, &answer); err != nil || answer != "pong hi" {
				t.Errorf("ask = %q, %v; want pong hi", answer, err)
			}
		})
	}
}

// TestIDs sends requests with every kind of id a peer may send through a jsonrpc2.Conn that echoes
// them, and checks that each response carries the id as it was sent, including ids jsonrpc2's ID
// cannot hold (integers beyond int32, the empty string) and strings like the stream's own IDs.
func TestIDs(t *testing.T) {
	ids := []string{
		`1`, `0`, `2147483647`, `-2147483648`, `"abc"`, `"7"`, `1099511627776`, `2147483648`,
		`-2147483649`, `99999999999999999999999`, `-0`, `""`, `"` + idPrefix + `1"`, `"` + idPrefix + `2"`,
	}
	ctx := context.Background()
	c1, c2 := net.Pipe()
	server := jsonrpc2.NewConn(NewStream(c2, Options{}))
	seen := make(chan jsonrpc2.ID, len(ids))
	server.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		seen <- req.(*jsonrpc2.Call).ID()
		return reply(ctx, req.Params(), nil)
	})
	defer func() {
		_ = c1.Close()
		<-server.Done()
	}()
	go func() {
		for i, id := range ids {
			body := `{"jsonrpc":"2.0","id":` + id + `,"method":"echo","params":[` + string(rune('0'+i%10)) + `]}`
			if _, err := io.WriteString(c1, frame(body)); err != nil {
				return
			}
		}
	}()
	in := newReplyReader(c1)
	for i, id := range ids {
		r, err := in()
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if string(r.ID) != id {
			t.Errorf("reply to id %s has id %s", id, r.ID)
		}
		if want := "[" + string(rune('0'+i%10)) + "]"; string(r.Result) != want {
			t.Errorf("reply to id %s: result %s, want %s", id, r.Result, want)
		}
		got := <-seen
		if fmtID(got) != id && !strings.HasPrefix(fmtID(got), `"`+idPrefix) {
			t.Errorf("handler saw id %s for %s", fmtID(got), id)
		}
	}
}

// fmtID writes an ID as JSON.
func fmtID(id jsonrpc2.ID) string {
	data, _ := json.Marshal(&id)
	return string(data)
}

// TestBigIDForgotten checks that the stream forgets a made-up ID once the response is written, and
// that a response from the peer with such an id is dropped.
func TestBigIDForgotten(t *testing.T) {
	input := frame(`{"jsonrpc":"2.0","id":1099511627776,"method":"m"}`) +
		frame(`{"jsonrpc":"2.0","id":1099511627776,"result":null}`) +
		frame(`{"jsonrpc":"2.0","method":"after"}`)
	s, conn := newTestStream(strings.NewReader(input), Options{})
	ctx := context.Background()
	msg, _, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	call, ok := msg.(*jsonrpc2.Call)
	if !ok {
		t.Fatalf("read %s, want a call", summary(msg))
	}
	if len(s.ids) != 1 {
		t.Fatalf("%d made-up IDs, want 1", len(s.ids))
	}
	resp, _ := jsonrpc2.NewResponse(call.ID(), "ok", nil)
	if _, err := s.Write(ctx, resp); err != nil {
		t.Fatal(err)
	}
	if len(s.ids) != 0 {
		t.Errorf("%d made-up IDs after the response, want 0", len(s.ids))
	}
	if got := replies(t, conn); !slices.Equal(got, []string{`result 1099511627776 "ok"`}) {
		t.Errorf("replies = %q", got)
	}
	got, err := readAll(t, s)
	if !errors.Is(err, io.EOF) || !slices.Equal(got, []string{"notify after "}) {
		t.Errorf("then read %q, %v; want the notification, then EOF", got, err)
	}
}

// newReplyReader returns a function reading one response frame at a time from r.
func newReplyReader(r io.Reader) func() (reply, error) {
	in := bufio.NewReader(r)
	return func() (reply, error) { return readReply(in) }
}
