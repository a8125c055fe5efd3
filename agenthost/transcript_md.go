package agenthost

// This file renders a thread's markdown transcript as a conversation: the prompt, each tool call as
// one readable line (with its approvals, its output folded and bounded, a patch's diffs), the
// answer as the model wrote it, and one line of outcome per turn. The live transcript
// (transcript_live.go) writes these rows as the turn goes.
//
// A transcript is also where the user continues its thread, with `hermes:` lines
// (TranscriptInstructions), so nothing the agent, codex or a tool wrote may read as one: prompts and
// answers are quoted line by line, outputs and diffs fenced, every other field kept to one line
// after the row's markup, control characters removed; guardRow escapes whatever would still slip.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
	"github.com/hermes-lsp/hermes-lsp/internal/textline"
)

// Bounds of what a transcript shows of a tool: the rest is in the JSONL transcript.
const (
	mdOutputLines = 60
	mdOutputBytes = 8 << 10
	mdDiffLines   = 300
	mdArgsChars   = 200
)

// mdHeader starts a turn: who asked, when, and the prompt.
func mdHeader(in Input, compaction bool, at time.Time) string {
	if compaction {
		return fmt.Sprintf("\n---\n\n### Compaction · %s\n\n", at.Format("2006-01-02 15:04:05"))
	}
	return fmt.Sprintf("\n---\n\n### You · %s\n\n%s\n\n", at.Format("2006-01-02 15:04:05"), quote(in.Prompt))
}

// mdAnswer is the agent's message, as the model wrote it (markdown), quoted.
func mdAnswer(text string) string {
	return "### Hermes\n\n" + quote(strings.TrimSpace(text)) + "\n\n"
}

// mdTool is a finished tool item: one line with what it did and how it went, the approvals it
// needed, then its output (folded) or a patch's diffs. note, when set, says why it never completed.
func mdTool(item *codex.Item, took time.Duration, approvals []hermesproto.Approval, note string) string {
	var b strings.Builder
	result, isErr := ToolResult(item)
	outcome := toolOutcome(item.Status, isErr, item.ExitCode, took)
	if note != "" {
		outcome = "✗ " + mdField(note)
	}
	switch item.Type {
	case codex.ItemCommandExecution:
		fmt.Fprintf(&b, "**$** %s — %s\n\n", MarkdownCode(mdField(item.Command)), outcome)
	case codex.ItemFileChange:
		var paths []string
		for _, c := range item.Changes {
			paths = append(paths, MarkdownCode(mdField(c.Path))+" ("+mdField(c.Kind.Type)+")")
		}
		fmt.Fprintf(&b, "**Patch** %s — %s\n\n", strings.Join(paths, ", "), outcome)
	default:
		fmt.Fprintf(&b, "**%s** %s — %s\n\n", Truncate(mdField(ToolName(item)), mdArgsChars), MarkdownCode(Truncate(mdField(argsText(ToolArgs(item))), mdArgsChars)), outcome)
	}
	for _, a := range approvals {
		b.WriteString(mdApproval(a))
	}
	switch item.Type {
	case codex.ItemCommandExecution:
		out := ""
		if item.AggregatedOutput != nil {
			out = *item.AggregatedOutput
		}
		b.WriteString(mdOutput(out))
	case codex.ItemFileChange:
		for _, c := range item.Changes {
			if strings.TrimSpace(c.Diff) != "" {
				b.WriteString(MarkdownCode(mdField(c.Path)) + ":\n\n" + fence(boundLines(mdText(c.Diff), mdDiffLines), "diff") + "\n")
			}
		}
	default:
		b.WriteString(mdOutput(result))
	}
	return b.String()
}

// toolOutcome is "✓ 0.4 s", "✗ exit 1 · 0.4 s", "declined".
func toolOutcome(status string, isErr bool, exitCode *int, took time.Duration) string {
	if status == codex.ItemDeclined {
		return "declined"
	}
	s := "✓"
	if isErr {
		s = "✗"
	}
	if exitCode != nil && *exitCode != 0 {
		s += fmt.Sprintf(" exit %d", *exitCode)
	}
	if took = took.Round(100 * time.Millisecond); took > 0 {
		s += " · " + took.String()
	}
	return s
}

// mdApproval is one approval on one line; for questions, with the answers that are not secret.
func mdApproval(a hermesproto.Approval) string {
	mark, what, then := "✅", "", ""
	switch a.Decision {
	case hermesproto.DecisionOnce:
		what = "allowed once"
		if a.Kind == hermesproto.ApprovalKindPermissions {
			what = "allowed for the turn"
		}
	case hermesproto.DecisionSession:
		what = "allowed for the session"
	case hermesproto.DecisionDeny:
		mark, what = "⛔", "denied"
	case hermesproto.DecisionStop:
		mark, what, then = "⛔", "denied", ", and the turn stopped"
	default:
		mark, what = "…", "not answered"
	}
	if a.Kind.Asks() {
		switch a.Decision {
		case hermesproto.DecisionOnce, hermesproto.DecisionSession:
			what = "answered"
		case hermesproto.DecisionDeny, hermesproto.DecisionStop:
			what = "declined"
		}
	}
	by := a.DecidedBy
	switch by {
	case "user", "":
		by = "by you"
	case "policy":
		by = "automatically (" + mdField(a.AutoSource) + ")"
	default:
		by = "(" + mdField(by) + ")"
	}
	line := fmt.Sprintf("> %s %s %s%s: %s", mark, what, by, then, MarkdownCode(Truncate(mdField(a.Summary), mdArgsChars)))
	for _, q := range a.Questions {
		if answers, ok := a.Answers[q.ID]; ok && !q.Secret {
			line += " · " + Truncate(mdField(questionLabel(q)), mdArgsChars) + ": " + MarkdownCode(Truncate(mdField(strings.Join(answers, ", ")), mdArgsChars))
		}
	}
	return line + "\n\n"
}

// questionLabel names a question briefly: its header, else its text.
func questionLabel(q hermesproto.Question) string {
	if q.Header != "" {
		return q.Header
	}
	return q.Text
}

// mdOutput folds a tool's output, bounded; nothing for no output.
func mdOutput(out string) string {
	out = strings.TrimRight(mdText(out), "\n")
	if strings.TrimSpace(out) == "" {
		return ""
	}
	n := strings.Count(out, "\n") + 1
	summary := fmt.Sprintf("output · %d line", n)
	if n != 1 {
		summary += "s"
	}
	return "<details><summary>" + summary + "</summary>\n\n" + fence(boundLines(out, mdOutputLines), "text") + "\n</details>\n\n"
}

// mdEnd is a turn's last line: its outcome, its id, tools, tokens, context and duration, after the
// error if it failed.
func mdEnd(res *hermesproto.Result) string {
	var b strings.Builder
	if res.Error != "" {
		b.WriteString("**Error:** " + mdField(res.Error) + "\n\n")
	}
	u := res.Usage
	fmt.Fprintf(&b, "_%s · turn %s · %d tool call(s) · %d tokens (prompt %d, cached %d, output %d)", mdField(res.Status), MarkdownCode(mdField(res.TurnID)), res.ToolIterations, u.Total, u.Prompt, u.CacheRead, u.Output)
	if p := u.ContextPercent(); p > 0 {
		fmt.Fprintf(&b, " · context %d%%", p)
	}
	if res.Fallback != "" {
		fmt.Fprintf(&b, " · answered by fallback **%s**", mdField(res.Fallback))
	}
	fmt.Fprintf(&b, " · %s_\n", (time.Duration(res.DurationMs) * time.Millisecond).Round(100*time.Millisecond).String())
	return b.String()
}

// boundLines keeps the first max lines of s (and at most mdOutputBytes), saying how much is left out.
func boundLines(s string, max int) string {
	lines := strings.SplitAfter(s, "\n")
	cut := len(lines) > max
	if cut {
		lines = lines[:max]
	}
	out := strings.Join(lines, "")
	if len(out) > mdOutputBytes {
		out, cut = Truncate(out, mdOutputBytes), true
	}
	if cut {
		out = strings.TrimRight(out, "\n") + fmt.Sprintf("\n… (%d more lines in the JSONL transcript)\n", max0(strings.Count(s, "\n")-strings.Count(out, "\n")))
	}
	return out
}

func max0(n int) int { return max(n, 0) }

// MarkdownCode quotes s as markdown inline code, with a fence longer than any backtick run in it.
func MarkdownCode(s string) string {
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

// argsText is a tool's arguments as compact JSON without HTML escapes ("a > b", not "a \u003e b").
func argsText(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimSpace(b.String())
}

// quote quotes text line by line ("> ", and ">" for an empty line), its line breaks and control
// characters made safe first (mdText).
func quote(s string) string {
	s = strings.TrimRight(mdText(s), "\n")
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if line == "" {
			b.WriteByte('>')
		} else {
			b.WriteString("> " + line)
		}
	}
	return b.String()
}

// fence wraps text in a code fence of lang longer than any run of backticks inside it.
func fence(s, lang string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + ticks + "\n"
}

// mdText is multi-line text from the agent, codex or a tool made safe for the transcript: "\r\n",
// a lone "\r", U+0085, U+2028 and U+2029 become "\n" (an editor, or a reader, would break the line
// there: a quote's "> " must start every line), and other control characters but tab are removed
// (escape sequences, NUL).
func mdText(s string) string {
	if strings.Contains(s, "\r\n") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029':
			return '\n'
		case r < 0x20 || 0x7f <= r && r < 0xa0:
			return -1
		}
		return r
	}, s)
}

// mdField is a one-line field (a command, a path, an error, a summary): its line breaks and runs of
// spaces made one space, control characters removed.
func mdField(s string) string {
	return oneLine(mdText(s))
}

// guardRow escapes, with a backslash, every line of a rendered row that would read as an
// instruction were it outside a fence: one that starts with `hermes:` and is not a quote. The
// writer never renders such a line outside a fence; inside one (a tool's output, a diff) the
// escape holds even when the file the row is appended to has a fence of the user's left open.
func guardRow(row string) string {
	if strings.IndexByte(row, '\r') >= 0 || strings.Contains(row, "\u0085") || strings.Contains(row, "\u2028") || strings.Contains(row, "\u2029") {
		row = mdText(row) // no row has these; a line break nobody quoted would be one
	}
	if !containsInstructionPrefix(row) {
		return row
	}
	var b strings.Builder
	b.Grow(len(row) + 8)
	for off := 0; off <= len(row); {
		line, next := textline.At(row, off)
		if t := strings.TrimLeft(line, " \t"); startsInstruction(t) {
			b.WriteString(line[:len(line)-len(t)] + `\` + t)
		} else {
			b.WriteString(line)
		}
		if next <= len(row) {
			b.WriteByte('\n')
		}
		off = next
	}
	return b.String()
}

// containsInstructionPrefix reports whether s contains `hermes:` in any case: found from its colons,
// rarer than any letter.
func containsInstructionPrefix(s string) bool {
	n := len(instructionPrefix) - 1
	for off := 0; ; {
		i := strings.IndexByte(s[off:], ':')
		if i < 0 {
			return false
		}
		if i += off; i >= n && strings.EqualFold(s[i-n:i+1], instructionPrefix) {
			return true
		}
		off = i + 1
	}
}
