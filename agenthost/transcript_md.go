package agenthost

// This file renders a thread's markdown transcript as a conversation: the prompt, each tool call as
// one readable line (with its approvals, its output folded and bounded, a patch's diffs), the
// answer as the model wrote it, and one line of outcome per turn. The live transcript
// (transcript_live.go) writes these rows as the turn goes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
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

// mdAnswer is the agent's message, as the model wrote it (markdown).
func mdAnswer(text string) string {
	return "### Hermes\n\n" + strings.TrimSpace(text) + "\n\n"
}

// mdTool is a finished tool item: one line with what it did and how it went, the approvals it
// needed, then its output (folded) or a patch's diffs. note, when set, says why it never completed.
func mdTool(item *codex.Item, took time.Duration, approvals []Approval, note string) string {
	var b strings.Builder
	result, isErr := ToolResult(item)
	outcome := toolOutcome(item.Status, isErr, item.ExitCode, took)
	if note != "" {
		outcome = "✗ " + note
	}
	switch item.Type {
	case codex.ItemCommandExecution:
		fmt.Fprintf(&b, "**$** %s — %s\n\n", MarkdownCode(oneLine(item.Command)), outcome)
	case codex.ItemFileChange:
		var paths []string
		for _, c := range item.Changes {
			paths = append(paths, MarkdownCode(c.Path)+" ("+c.Kind.Type+")")
		}
		fmt.Fprintf(&b, "**Patch** %s — %s\n\n", strings.Join(paths, ", "), outcome)
	default:
		fmt.Fprintf(&b, "**%s** %s — %s\n\n", ToolName(item), MarkdownCode(Truncate(oneLine(argsText(ToolArgs(item))), mdArgsChars)), outcome)
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
				b.WriteString(MarkdownCode(c.Path) + ":\n\n" + fence(boundLines(c.Diff, mdDiffLines), "diff") + "\n")
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

// mdApproval is one approval on one line.
func mdApproval(a Approval) string {
	mark, what, then := "✅", "", ""
	switch a.Decision {
	case DecisionOnce:
		what = "allowed once"
	case DecisionSession:
		what = "allowed for the session"
	case DecisionDeny:
		mark, what = "⛔", "denied"
	case DecisionStop:
		mark, what, then = "⛔", "denied", ", and the turn stopped"
	default:
		mark, what = "…", "not answered"
	}
	by := a.DecidedBy
	switch by {
	case "user", "":
		by = "by you"
	case "policy":
		by = "automatically (" + a.AutoSource + ")"
	default:
		by = "(" + by + ")"
	}
	return fmt.Sprintf("> %s %s %s%s: %s\n\n", mark, what, by, then, MarkdownCode(Truncate(oneLine(a.Summary), mdArgsChars)))
}

// mdOutput folds a tool's output, bounded; nothing for no output.
func mdOutput(out string) string {
	out = strings.TrimRight(out, "\n")
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
func mdEnd(res *Result) string {
	var b strings.Builder
	if res.Error != "" {
		b.WriteString("**Error:** " + oneLine(res.Error) + "\n\n")
	}
	u := res.Usage
	fmt.Fprintf(&b, "_%s · turn `%s` · %d tool call(s) · %d tokens (prompt %d, cached %d, output %d)", res.Status, res.TurnID, res.ToolIterations, u.Total, u.Prompt, u.CacheRead, u.Output)
	if p := u.ContextPercent(); p > 0 {
		fmt.Fprintf(&b, " · context %d%%", p)
	}
	if res.Fallback != "" {
		fmt.Fprintf(&b, " · answered by fallback **%s**", res.Fallback)
	}
	fmt.Fprintf(&b, " · %s_\n", res.Duration.Round(100*time.Millisecond).String())
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

func quote(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n> ")
}

// fence wraps text in a code fence of lang longer than any run of backticks inside it.
func fence(s, lang string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + ticks + "\n"
}
