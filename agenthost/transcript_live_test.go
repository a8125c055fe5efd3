package agenthost_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestToolRowBeforeItsEvent: when a tool's toolCompleted event is read, the tool's row is in the
// thread's markdown transcript already, for each tool of a burst as for one alone: an editor told
// that a tool finished and opening the transcript finds it there.
func TestToolRowBeforeItsEvent(t *testing.T) {
	const tools = 40
	fh := newFakeHost(t, nil)
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		for i := range tools {
			ft.Exec(fmt.Sprintf("echo %d", i), 0, "")
		}
		ft.AgentMessage("done")
	})
	turn, err := fh.session(t).Run(t.Context(), agenthost.Input{Prompt: "many tools"})
	if err != nil {
		t.Fatal(err)
	}
	_, md, err := agenthost.TranscriptPaths(fh.state, turn.ThreadID())
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	timeout := time.After(20 * time.Second)
	for evs := turn.Events(); evs != nil; {
		select {
		case ev, ok := <-evs:
			if !ok {
				evs = nil
				continue
			}
			if ev.Kind != hermesproto.EventKindToolCompleted {
				continue
			}
			text, _ := os.ReadFile(md)
			if row := fmt.Sprintf("**$** `echo %d` — ✓", seen); !strings.Contains(string(text), row) {
				t.Errorf("tool %d's event came before its row %q was in the transcript", seen, row)
			}
			seen++
		case <-timeout:
			t.Fatalf("the turn did not end in 20s (%d tools seen)", seen)
		}
	}
	if seen != tools {
		t.Errorf("%d toolCompleted events, want %d", seen, tools)
	}
}
