package jsonrpc

import (
	"bytes"
	"log/slog"
	"testing"
)

// TestDispatchCopiesTheLine: what dispatch hands on (a notification's params, a request's id and
// params) does not point into the line, whose buffer the reader reuses for the next one.
func TestDispatchCopiesTheLine(t *testing.T) {
	lines := []string{
		`{"method":"item/agentMessage/delta","params":{"threadId":"t1","delta":"Hello "}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}}`,
		`{ "params" : { "delta" : "é ünïcode ✓" } , "method" : "x" }`,
		`{"method":"session/request_permission","id":"req-7","params":{"sessionId":"s"}}`,
	}
	for _, line := range lines {
		var params [][]byte
		c := &Conn{log: slog.New(slog.DiscardHandler), opts: ConnOptions{
			OnNotification:   func(n Notification) { params = append(params, n.Params) },
			OnRequestInOrder: func(r *Request) { params = append(params, r.ID, r.Params) },
		}}
		buf := []byte(line)
		c.dispatch(buf)
		for j := range buf {
			buf[j] = 'X'
		}
		if len(params) == 0 {
			t.Errorf("%s: nothing dispatched", line)
		}
		for _, p := range params {
			if bytes.Contains(p, []byte("XX")) {
				t.Errorf("%s: %q points into the reader's buffer", line, p)
			}
		}
	}
}
