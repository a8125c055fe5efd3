package hermesproto_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// TestDocsDescribeTheProtocol: docs/protocol.md, the reference editor integrations are written
// from, names every command and every field of each command's arguments and result, of
// hermes.status, of hermes/turnEvent and of its event, each where the reader looks for it: the
// command's row of the Commands table, the event's table. A field added here and not documented
// fails.
func TestDocsDescribeTheProtocol(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	commands := section(t, doc, "## Commands")

	for _, c := range []struct {
		name         string
		args, result []any
	}{
		{hermesproto.CmdAsk, []any{hermesproto.AskArgs{}}, []any{hermesproto.AskResult{}}},
		{hermesproto.CmdCancel, []any{hermesproto.FolderArgs{}}, []any{hermesproto.CancelResult{}}},
		{hermesproto.CmdApprove, []any{hermesproto.ApproveArgs{}}, []any{hermesproto.ApproveResult{}}},
		{hermesproto.CmdNewThread, []any{hermesproto.FolderArgs{}}, []any{hermesproto.NewThreadResult{}}},
		{hermesproto.CmdCompact, []any{hermesproto.FolderArgs{}}, []any{hermesproto.CompactResult{}}},
		{hermesproto.CmdToggleYolo, []any{hermesproto.FolderArgs{}}, []any{hermesproto.ToggleYoloResult{}, hermesproto.AutoApproveStatus{}}},
		{hermesproto.CmdShowTranscript, []any{hermesproto.FolderArgs{}}, []any{hermesproto.ShowTranscriptResult{}}},
		{hermesproto.CmdThreadHistory, []any{hermesproto.ThreadHistoryArgs{}}, []any{
			hermesproto.ThreadHistory{}, hermesproto.HistoryTurn{}, hermesproto.HistoryItem{},
		}},
		{hermesproto.CmdChanges, []any{hermesproto.ChangesArgs{}}, []any{hermesproto.ChangesResult{}, hermesproto.ChangeInfo{}}},
		{hermesproto.CmdKeepChange, []any{hermesproto.KeepChangeArgs{}, hermesproto.ChangeRef{}}, []any{hermesproto.KeepChangeResult{}}},
		{hermesproto.CmdRevertChange, []any{hermesproto.RevertChangeArgs{}}, []any{hermesproto.RevertChangeResult{}, hermesproto.SkippedChange{}}},
		{hermesproto.CmdStatus, nil, []any{
			hermesproto.Status{}, hermesproto.FolderStatus{}, hermesproto.TurnState{}, hermesproto.ApprovalSummary{}, hermesproto.AutoApproveStatus{},
			hermesproto.CodexStatus{},
		}},
	} {
		row := row(t, commands, "`"+c.name+"`")
		cells := regexp.MustCompile(`[^\\]\|`).Split(" "+row, -1) // "", command, arguments, result, "": a \| is no cell's end
		if len(cells) != 5 {
			t.Errorf("the row of %s has %d cells, want 3: %s", c.name, len(cells)-2, row)
			continue
		}
		mentions(t, c.name+"'s arguments", cells[2], false, c.args...)
		mentions(t, c.name+"'s result", cells[3], true, c.result...)
	}
	if n := strings.Count(commands, "\n| `hermes."); n != len(hermesproto.Commands()) {
		t.Errorf("the Commands table has %d commands, the protocol %d", n, len(hermesproto.Commands()))
	}
	mentions(t, "the usage paragraph", paragraph(t, commands, "`usage` is "), true, hermesproto.Usage{})

	turnEvent := section(t, doc, "## `"+hermesproto.MethodTurnEvent+"`")
	mentions(t, "hermes/turnEvent's params", paragraph(t, turnEvent, "Sent when"), true, hermesproto.TurnEventParams{})
	for _, f := range jsonFields(hermesproto.Event{}) {
		if !strings.Contains(turnEvent, "\n| `"+f+"`") && !strings.Contains(turnEvent, ", `"+f+"`") {
			t.Errorf("the event table of %s has no row for %s", hermesproto.MethodTurnEvent, f)
		}
	}
	kinds := row(t, turnEvent, "`kind`")
	for _, k := range []hermesproto.EventKind{
		hermesproto.EventKindTurnStarted, hermesproto.EventKindSteered, hermesproto.EventKindAnswerDelta,
		hermesproto.EventKindReasoningDelta, hermesproto.EventKindToolStarted, hermesproto.EventKindToolOutput,
		hermesproto.EventKindToolCompleted, hermesproto.EventKindPlan, hermesproto.EventKindDiff, hermesproto.EventKindUsage,
		hermesproto.EventKindCompaction, hermesproto.EventKindApprovalWaiting, hermesproto.EventKindApprovalResolved,
		hermesproto.EventKindFallback, hermesproto.EventKindError, hermesproto.EventKindTurnCompleted,
	} {
		if !strings.Contains(kinds, "`"+string(k)+"`") {
			t.Errorf("the kind row of %s does not name %s", hermesproto.MethodTurnEvent, k)
		}
	}
	mentions(t, "the event's tool", row(t, turnEvent, "`tool`"), true, hermesproto.ToolEvent{})
	mentions(t, "the event's plan", row(t, turnEvent, "`plan`"), true, hermesproto.PlanStep{})
	mentions(t, "the event's compaction", row(t, turnEvent, "`compaction`"), true, hermesproto.Compaction{})
	mentions(t, "the event's approval", row(t, turnEvent, "`approval`"), true, hermesproto.Approval{}, hermesproto.FileChange{}, hermesproto.FileChangeKind{})
	mentions(t, "the event's result", row(t, turnEvent, "`result`"), true, hermesproto.Result{}, hermesproto.Message{})

	approvals := section(t, doc, "## Approvals")
	for _, title := range []string{
		hermesproto.ApprovalActionDeny, hermesproto.ApprovalActionAllowOnce, hermesproto.ApprovalActionAllowSession,
		hermesproto.ApprovalActionStop, hermesproto.ApprovalActionShowDiff,
	} {
		if !strings.Contains(approvals, "`"+title+"`") {
			t.Errorf("the Approvals section does not name the action %q", title)
		}
	}
	trust := section(t, doc, "### Trusted settings")
	for _, title := range []string{hermesproto.TrustActionKeepAsking, hermesproto.TrustActionAllow} {
		if !strings.Contains(trust, "`"+title+"`") {
			t.Errorf("the Trusted settings section does not name the action %q", title)
		}
	}
	codeActions := section(t, doc, "## Code actions")
	for _, title := range []string{
		hermesproto.CodeActionTitleRunInstruct, hermesproto.CodeActionTitleAskSelection, hermesproto.CodeActionTitleFixDiagnostic,
		hermesproto.CodeActionTitleStopTurn, hermesproto.CodeActionTitleDeny, hermesproto.CodeActionTitleAllowOnce,
		hermesproto.CodeActionTitleAllowSession, strings.TrimSuffix(hermesproto.CodeActionTitleUndoTurn, " (%d files)"),
		hermesproto.CodeActionTitleKeepChange, hermesproto.CodeActionTitleRevertChange,
		hermesproto.CodeActionTitleKeepAll, hermesproto.CodeActionTitleRevertFile,
	} {
		// "Hermes: deny: " is written **Hermes: deny: …**, with the approval's summary after it.
		if !strings.Contains(codeActions, "**"+strings.TrimSpace(title)) {
			t.Errorf("the Code actions section does not name %q", title)
		}
	}
}

// mentions fails unless text names every JSON field of each value's type as a word. With marks, a
// field the server may leave out (omitempty) must be written name? at least once, and any other
// field without the ?, as the shapes in docs/protocol.md write them.
func mentions(t *testing.T, what, text string, marks bool, values ...any) {
	t.Helper()
	for _, v := range values {
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			name, opts, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			optional := strings.Contains(","+opts+",", ",omitempty,")
			found, marked := false, false
			for _, m := range regexp.MustCompile(`(?:^|[^A-Za-z0-9_])`+regexp.QuoteMeta(name)+`(\??)(?:$|[^A-Za-z0-9_])`).FindAllStringSubmatch(text, -1) {
				found = true
				marked = marked || (m[1] == "?") == optional
			}
			switch {
			case !found:
				t.Errorf("docs/protocol.md: %s does not mention %s (%T): %s", what, name, v, text)
			case marks && !marked && optional:
				t.Errorf("docs/protocol.md: %s: %s (%T) may be left out: write it %s?", what, name, v, name)
			case marks && !marked:
				t.Errorf("docs/protocol.md: %s: %s (%T) is always sent: write it without a ?", what, name, v)
			}
		}
	}
}

// jsonFields are the names of v's top-level JSON fields.
func jsonFields(v any) []string {
	rt := reflect.TypeOf(v)
	var names []string
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "-" && name != "" {
			names = append(names, name)
		}
	}
	return names
}

// section is the part of doc under the heading that starts with heading, up to the next heading of its level or above.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	level := len(heading) - len(strings.TrimLeft(heading, "#"))
	lines := strings.Split(doc, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, heading) {
			continue
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if n := len(lines[j]) - len(strings.TrimLeft(lines[j], "#")); n > 0 && n <= level {
				end = j
				break
			}
		}
		return strings.Join(lines[i+1:end], "\n")
	}
	t.Fatalf("docs/protocol.md has no %q section", heading)
	return ""
}

// row is the table row of text whose first cell starts with key.
func row(t *testing.T, text, key string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "| "+key) {
			return line
		}
	}
	t.Fatalf("docs/protocol.md has no table row for %s", key)
	return ""
}

// paragraph is the paragraph of text that starts with start.
func paragraph(t *testing.T, text, start string) string {
	t.Helper()
	i := strings.Index(text, "\n"+start)
	if i < 0 {
		t.Fatalf("docs/protocol.md has no paragraph starting %q", start)
	}
	p, _, _ := strings.Cut(text[i+1:], "\n\n")
	return p
}
