package framing

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// TestNotify: a notification written by Notify reads back, through a stream, as the one jsonrpc2
// would have written, for params of every shape (HTML and non-ASCII text, maps, nil).
func TestNotify(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		params any
	}{
		{"progress", protocol.MethodProgress, &protocol.ProgressParams{Token: *protocol.NewProgressToken("t-1"), Value: &protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: "<b>ünï</b> & \"q\"\n\t\u2028"}}},
		{"message", protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: strings.Repeat("x", 5000)}},
		{"map", "hermes/turnEvent", map[string]any{"z": 1, "a": []string{"b"}, "m": nil}},
		{"nil", "hermes/ping", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, conn := newTestStream(strings.NewReader(""), Options{})
			if err := st.Notify(context.Background(), tc.method, tc.params); err != nil {
				t.Fatal(err)
			}
			reader, _ := newTestStream(bytes.NewReader(conn.written()), Options{})
			msg, n, err := reader.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(conn.written())) {
				t.Errorf("frame of %d bytes, %d written", n, len(conn.written()))
			}
			got, ok := msg.(*jsonrpc2.Notification)
			if !ok || got.Method() != tc.method {
				t.Fatalf("read %T %+v", msg, msg)
			}
			want, err := jsonrpc2.NewNotification(tc.method, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			if err := json.Unmarshal(got.Params(), &a); err != nil {
				t.Fatalf("params %s: %v", got.Params(), err)
			}
			if err := json.Unmarshal(want.Params(), &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("params %s, want %s", got.Params(), want.Params())
			}
		})
	}
}

// TestNotifyCancelled: a cancelled context writes nothing.
func TestNotifyCancelled(t *testing.T) {
	st, conn := newTestStream(strings.NewReader(""), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Notify(ctx, protocol.MethodProgress, nil); err == nil || len(conn.written()) != 0 {
		t.Errorf("err %v, wrote %q", err, conn.written())
	}
}

// BenchmarkNotify: a progress report written as a notification (to a writer that keeps nothing).
func BenchmarkNotify(b *testing.B) {
	st := NewStream(discard{}, Options{}).(*stream)
	params := &protocol.ProgressParams{Token: *protocol.NewProgressToken("hermes-turn-1"), Value: &protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: "$ go test ./... (3 tools, 2.1 s)"}}
	b.ReportAllocs()
	for b.Loop() {
		if err := st.Notify(context.Background(), protocol.MethodProgress, params); err != nil {
			b.Fatal(err)
		}
	}
}

// discard is a connection that reads nothing and keeps nothing written.
type discard struct{}

func (discard) Read([]byte) (int, error)    { return 0, io.EOF }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }
