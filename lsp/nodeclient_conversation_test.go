package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// TestNodeClientConversation: with Microsoft's LSP client libraries, the built binary and the real
// codex: hover on the line a turn was asked from has the model's answer; two threads are listed,
// resuming the first makes the model receive the first thread's history (and not the second's);
// the model chosen with hermes.setModel reaches the model.
func TestNodeClientConversation(t *testing.T) {
	t.Parallel()
	env := codextest.NewReal(t)
	env.Model.Enqueue(
		fakemodel.Message("Hello."),
		fakemodel.Message("The sum of 1 to 3 is **6**."),
		fakemodel.Message("Second thread answer."),
		fakemodel.Message("Back on the first thread."),
	)
	tmp := t.TempDir()
	file := filepath.Join(env.Work, "calc.go")
	if err := os.WriteFile(file, []byte("package calc\n\n// hermes: what is the sum of 1 to 3?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	sum := runNodeClient(t, env, tmp, file,
		"--prompt", "FIRST-THREAD-MARKER hello",
		"--step", step(map[string]any{"ask": map[string]any{"prompt": "what is the sum of 1 to 3?", "line": 2}}),
		"--step", step(map[string]any{"hover": 2}),
		"--step", step(map[string]any{"command": "hermes.newThread", "args": map[string]any{}}),
		"--step", step(map[string]any{"ask": map[string]any{"prompt": "SECOND-THREAD-MARKER another topic"}}),
		"--step", step(map[string]any{"command": "hermes.threads", "args": map[string]any{}}),
		"--step", step(map[string]any{"command": "hermes.models", "args": map[string]any{}}),
		"--step", step(map[string]any{"command": "hermes.resumeThread", "args": map[string]any{"threadId": "$ask:0"}}),
		"--step", step(map[string]any{"command": "hermes.setModel", "args": map[string]any{"model": "gpt-5.5", "effort": "high"}}),
		"--step", step(map[string]any{"ask": map[string]any{"prompt": "THIRD-MARKER and now?"}}),
	)
	if len(sum.Steps) != 9 {
		t.Fatalf("steps run: %d, want 9", len(sum.Steps))
	}
	var hover struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	_ = json.Unmarshal(sum.Steps[1].Result, &hover)
	if !strings.Contains(hover.Contents.Value, "The sum of 1 to 3 is **6**.") || !strings.Contains(hover.Contents.Value, "done") {
		t.Errorf("hover on the asked line:\n%s", hover.Contents.Value)
	}

	var first, second, third hermesproto.AskResult
	_ = json.Unmarshal(sum.Steps[0].Result, &first)
	_ = json.Unmarshal(sum.Steps[3].Result, &second)
	_ = json.Unmarshal(sum.Steps[8].Result, &third)
	var threads []hermesproto.ThreadInfo
	_ = json.Unmarshal(sum.Steps[4].Result, &threads)
	t.Logf("threads: %+v", threads)
	if len(threads) != 2 || threads[0].ThreadID != second.ThreadID || threads[1].ThreadID != first.ThreadID || !threads[0].Current {
		t.Errorf("hermes.threads: %+v (first %s, second %s)", threads, first.ThreadID, second.ThreadID)
	}
	if !strings.Contains(string(sum.Steps[5].Result), `"current":true`) {
		t.Errorf("hermes.models marks no current model: %s", sum.Steps[5].Result)
	}
	if third.ThreadID != first.ThreadID {
		t.Errorf("the turn after resume ran on %s, want %s", third.ThreadID, first.ThreadID)
	}

	reqs := env.Model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "FIRST-THREAD-MARKER") || !strings.Contains(last, "The sum of 1 to 3") || strings.Contains(last, "SECOND-THREAD-MARKER") {
		t.Errorf("the model request after resume does not carry the first thread's history alone:\n%.2000s", last)
	}
	if !strings.Contains(last, `"model":"gpt-5.5"`) || !strings.Contains(last, `"effort":"high"`) {
		t.Errorf("the chosen model did not reach the model:\n%.600s", last)
	}
}
