package codex

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// deltaLines are delta notifications as codex writes them (the first five, with their params
// decoded) and lines around that shape; the rest only have to pass without harm.
var deltaLines = []string{
	`{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"msg_1","delta":"Hello "}}`,
	`{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"msg_1","delta":"line\nnext \"quoted\" \\ back\/slash\ttab"},"emittedAtMs":1796225612599}`,
	`{ "params" : { "delta" : "é ünïcode ✓", "itemId":"i" } , "method" : "item/commandExecution/outputDelta" }`,
	`{"method":"item/reasoning/summaryDelta","params":{}}`,
	`{"method":"item/reasoning/textDelta","params":{"delta":"\u00e9"},"emittedAtMs":0}`,
	`{"method":"item/agentMessage/delta","params":{"Delta":"x"}}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"a","delta":"b"}}`,
	`{"method":"item/agentMessage/delta","params":{"delta":null}}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x"},"emittedAtMs":-1}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x"},"id":3}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x"}} trailing`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x",}}`,
	"{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"bad \xff utf8\"}}",
	"{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"raw\ttab\"}}",
	`{}`, `{"method":"item/agentMessage/delta"}`,
}

// TestDeltaLines: a Conn decodes codex's delta lines into their params, and each notification keeps
// its own params though the reader reuses its buffer for the next line (internal/jsonrpc's
// TestDispatchCopiesTheLine checks that copy directly).
func TestDeltaLines(t *testing.T) {
	want := []DeltaParams{
		{ThreadID: "t1", TurnID: "u1", ItemID: "msg_1", Delta: "Hello "},
		{ThreadID: "t1", TurnID: "u1", ItemID: "msg_1", Delta: "line\nnext \"quoted\" \\ back/slash\ttab"},
		{ItemID: "i", Delta: "é ünïcode ✓"},
		{},
		{Delta: "é"},
	}
	for i, line := range deltaLines {
		var got []Notification
		r, w := io.Pipe()
		c := NewConn(r, nopWriter{}, ConnOptions{OnNotification: func(n Notification) { got = append(got, n) }})
		go func() {
			// The line, then one as long that would overwrite it in a reused buffer.
			_, _ = io.WriteString(w, line+"\n"+strings.Repeat("X", len(line))+"\n")
			_ = w.Close()
		}()
		<-c.Done()
		_ = c.Close()
		for _, n := range got {
			v, err := DecodeNotification(n)
			d, ok := v.(*DeltaParams)
			if i < len(want) {
				if err != nil || !ok || *d != want[i] {
					t.Errorf("%s: got %+v, %v; want %+v", line, v, err, want[i])
				}
			}
			if bytes.Contains(n.Params, []byte("XXXX")) {
				t.Errorf("%s: the params point into the reader's buffer", line)
			}
		}
		if i < len(want) && len(got) != 1 {
			t.Errorf("%s: %d notifications, want 1", line, len(got))
		}
	}
}

// nopWriter is a connection's output nobody reads.
type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriter) Close() error                { return nil }
