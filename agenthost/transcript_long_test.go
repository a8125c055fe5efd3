package agenthost_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestLongTurnKeepsItsNewestRows: a turn of many tool calls holds the user message and its newest
// rows in its result, counts the others, and writes every row to the JSONL transcript, in order.
func TestLongTurnKeepsItsNewestRows(t *testing.T) {
	const tools = 700 // two rows each: far past MaxResultMessages, and past a trim during the turn
	fh := newFakeHost(t, nil)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		for i := range tools {
			ft.Exec(fmt.Sprintf("echo %d", i), 0, "ok\n")
		}
		ft.AgentMessage("done")
		ft.Complete(codex.TurnCompleted, nil)
	})
	res, _ := run(t, fh.session(t), "run them all")

	rows := 1 + 2*tools + 1 // the user message, a call and a result per tool, the answer
	if len(res.Messages) != agenthost.MaxResultMessages {
		t.Fatalf("the result holds %d rows, want %d", len(res.Messages), agenthost.MaxResultMessages)
	}
	if got, want := res.OmittedMessages, rows-agenthost.MaxResultMessages; got != want {
		t.Errorf("OmittedMessages = %d, want %d", got, want)
	}
	if m := res.Messages[0]; m.Role != "user" || m.Content != "run them all" {
		t.Errorf("first row %+v, want the user message", m)
	}
	if m := res.Messages[len(res.Messages)-1]; m.Role != "assistant" || m.Content != "done" {
		t.Errorf("last row %+v, want the answer", m)
	}
	if m := res.Messages[1]; m.Role != "assistant" || len(m.ToolCalls) != 1 {
		t.Errorf("second row %+v, want the call of a tool kept", m)
	}

	jsonl, _, err := agenthost.TranscriptPaths(fh.state, res.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var messages []hermesproto.Message
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			Kind    string               `json:"kind"`
			TurnID  string               `json:"turnId"`
			Message *hermesproto.Message `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("transcript line %q: %v", sc.Text(), err)
		}
		if e.Kind == "message" {
			if e.TurnID != res.TurnID {
				t.Errorf("a row of turn %q, want %q", e.TurnID, res.TurnID)
			}
			messages = append(messages, *e.Message)
		}
	}
	if len(messages) != rows {
		t.Fatalf("the transcript has %d rows, want %d", len(messages), rows)
	}
	if messages[0].Content != "run them all" || messages[rows-1].Content != "done" {
		t.Errorf("transcript rows out of order: first %+v, last %+v", messages[0], messages[rows-1])
	}
	for i := range tools {
		call := messages[1+2*i]
		if len(call.ToolCalls) != 1 || call.ToolCalls[0].Function.Arguments != fmt.Sprintf(`{"command":"echo %d","cwd":%q}`, i, fh.folder) {
			t.Fatalf("row %d: %+v, want the call of echo %d", 1+2*i, call, i)
		}
	}
}
