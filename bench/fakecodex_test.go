package bench_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/bench"
)

// TestFakeCodexPlaysValidLines: every line the zero-latency fake writes is a JSON object, and a
// turn emits the notifications its spec counts.
func TestFakeCodexPlaysValidLines(t *testing.T) {
	spec := bench.FakeSpec{Tools: 3, Deltas: 4}
	in := strings.NewReader(`{"id":1,"method":"thread/start","params":{}}` + "\n" +
		`{"id":2,"method":"turn/start","params":{"threadId":"thread-1"}}` + "\n")
	var out bytes.Buffer
	if err := bench.ServeFakeCodex(in, &out, spec); err != nil {
		t.Fatal(err)
	}
	notifications := 0
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("not JSON: %s (%v)", sc.Text(), err)
			continue
		}
		if m.Method != "" {
			notifications++
		}
	}
	if notifications != spec.Notifications() {
		t.Errorf("%d notifications, want %d", notifications, spec.Notifications())
	}
}
