package hermesproto_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the values in golden_test.go")

// asked is a fixed time, so that the golden files do not change from run to run.
var asked = time.Date(2026, 12, 2, 18, 25, 0, 474993122, time.UTC)

func ptr[T any](v T) *T { return &v }

var usage = hermesproto.Usage{
	Prompt: 1200, Input: 200, CacheRead: 1000, Output: 34, Completion: 34, Reasoning: 7, Total: 1234,
	ContextWindow: 258400, LastPrompt: 1200,
}

var execApproval = hermesproto.Approval{
	ID: "a1", Kind: hermesproto.ApprovalKindExec, Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1",
	ItemID: "call_1", Summary: "make build", Command: "make build", Cwd: "/home/u/work", Asked: asked,
}

// goldenCases are a representative value of every type of the protocol, each pinned by
// testdata/<name>.json. A zero value shows which fields are always sent; a full one every field.
var goldenCases = []struct {
	name  string
	value any
}{
	{"ask_args", hermesproto.AskArgs{
		Prompt: "fix this", URI: "file:///home/u/work/main.go",
		Range: &protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 5, Character: 2}},
		Diagnostics: []protocol.Diagnostic{{
			Range:    protocol.Range{Start: protocol.Position{Line: 4, Character: 1}, End: protocol.Position{Line: 4, Character: 9}},
			Severity: protocol.DiagnosticSeverityError, Source: "compiler", Message: "undefined: x",
		}},
	}},
	{"ask_args_prompt_only", hermesproto.AskArgs{Prompt: "what does this repository do?"}},
	{"folder_args", hermesproto.FolderArgs{URI: "file:///home/u/work"}},
	{"approve_args", hermesproto.ApproveArgs{ApprovalID: "a1", Decision: string(hermesproto.DecisionSession)}},
	{"ask_result", hermesproto.AskResult{ThreadID: "thread-1", TurnID: "turn-1", Folder: "/home/u/work"}},
	{"ask_result_steered", hermesproto.AskResult{ThreadID: "thread-1", TurnID: "turn-1", Folder: "/home/u/work", Steered: true}},
	{"compact_result", hermesproto.CompactResult{ThreadID: "thread-1", TurnID: "turn-2", Folder: "/home/u/work"}},
	{"cancel_result", hermesproto.CancelResult{Cancelled: 1}},
	{"undo_turn_args", hermesproto.UndoTurnArgs{URI: "file:///home/u/work", TurnID: "turn-3", Force: true}},
	{"undo_turn_result", hermesproto.UndoTurnResult{
		TurnID: "turn-3", Restored: []string{"calc.go"},
		Skipped: []hermesproto.SkippedFile{{Path: "notes.md", Reason: "changed since the turn: run hermes.undoTurn with force to restore it anyway"}},
	}},
	{"approve_result", hermesproto.ApproveResult{ApprovalID: "a1", Decision: hermesproto.DecisionOnce}},
	{"new_thread_result", hermesproto.NewThreadResult{Folder: "/home/u/work"}},
	{"toggle_yolo_result", hermesproto.ToggleYoloResult{
		Folder: "/home/u/work", Yolo: true, AutoApprove: hermesproto.AutoApproveStatus{Effective: true, Source: ptr("session")},
	}},
	{"toggle_yolo_result_kept_on", hermesproto.ToggleYoloResult{
		Folder: "/home/u/work", Yolo: true, AutoApprove: hermesproto.AutoApproveStatus{Effective: true, Source: ptr("flag")},
		Reason: "hermes-lsp was started with --yolo",
	}},
	{"show_transcript_result", hermesproto.ShowTranscriptResult{
		Path: "/home/u/.local/state/hermes-lsp/transcripts/thread-1.md", URI: "file:///home/u/.local/state/hermes-lsp/transcripts/thread-1.md",
	}},
	{"status", hermesproto.Status{Folders: []hermesproto.FolderStatus{
		{
			Folder: "/home/u/work", ThreadID: "thread-1", Turn: &hermesproto.TurnState{ID: "turn-1", State: "running"},
			Usage: usage, ContextPercent: 0,
			PendingApprovals: []hermesproto.ApprovalSummary{{ApprovalID: "a1", Kind: hermesproto.ApprovalKindExec, Summary: "make build"}},
			Yolo:             false, AutoApprove: hermesproto.AutoApproveStatus{}, Fallback: "backup", Compactions: 3, IneffectiveCompactions: 1,
			UndoableTurns: []hermesproto.UndoableTurn{{TurnID: "turn-0", Files: []string{"calc.go", "calc_test.go"}, StartedAt: asked}},
		},
		{Folder: "/home/u/other", PendingApprovals: []hermesproto.ApprovalSummary{}, UndoableTurns: []hermesproto.UndoableTurn{}},
	}}},
	{"status_empty", hermesproto.Status{Folders: []hermesproto.FolderStatus{}}},
	{"status_codex", hermesproto.Status{
		Folders: []hermesproto.FolderStatus{},
		Codex: &hermesproto.CodexStatus{
			Version: "0.172.0", MinVersion: "0.159.3", TestedVersion: "0.171.0",
			Warning: "codex 0.172.0 is newer than 0.171.0, the newest release hermes-lsp is tested with (it supports 0.159.3 to 0.171.0): it may work. If something fails, install @openai/codex@0.171.0 (npm install -g @openai/codex@0.171.0) or set hermes.codex.path to a codex from 0.159.3 to 0.171.0.",
		},
	}},
	{"status_agent", hermesproto.Status{
		Folders: []hermesproto.FolderStatus{},
		Agent: &hermesproto.AgentStatus{
			Kind: "acp", Name: "gemini-cli", Version: "0.20.0",
			Supports: []string{hermesproto.AgentFeatureThreads, hermesproto.AgentFeatureResume},
			Lacks:    []string{hermesproto.AgentFeatureSteer, hermesproto.AgentFeatureCompact},
		},
	}},
	{"status_codex_problems", hermesproto.Status{
		Folders: []hermesproto.FolderStatus{},
		Codex: &hermesproto.CodexStatus{
			Version: "0.167.2", MinVersion: "0.159.3", TestedVersion: "0.171.0",
			KnownProblems: []string{"thread/list ignores includedThreadIds", "turn/interrupt for a turn that has just ended is never answered"},
		},
	}},
	{"status_rate_limits", hermesproto.Status{
		Folders: []hermesproto.FolderStatus{{Folder: "/home/u/work", Model: "gpt-5.5", Effort: "high", PendingApprovals: []hermesproto.ApprovalSummary{}, UndoableTurns: []hermesproto.UndoableTurn{}}},
		RateLimits: &hermesproto.RateLimits{
			Primary:   &hermesproto.RateLimitWindow{UsedPercent: 85, WindowMinutes: 300, ResetsAt: 1796000000},
			Secondary: &hermesproto.RateLimitWindow{UsedPercent: 20, WindowMinutes: 10080},
		},
	}},
	{"ask_args_model", hermesproto.AskArgs{Prompt: "explain", Model: "gpt-5.5-mini", Effort: "low"}},
	{"threads_result", []hermesproto.ThreadInfo{
		{ThreadID: "thread-2", Title: "Add a Sum function", UpdatedAt: asked, Turns: 3, Current: true},
		{ThreadID: "thread-1", Title: "", UpdatedAt: asked},
		{ThreadID: "thread-0", Title: "Review uncommitted changes", UpdatedAt: asked, Turns: 1, Review: true},
	}},
	{"resume_thread_args", hermesproto.ResumeThreadArgs{URI: "file:///home/u/work", ThreadID: "thread-1"}},
	{"thread_history_args", hermesproto.ThreadHistoryArgs{URI: "file:///home/u/work", ThreadID: "thread-1"}},
	{"thread_history", hermesproto.ThreadHistory{
		Folder: "/home/u/work", ThreadID: "thread-1", Truncated: true,
		TranscriptPath: "/home/u/.local/state/hermes-lsp/transcripts/thread-1.md",
		Turns: []hermesproto.HistoryTurn{
			{TurnID: "turn-1", Status: "completed", DurationMs: 1534, Items: []hermesproto.HistoryItem{
				{Kind: hermesproto.HistoryItemKindUser, ItemID: "user_1", Text: "build it"},
				{Kind: hermesproto.HistoryItemKindTool, ItemID: "call_1", Name: "exec_command", Preview: "make build", Status: "failed",
					IsError: true, ExitCode: ptr(2), DurationMs: 192, Output: "calc.go:3: undefined: x\n"},
				{Kind: hermesproto.HistoryItemKindTool, ItemID: "call_2", Name: "apply_patch", Preview: "/home/u/work/calc.go", Status: "completed",
					Output: "apply_patch status=completed, 1 change(s)", Diff: "--- /home/u/work/calc.go\n+++ /home/u/work/calc.go (update)\n@@ -1 +1 @@\n-a\n+b\n"},
				{Kind: hermesproto.HistoryItemKindAnswer, ItemID: "msg_1", Text: "Built."},
			}},
			{TurnID: "turn-2", Status: "failed", Error: "usageLimitExceeded: quota exceeded", Items: []hermesproto.HistoryItem{
				{Kind: hermesproto.HistoryItemKindUser, ItemID: "user_2", Text: "and test it"},
			}},
			{TurnID: "turn-3", Status: "completed", Items: []hermesproto.HistoryItem{{Kind: hermesproto.HistoryItemKindCompaction, ItemID: "compact_1"}}},
		},
	}},
	{"thread_history_empty", hermesproto.ThreadHistory{Folder: "/home/u/work", Turns: []hermesproto.HistoryTurn{}}},
	{"resume_thread_result", hermesproto.ResumeThreadResult{Folder: "/home/u/work", ThreadID: "thread-1"}},
	{"models_result", []hermesproto.ModelInfo{
		{ID: "gpt-5.5", DisplayName: "GPT-5.5", Efforts: []string{"low", "medium", "high"}, DefaultEffort: "medium", Current: true},
		{ID: "gpt-5.5-mini", DisplayName: "GPT-5.5 mini", Efforts: []string{"minimal", "low"}, DefaultEffort: "low"},
	}},
	{"set_model_args", hermesproto.SetModelArgs{URI: "file:///home/u/work", Model: "gpt-5.5", Effort: "high"}},
	{"login_args", hermesproto.LoginArgs{Method: hermesproto.LoginDeviceCode}},
	{"login_result", hermesproto.LoginResult{
		Method: hermesproto.LoginDeviceCode, LoginID: "login-1", URL: "https://auth.openai.com/codex/device", UserCode: "ABCD-1234",
	}},
	{"login_result_signed_in", hermesproto.LoginResult{AlreadySignedIn: &hermesproto.Account{Type: "chatgpt", Email: "dev@example.com", PlanType: "plus"}}},
	{"set_model_result", hermesproto.SetModelResult{Folder: "/home/u/work", Model: "gpt-5.5", Effort: "high"}},
	{"review_args", hermesproto.ReviewArgs{URI: "file:///home/u/work", Target: &hermesproto.ReviewTarget{Type: "baseBranch", Branch: "main"}}},
	{"review_args_default", hermesproto.ReviewArgs{}},
	{"review_result", hermesproto.ReviewResult{ReviewID: "review-1-t5", ThreadID: "thread-2", TurnID: "turn-3", Folder: "/home/u/work"}},
	{"finding_ref", hermesproto.FindingRef{ReviewID: "review-1-t5", FindingID: "2"}},
	{"dismiss_result", hermesproto.DismissResult{Dismissed: 3}},
	{"turn_event_started", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindTurnStarted, ThreadID: "thread-1", TurnID: "turn-1", Time: asked, Text: "build it",
	}}},
	{"turn_event_tool", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindToolCompleted, ThreadID: "thread-1", TurnID: "turn-1", Time: asked,
		Tool: &hermesproto.ToolEvent{
			ItemID: "call_1", CallID: "codex_exec_call_1", Name: "exec_command", Args: json.RawMessage(`{"command":"make build","cwd":"/home/u/work"}`),
			Preview: "make build", DurationMs: 192, IsError: true, Result: "exit 2", Status: "failed",
		},
	}}},
	{"turn_event_plan", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindPlan, Time: asked,
		Plan: []hermesproto.PlanStep{{Step: "read the code", Status: "completed"}, {Step: "fix it", Status: "inProgress"}},
	}}},
	{"turn_event_diff", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindDiff, Time: asked, Diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
	}}},
	{"turn_event_usage", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindUsage, Time: asked, Usage: &usage,
	}}},
	{"turn_event_compaction", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-2", Event: hermesproto.Event{
		Kind: hermesproto.EventKindCompaction, Time: asked,
		Compaction: &hermesproto.Compaction{SessionID: "thread-1", Count: 1, Runtime: "codex_app_server", ThreadID: "thread-1", TurnID: "turn-2"},
	}}},
	{"turn_event_approval_waiting", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindApprovalWaiting, Time: asked, Approval: &execApproval,
	}}},
	{"turn_event_approval_resolved", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindApprovalResolved, Time: asked, Approval: &hermesproto.Approval{
			ID: "a2", Kind: hermesproto.ApprovalKindPatch, Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", ItemID: "patch_1",
			Summary: "update /home/u/work/x.go, move /home/u/work/y.go",
			Changes: []hermesproto.FileChange{
				{Path: "/home/u/work/x.go", Kind: hermesproto.FileChangeKind{Type: "update"}, Diff: "@@ -1 +1 @@\n-a\n+b\n"},
				{Path: "/home/u/work/y.go", Kind: hermesproto.FileChangeKind{Type: "update", MovePath: "/home/u/work/z.go"}, Diff: ""},
			},
			GrantRoot: "/home/u/work", Reason: "tidy up", Decision: hermesproto.DecisionSession, DecidedBy: "policy", AutoSource: "session",
			Asked: asked,
		},
	}}},
	{"turn_event_error", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindError, Time: asked, Text: "quota exceeded",
	}}},
	{"turn_event_completed", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindTurnCompleted, ThreadID: "thread-1", TurnID: "turn-1", Time: asked,
		Result: &hermesproto.Result{
			FinalText: "Built.",
			Messages: []hermesproto.Message{
				{Role: "user", Content: "build it"},
				{Role: "assistant", Reasoning: "run make", ToolCalls: []hermesproto.ToolCall{{
					ID: "call_1", Type: "function", Function: hermesproto.ToolFunction{Name: "exec_command", Arguments: `{"command":"make build"}`},
				}}},
				{Role: "tool", Content: "ok", ToolCallID: "call_1"},
				{Role: "assistant", Content: "Built."},
			},
			ToolIterations: 1, Status: "completed", Completed: true, ThreadID: "thread-1", TurnID: "turn-1", APICalls: 1,
			Usage: usage, TranscriptPath: "/home/u/.local/state/hermes-lsp/transcripts/thread-1.md", DurationMs: 1534,
		},
	}}},
	{"changes_args", hermesproto.ChangesArgs{URI: "file:///home/u/work/calc.go"}},
	{"changes_result", hermesproto.ChangesResult{Changes: []hermesproto.ChangeInfo{
		{ChangeID: "c1a2b3", URI: "file:///home/u/work/calc.go", Range: protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 4, Character: 13}}, TurnID: "turn-1", Added: 3, Removed: 1, Old: "\treturn a - b\n"},
		{ChangeID: "c4d5e6", URI: "file:///home/u/work/calc.go", Range: protocol.Range{Start: protocol.Position{Line: 14}, End: protocol.Position{Line: 14}}, TurnID: "turn-1", Removed: 2},
	}}},
	{"change_ref", hermesproto.ChangeRef{ChangeID: "c1a2b3"}},
	{"keep_change_args", hermesproto.KeepChangeArgs{ChangeID: "c1a2b3"}},
	{"keep_change_args_all", hermesproto.KeepChangeArgs{URI: "file:///home/u/work/calc.go"}},
	{"keep_change_result", hermesproto.KeepChangeResult{Kept: 1}},
	{"revert_change_args", hermesproto.RevertChangeArgs{ChangeID: "c1a2b3", Force: true}},
	{"revert_change_result", hermesproto.RevertChangeResult{
		Reverted: []string{"c1a2b3"},
		Skipped:  []hermesproto.SkippedChange{{ChangeID: "c4d5e6", Reason: "you edited these lines since Hermes changed them: revert with force to put back what was there anyway"}},
	}},
	{"turn_event_failed", hermesproto.TurnEventParams{Folder: "/home/u/work", ThreadID: "thread-1", TurnID: "turn-1", Event: hermesproto.Event{
		Kind: hermesproto.EventKindTurnCompleted, Time: asked,
		Result: &hermesproto.Result{
			FinalText: "The fallback answered.", Status: "failed", Partial: true, Error: "quota exceeded", ThreadID: "thread-1", TurnID: "turn-1",
			APICalls: 2, Compacted: true, Fallback: "backup", NewThread: true, Retired: true,
		},
	}}},
}

// TestGoldenJSON: every value marshals to its golden file byte for byte, and the file decodes back
// into the same value (no field is lost on the way in). go test ./hermesproto -update rewrites
// the files; review their diff, since it is a change of the wire protocol.
func TestGoldenJSON(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := json.MarshalIndent(c.value, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", c.name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (-update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s changed (-update rewrites it if the change is meant):\n--- got\n%s\n--- want\n%s", path, got, want)
			}
			back := reflect.New(reflect.TypeOf(c.value))
			if err := json.Unmarshal(want, back.Interface()); err != nil {
				t.Fatal(err)
			}
			again, err := json.MarshalIndent(back.Elem().Interface(), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(append(again, '\n'), want) {
				t.Errorf("%s does not survive decoding:\n%s", path, again)
			}
		})
	}
}

// TestGoldenCoversEveryType: every exported type of the package appears in some golden value, so
// that a new type cannot reach the wire unpinned.
func TestGoldenCoversEveryType(t *testing.T) {
	covered := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		switch rt.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(rt.Elem())
			return
		}
		if rt.PkgPath() != reflect.TypeOf(hermesproto.Status{}).PkgPath() || covered[rt.Name()] {
			return
		}
		covered[rt.Name()] = true
		if rt.Kind() == reflect.Struct {
			for i := range rt.NumField() {
				walk(rt.Field(i).Type)
			}
		}
	}
	for _, c := range goldenCases {
		walk(reflect.TypeOf(c.value))
	}
	for _, name := range exportedTypes(t) {
		if !covered[name] {
			t.Errorf("no golden value has a %s: add one to goldenCases", name)
		}
	}
}

// exportedTypes lists the exported types declared in the package's non-test files.
func exportedTypes(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				if ts := spec.(*ast.TypeSpec); ts.Name.IsExported() {
					names = append(names, ts.Name.Name)
				}
			}
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		t.Fatal("no exported types found")
	}
	return names
}
