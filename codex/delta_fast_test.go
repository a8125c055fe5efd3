package codex

import (
	"bytes"
	"strings"
	"testing"

	fastjson "github.com/segmentio/encoding/json"
)

// general decodes line as the general path does: the envelope, then the params into their type.
func general(line []byte) (Notification, *DeltaParams, bool) {
	var msg wireMessage
	if fastjson.Unmarshal(line, &msg) != nil || msg.Method == "" || len(msg.ID) > 0 || msg.Result != nil || msg.Error != nil {
		return Notification{}, nil, false
	}
	n := Notification{Method: msg.Method, Params: msg.Params}
	v, err := DecodeNotification(n)
	d, ok := v.(*DeltaParams)
	if err != nil || !ok {
		return Notification{}, nil, false
	}
	return n, d, true
}

var deltaLines = []string{
	`{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"msg_1","delta":"Hello "}}`,
	`{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"msg_1","delta":"line\nnext \"quoted\" \\ back\/slash\ttab"},"emittedAtMs":1796225612599}`,
	`{ "params" : { "delta" : "é ünïcode ✓", "itemId":"i" } , "method" : "item/commandExecution/outputDelta" }`,
	`{"method":"item/reasoning/summaryDelta","params":{}}`,
	`{"method":"item/reasoning/textDelta","params":{"delta":""},"emittedAtMs":0}`,
	// Not for the fast path: the general one decides.
	`{"method":"item/agentMessage/delta","params":{"delta":"\u00e9"}}`,
	`{"method":"item/agentMessage/delta","params":{"Delta":"x"}}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"a","delta":"b"}}`,
	`{"method":"item/agentMessage/delta","params":{"delta":null}}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x"},"emittedAtMs":-1}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x"},"emittedAtMs":1.5}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x"},"id":3}`,
	`{"method":"turn/started","params":{"threadId":"t"}}`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x"}} trailing`,
	`{"method":"item/agentMessage/delta","params":{"delta":"x",}}`,
	"{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"bad \xff utf8\"}}",
	"{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"raw\ttab\"}}",
	`{}`, `{"method":"item/agentMessage/delta"}`,
}

// TestDecodeDeltaMatchesGeneral: the lines the fast path takes decode as the general path decodes
// them, and the plain deltas codex writes are taken.
func TestDecodeDeltaMatchesGeneral(t *testing.T) {
	for i, line := range deltaLines {
		_, _, ok := decodeDelta([]byte(line))
		if want := i < 5; ok != want {
			t.Errorf("decodeDelta(%s) took it: %v, want %v", line, ok, want)
		}
		checkDelta(t, []byte(line))
	}
}

// FuzzDecodeDelta holds the fast path to the general path's result on every line it takes.
func FuzzDecodeDelta(f *testing.F) {
	for _, l := range deltaLines {
		f.Add([]byte(l))
	}
	f.Fuzz(checkDelta)
}

func checkDelta(t *testing.T, line []byte) {
	buf := bytes.Clone(line)
	n, v, ok := decodeDelta(buf)
	if !ok {
		return
	}
	for i := range buf {
		buf[i] = 'X' // the reader reuses its buffer: nothing decoded may point into it
	}
	gn, gv, gok := general(line)
	if !gok {
		t.Fatalf("the fast path took %q, the general path refuses it", line)
	}
	if n.Method != gn.Method || !bytes.Equal(n.Params, gn.Params) || *v != *gv {
		t.Fatalf("%q:\nfast    %s %s %+v\ngeneral %s %s %+v", line, n.Method, n.Params, *v, gn.Method, gn.Params, *gv)
	}
	if strings.Contains(v.Delta+v.ThreadID+v.TurnID+v.ItemID, "XXXX") && !strings.Contains(string(line), "XXXX") {
		t.Fatalf("%q: a decoded string points into the reader's buffer", line)
	}
}
