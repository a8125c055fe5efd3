package fakemcp

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// serve runs Serve over the given messages, one a line, and returns the messages it wrote.
func serve(t *testing.T, in ...string) ([]map[string]any, error) {
	t.Helper()
	var out bytes.Buffer
	err := Serve(strings.NewReader(strings.Join(in, "\n")+"\n"), &out)
	var msgs []map[string]any
	dec := json.NewDecoder(&out)
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("the server wrote something that is not JSON: %v (%q)", err, out.String())
		}
		msgs = append(msgs, m)
	}
	return msgs, err
}

// field walks nested JSON objects and arrays (a key of an array is its index: "0").
func field(v any, path ...string) any {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			if k != "0" || len(x) == 0 {
				return nil
			}
			v = x[0]
		default:
			return nil
		}
	}
	return v
}

func TestServeAsksAndReturnsTheAnswer(t *testing.T) {
	msgs, err := serve(t,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"question":"Which colour?"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"elicit-1","result":{"action":"accept","content":{"answer":"blue"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{"question":"Again?"}}}`,
		`{"jsonrpc":"2.0","id":"elicit-2","error":{"code":-1,"message":"declined by the client"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/list"}`,
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 8 {
		t.Fatalf("the server wrote %d messages, want 8: %v", len(msgs), msgs)
	}
	if field(msgs[0], "result", "protocolVersion") != "2025-06-18" || field(msgs[0], "result", "capabilities", "tools") == nil {
		t.Errorf("initialize: %v", msgs[0])
	}
	if field(msgs[1], "result", "tools", "0", "name") != ToolName {
		t.Errorf("tools/list: %v", msgs[1])
	}
	ask := msgs[2]
	if ask["method"] != "elicitation/create" || ask["id"] != "elicit-1" || field(ask, "params", "message") != "Which colour?" ||
		field(ask, "params", "requestedSchema", "properties", Field, "type") != "string" {
		t.Errorf("elicitation: %v", ask)
	}
	if field(msgs[3], "id") != 3.0 || field(msgs[3], "result") == nil {
		t.Errorf("ping, answered while the call waits: %v", msgs[3])
	}
	res := toolOutput(t, msgs[4], 2.0)
	if res.Action != "accept" || string(res.Content) != `{"answer":"blue"}` || res.Pid != os.Getpid() || res.Error != "" {
		t.Errorf("tool result %+v", res)
	}
	if field(msgs[4], "result", "isError") != false {
		t.Errorf("an accepted elicitation's call is an error: %v", msgs[4])
	}
	if msgs[5]["id"] != "elicit-2" {
		t.Errorf("second elicitation: %v", msgs[5])
	}
	if res := toolOutput(t, msgs[6], 4.0); res.Error != "declined by the client" || field(msgs[6], "result", "isError") != true {
		t.Errorf("tool result of a failed elicitation %+v (%v)", res, msgs[6])
	}
	if field(msgs[7], "error", "code") != -32601.0 {
		t.Errorf("unknown method: %v", msgs[7])
	}
}

// toolOutput is the Result of the tools/call answer m, which must answer the call id.
func toolOutput(t *testing.T, m map[string]any, id float64) Result {
	t.Helper()
	text, _ := field(m, "result", "content", "0", "text").(string)
	var res Result
	if m["id"] != id || json.Unmarshal([]byte(text), &res) != nil {
		t.Fatalf("tools/call %v answer: %v", id, m)
	}
	return res
}

func TestServeRefusesAnAnswerNotAsked(t *testing.T) {
	_, err := serve(t, `{"jsonrpc":"2.0","id":"elicit-9","result":{"action":"accept"}}`)
	if err == nil || !strings.Contains(err.Error(), "not asked") {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := serve(t, `not json`); err == nil {
		t.Fatal("Serve took a line that is not JSON")
	}
}

func TestConfig(t *testing.T) {
	lines, err := Config("asker")
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	want := []string{
		`mcp_servers.asker.command=` + strconv.Quote(exe),
		`mcp_servers.asker.args=["-test.run=^$"]`,
		`mcp_servers.asker.env={HERMES_FAKEMCP="1"}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Config:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
