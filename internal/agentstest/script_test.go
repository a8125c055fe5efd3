package agentstest

// Tests of how each fake plays the turns, without the agents: make test-agents runs them for real.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

var (
	helloTurn = Turn{Prompt: "Say hello.", Answer: "Hello."}
	editTurn  = Turn{Prompt: "Edit the README.", Edit: &Edit{Path: "docs/README.md", Old: "# project", New: "# project\nhello"}, Answer: "Edited."}
)

func TestFindTurn(t *testing.T) {
	turns := []Turn{{Prompt: "fix", Answer: "short"}, {Prompt: "fix the bug", Answer: "long"}, {Answer: "no prompt"}}
	for text, want := range map[string]string{
		"please fix it":          "short",
		"please fix the bug now": "long", // the longest prompt wins
		"nothing to do":          "",
	} {
		got, ok := findTurn(turns, text)
		if ok != (want != "") || got.Answer != want {
			t.Errorf("findTurn(%q) = %q, %v; want %q", text, got.Answer, ok, want)
		}
	}
}

// replyText describes a fakemodel reply: its kind, and the text or arguments it carries.
func replyText(r fakemodel.Reply) string { return r.Kind().String() + " " + r.Text() }

func TestCodexReply(t *testing.T) {
	reply := codexReply([]Turn{helloTurn, editTurn})
	user := func(text string) fakemodel.Item { return fakemodel.Item{Type: "message", Role: "user", Text: text} }
	tools := []string{"exec_command", "apply_patch"}
	patch := fakemodel.UpdateFilePatch("docs/README.md", "# project", "# project\nhello")
	for _, tc := range []struct {
		name  string
		req   fakemodel.Request
		reply string
	}{
		{"hello", fakemodel.Request{Tools: tools, Input: []fakemodel.Item{user("<env>"), user("Say hello.")}}, "message Hello."},
		{"edit", fakemodel.Request{Tools: tools, Input: []fakemodel.Item{
			user("Say hello."), {Type: "message", Role: "assistant", Text: "Hello."}, user("Edit the README."),
		}}, "patch " + patch},
		{"after the patch", fakemodel.Request{Tools: tools, Input: []fakemodel.Item{
			user("Edit the README."), {Type: "custom_tool_call", Name: "apply_patch"}, {Type: "custom_tool_call_output", Output: "ok"},
		}}, "message Edited."},
		// A title request holds the prompt too, but offers no tools: it must not take the patch.
		{"title", fakemodel.Request{Input: []fakemodel.Item{user("Write a title for: Edit the README.")}}, "message Done. Hello from the fake model."},
		{"no turn", fakemodel.Request{Tools: tools, Input: []fakemodel.Item{user("something else")}}, "message Done. Hello from the fake model."},
	} {
		if got := replyText(reply(tc.req)); got != tc.reply {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.reply)
		}
	}
}

func TestClaudeReply(t *testing.T) {
	work := t.TempDir()
	reply := claudeReply([]Turn{helloTurn, editTurn}, work)
	path := filepath.Join(work, "docs", "README.md")
	text := func(s string) fakemodel.AnthropicBlock { return fakemodel.AnthropicBlock{Type: "text", Text: s} }
	msg := func(role string, blocks ...fakemodel.AnthropicBlock) fakemodel.AnthropicMessage {
		return fakemodel.AnthropicMessage{Role: role, Blocks: blocks}
	}
	use := fakemodel.AnthropicBlock{Type: "tool_use", Name: "Read"}
	result := fakemodel.AnthropicBlock{Type: "tool_result", Text: "1\t# project"}
	tools := []string{"Bash", "Edit", "Read"}
	read, _ := json.Marshal(map[string]string{"file_path": path})
	edit, _ := json.Marshal(map[string]string{"file_path": path, "old_string": "# project", "new_string": "# project\nhello"})
	for _, tc := range []struct {
		name  string
		req   fakemodel.AnthropicRequest
		reply string
	}{
		{"hello", fakemodel.AnthropicRequest{Tools: tools, Messages: []fakemodel.AnthropicMessage{msg("user", text("<system-reminder>"), text("Say hello."))}}, "message Hello."},
		{"read first", fakemodel.AnthropicRequest{Tools: tools, Messages: []fakemodel.AnthropicMessage{msg("user", text("Edit the README."))}}, "call " + string(read)},
		{"then edit", fakemodel.AnthropicRequest{Tools: tools, Messages: []fakemodel.AnthropicMessage{
			msg("user", text("Edit the README.")), msg("assistant", use), msg("user", result, text("<system-reminder>")),
		}}, "call " + string(edit)},
		{"then answer", fakemodel.AnthropicRequest{Tools: tools, Messages: []fakemodel.AnthropicMessage{
			msg("user", text("Edit the README.")), msg("assistant", use), msg("user", result), msg("assistant", use), msg("user", result),
		}}, "message Edited."},
		{"title", fakemodel.AnthropicRequest{Messages: []fakemodel.AnthropicMessage{msg("user", text("<session>Edit the README.</session> Write the title"))}}, "message Done. Hello from the fake model."},
	} {
		got := reply(tc.req)
		if replyText(got) != tc.reply {
			t.Errorf("%s: %q, want %q", tc.name, replyText(got), tc.reply)
		}
	}
}

func TestGeminiResponses(t *testing.T) {
	work := t.TempDir()
	path := filepath.Join(t.TempDir(), "responses.jsonl")
	if err := WriteGeminiResponses(path, geminiScript([]Turn{helloTurn, editTurn}, work)...); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Gemini CLI reads one JSON object a line: {"method": ..., "response": [chunks]}.
	type chunk struct {
		Candidates []struct {
			Content struct {
				Role  string
				Parts []struct {
					Text         string
					FunctionCall *struct {
						Name string
						Args map[string]string
					}
				}
			}
			FinishReason string
		}
		UsageMetadata *struct{ PromptTokenCount, TotalTokenCount int }
	}
	var lines []struct {
		Method   string
		Response []chunk
	}
	for line := range strings.Lines(string(b)) {
		var l struct {
			Method   string
			Response []chunk
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 3 {
		t.Fatalf("%d responses, want 3 (hello's answer, the edit's call, its answer):\n%s", len(lines), b)
	}
	// text returns a response's text and function calls, and checks that only its last chunk ends it.
	text := func(i int) (string, []string) {
		var s strings.Builder
		var calls []string
		r := lines[i]
		if r.Method != "generateContentStream" {
			t.Errorf("response %d: method %q", i, r.Method)
		}
		for j, c := range r.Response {
			last := j == len(r.Response)-1
			if cand := c.Candidates[0]; (cand.FinishReason == "STOP") != last || (c.UsageMetadata != nil) != last || cand.Content.Role != "model" {
				t.Errorf("response %d chunk %d: %+v", i, j, c)
			}
			for _, p := range c.Candidates[0].Content.Parts {
				s.WriteString(p.Text)
				if f := p.FunctionCall; f != nil {
					calls = append(calls, f.Name+" "+f.Args["file_path"]+" "+f.Args["old_string"]+" -> "+f.Args["new_string"])
				}
			}
		}
		return s.String(), calls
	}
	if s, calls := text(0); s != "Hello." || calls != nil {
		t.Errorf("hello: %q %q", s, calls)
	}
	wantCall := "replace " + filepath.Join(work, "docs", "README.md") + " # project -> # project\nhello"
	if s, calls := text(1); s != "" || !slices.Equal(calls, []string{wantCall}) {
		t.Errorf("edit: %q %q, want call %q", s, calls, wantCall)
	}
	if s, _ := text(2); s != "Edited." {
		t.Errorf("edit's answer %q", s)
	}
	if len(lines[2].Response) != 1 {
		t.Errorf("a one-word answer in %d chunks", len(lines[2].Response))
	}
	long := GeminiText("one two three")
	if n := len(long.Response.([]any)); n != 3 {
		t.Errorf("GeminiText of three words: %d chunks", n)
	}
}

func TestNewSkipsOrFailsWhenNotInstalled(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	t.Setenv(RequireEnv, "gemini")
	for name, wantSkip := range map[string]bool{CodexACP: true, Gemini: false} {
		ft := &fakeT{TB: t}
		done := make(chan struct{})
		// New ends the test with runtime.Goexit (Skip, Fatal): run it on a goroutine of its own.
		go func() {
			defer close(done)
			New(ft, name, helloTurn)
		}()
		<-done
		if ft.skipped != wantSkip || ft.failed == wantSkip || !strings.Contains(ft.msg, "make test-agents") {
			t.Errorf("%s: skipped %v, failed %v (%q); want skipped %v", name, ft.skipped, ft.failed, ft.msg, wantSkip)
		}
	}
}

// fakeT records how New ended a test.
type fakeT struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Skipf(format string, args ...any) {
	f.skipped, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestEnviron(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "real")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "real")
	t.Setenv("GEMINI_API_KEY", "real")
	t.Setenv("XDG_CONFIG_HOME", "/real")
	t.Setenv("HERMES_KEEP", "1")
	a := &Agent{Env: []string{"GEMINI_API_KEY=fake-key", "HOME=/tmp/h"}}
	env := a.Environ()
	for _, kv := range env {
		if strings.HasSuffix(kv, "=real") || kv == "XDG_CONFIG_HOME=/real" {
			t.Errorf("Environ kept %s", kv)
		}
	}
	if !slices.Contains(env, "HERMES_KEEP=1") || !slices.Contains(env, "GEMINI_API_KEY=fake-key") || env[len(env)-1] != "HOME=/tmp/h" {
		t.Errorf("Environ %q", env)
	}
}
