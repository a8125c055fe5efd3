package agenthost_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/codex/codextest"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// transcriptLine is one line of a thread's JSONL transcript.
type transcriptLine struct {
	Kind     string                `json:"kind"`
	Folder   string                `json:"folder"`
	ThreadID string                `json:"threadId"`
	TurnID   string                `json:"turnId"`
	Message  *hermesproto.Message  `json:"message"`
	Approval *hermesproto.Approval `json:"approval"`
	Result   *hermesproto.Result   `json:"result"`

	raw json.RawMessage // the line as written
}

// readTranscript parses the JSONL transcript of threadID in stateDir.
func readTranscript(t *testing.T, stateDir, threadID string) []transcriptLine {
	t.Helper()
	path, _, err := agenthost.TranscriptPaths(stateDir, threadID)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	var out []transcriptLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l transcriptLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("transcript line %q: %v", sc.Text(), err)
		}
		l.raw = append(json.RawMessage(nil), sc.Bytes()...)
		out = append(out, l)
	}
	return out
}

func transcriptApprovals(lines []transcriptLine) []hermesproto.Approval {
	var out []hermesproto.Approval
	for _, l := range lines {
		if l.Kind == "approval" && l.Approval != nil {
			out = append(out, *l.Approval)
		}
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// savedState is state.json as a test reads it.
type savedState struct {
	Version int `json:"version"`
	Folders map[string]struct {
		ThreadID string            `json:"threadId"`
		Usage    hermesproto.Usage `json:"usage"`
		Turns    int               `json:"turns"`
	} `json:"folders"`
}

func readState(t *testing.T, stateDir string) savedState {
	t.Helper()
	var st savedState
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(stateDir, "state.json"))), &st); err != nil {
		t.Fatalf("state.json does not parse: %v", err)
	}
	return st
}

func TestThreadAndUsageSurviveRestart(t *testing.T) {
	fake := codextest.NewFake(t)
	stateDir := t.TempDir()
	first := newFakeHostOn(t, fake, stateDir, nil)
	s1 := first.session(t)
	res1, _ := run(t, s1, "remember banana")
	if !res1.Completed || res1.Usage.Total == 0 {
		t.Fatalf("first turn: %+v", res1)
	}
	before := s1.Status()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	st := readState(t, stateDir)
	saved, ok := st.Folders[first.folder]
	if st.Version != 1 || !ok || saved.ThreadID != res1.ThreadID || saved.Usage != before.Usage || saved.Turns != 1 {
		t.Fatalf("state.json after the first host: %+v", st)
	}

	second := newFakeHostOn(t, fake, stateDir, nil)
	second.folder = first.folder
	s2 := second.session(t)
	if got := s2.Status(); got.ThreadID != res1.ThreadID || got.Usage != before.Usage || got.Turns != 1 {
		t.Fatalf("status after restart: thread %s usage %+v turns %d; want thread %s usage %+v turns 1",
			got.ThreadID, got.Usage, got.Turns, res1.ThreadID, before.Usage)
	}
	res2, _ := run(t, s2, "what was the word?")
	if !res2.Completed || res2.ThreadID != res1.ThreadID || res2.NewThread {
		t.Fatalf("turn after restart: %+v", res2)
	}
	if n := len(fake.Starts()); n != 2 {
		t.Errorf("codex started %d times, want once per host", n)
	}
	th := fake.Threads()[res1.ThreadID]
	if len(fake.Threads()) != 1 || len(th.Resumes) != 1 || th.Resumes[0].ThreadID != res1.ThreadID || th.Resumes[0].Cwd != first.folder {
		t.Errorf("the old thread was not resumed: threads %d, resumes %+v", len(fake.Threads()), th.Resumes)
	}
	after := s2.Status()
	if after.Usage.Total != 2*before.Usage.Total || after.Usage.Prompt != 2*before.Usage.Prompt || after.Turns != 2 {
		t.Errorf("totals did not carry over: before %+v after %+v", before.Usage, after.Usage)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	if st := readState(t, stateDir); st.Folders[first.folder].Usage != after.Usage || st.Folders[first.folder].Turns != 2 {
		t.Errorf("state.json after the second host: %+v", st)
	}
}

func TestCorruptStateFile(t *testing.T) {
	cases := map[string]string{
		"truncated":    `{"version":1,"folders":{"/x":{"threadId":`,
		"empty":        ``,
		"garbage":      "\x00\xff not json at all",
		"wrong shape":  `{"version":1,"folders":["a","b"]}`,
		"null":         `null`,
		"null folders": `{"version":1,"folders":null}`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stateDir := t.TempDir()
			if err := os.WriteFile(filepath.Join(stateDir, "state.json"), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			fh := newFakeHostOn(t, codextest.NewFake(t), stateDir, nil)
			s := fh.session(t)
			if st := s.Status(); st.ThreadID != "" || st.Turns != 0 {
				t.Errorf("status from a corrupt state: %+v", st)
			}
			res, _ := run(t, s, "hello")
			if !res.Completed || res.NewThread {
				t.Fatalf("turn: %+v", res)
			}
			st := readState(t, stateDir)
			if st.Folders[fh.folder].ThreadID != res.ThreadID {
				t.Errorf("state.json not rewritten: %+v", st)
			}
		})
	}
}

// TestTranscriptFiles runs two turns on one thread and reads both transcripts: every row is there,
// and the second turn appended to the first.
func TestTranscriptFiles(t *testing.T) {
	fh := newFakeHost(t, func(c *agenthost.Config) { c.Approver = newApprover(hermesproto.DecisionOnce) })
	fh.fake.OnTurn(func(ft *codextest.FakeTurn) {
		ft.Reasoning("run the tests first")
		if _, err := ft.ExecWithApproval("go test ./...", 1, "--- FAIL: TestX\n"); err != nil {
			return
		}
		ft.AgentMessage("TestX fails: " + ft.Prompt)
		u := codex.TokenUsage{InputTokens: 500, CachedInputTokens: 200, OutputTokens: 40, ReasoningOutputTokens: 9, TotalTokens: 540}
		ft.Usage(u, u, 1000)
		ft.Complete(codex.TurnCompleted, nil)
	})
	s := fh.session(t)
	res1, _ := run(t, s, "why does CI fail?")
	jsonlPath, mdPath, err := agenthost.TranscriptPaths(fh.state, res1.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	if res1.TranscriptPath != mdPath {
		t.Fatalf("TranscriptPath %q, want %q", res1.TranscriptPath, mdPath)
	}
	jsonl1, md1 := readFile(t, jsonlPath), readFile(t, mdPath)

	lines := readTranscript(t, fh.state, res1.ThreadID)
	var roles []string
	var result *hermesproto.Result
	for _, l := range lines {
		if l.ThreadID != res1.ThreadID || l.TurnID != res1.TurnID || l.Folder != fh.folder {
			t.Errorf("line ids: %s", l.raw)
		}
		switch l.Kind {
		case "message":
			r := l.Message.Role
			if len(l.Message.ToolCalls) > 0 {
				r += ":" + l.Message.ToolCalls[0].Function.Name
			}
			roles = append(roles, r)
		case "result":
			result = l.Result
		}
	}
	if want := "user assistant:exec_command tool assistant"; strings.Join(roles, " ") != want {
		t.Errorf("message rows %q, want %q", strings.Join(roles, " "), want)
	}
	if msgs := res1.Messages; len(msgs) != 4 || msgs[0].Content != "why does CI fail?" || !strings.Contains(msgs[2].Content, "--- FAIL: TestX") ||
		msgs[3].Content != "TestX fails: why does CI fail?" || msgs[1].Reasoning != "run the tests first" {
		t.Errorf("projected rows: %+v", msgs)
	}
	if a := transcriptApprovals(lines); len(a) != 1 || a[0].Decision != hermesproto.DecisionOnce || a[0].Command != "go test ./..." {
		t.Errorf("approvals: %+v", a)
	}
	if result == nil || result.Status != agenthost.StatusCompleted || result.Usage.Total != 540 || result.Usage.CacheRead != 200 ||
		result.FinalText != "TestX fails: why does CI fail?" || len(result.Messages) != 0 {
		t.Errorf("result line: %+v", result)
	}

	for _, want := range []string{
		"### You · ",
		"\n\n> why does CI fail?\n\n",
		"**$** `go test ./...` — ✗ exit 1",
		"<details><summary>output · 1 line</summary>\n\n```text\n--- FAIL: TestX\n```\n\n</details>",
		"> ✅ allowed once by you: `go test ./...`",
		"### Hermes\n\n> TestX fails: why does CI fail?",
		"_completed · turn `" + res1.TurnID + "` · 1 tool call(s) · 540 tokens (prompt 500, cached 200, output 40) · context 50%",
	} {
		if !strings.Contains(md1, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md1)
		}
	}
	// The approval is shown under its tool call, before the tool's output.
	if i, j := strings.Index(md1, "**$** `go test"), strings.Index(md1, "allowed once by you"); i < 0 || j < i || j > strings.Index(md1, "--- FAIL") {
		t.Errorf("approval not under its tool call:\n%s", md1)
	}

	res2, _ := run(t, s, "and now?")
	if res2.ThreadID != res1.ThreadID || res2.TranscriptPath != mdPath {
		t.Fatalf("second turn: thread %s path %s", res2.ThreadID, res2.TranscriptPath)
	}
	jsonl2, md2 := readFile(t, jsonlPath), readFile(t, mdPath)
	if !strings.HasPrefix(jsonl2, jsonl1) || !strings.HasPrefix(md2, md1) || len(md2) <= len(md1) {
		t.Fatal("the second turn did not append to the transcripts")
	}
	if !strings.Contains(md2[len(md1):], "turn `"+res2.TurnID+"`") || !strings.Contains(md2[len(md1):], "> and now?") {
		t.Errorf("second turn's markdown:\n%s", md2[len(md1):])
	}
	results := 0
	for _, l := range readTranscript(t, fh.state, res1.ThreadID) {
		if l.Kind == "result" {
			results++
		}
	}
	if results != 2 {
		t.Errorf("%d result lines after two turns", results)
	}
}
