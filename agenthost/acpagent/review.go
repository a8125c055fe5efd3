package acpagent

// This file is a code review by an ACP agent, which has none of its own: a prompt that names what
// to review and asks for the findings in the text codex renders its own reviews as, which
// codex.ParseReview reads.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/acp"
	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/internal/safetext"
)

// StartReview reviews target (codex's review target: uncommittedChanges, baseBranch, commit or
// custom) as a prompt on the session threadID, which the host started for the review.
func (a *Agent) StartReview(ctx context.Context, threadID string, target codex.ReviewTarget) (*codex.Turn, agenthost.Stream, error) {
	what, err := reviewTarget(target)
	if err != nil {
		return nil, nil, err
	}
	s, err := a.session(threadID)
	if err != nil {
		return nil, nil, err
	}
	prompt := reviewPrompt(what, s.folder)
	return a.startPrompt(ctx, threadID, "", []acp.ContentBlock{acp.TextBlock(prompt)})
}

// reviewTarget says what target asks to review, in words for the model.
func reviewTarget(target codex.ReviewTarget) (string, error) {
	var t struct {
		Type, Branch, Sha, Title, Instructions string
	}
	if err := json.Unmarshal(target, &t); err != nil {
		return "", fmt.Errorf("a review target: %w", err)
	}
	quote := func(s string) string { return "`" + strings.ReplaceAll(safetext.LineCut(s, 200), "`", "'") + "`" }
	switch t.Type {
	case "uncommittedChanges":
		return "the uncommitted changes of this repository: what `git diff HEAD` shows, and the untracked files `git status` lists", nil
	case "baseBranch":
		if t.Branch == "" {
			return "", fmt.Errorf("a baseBranch review needs a branch")
		}
		return fmt.Sprintf("the changes of the current branch against the base branch %s: what `git diff %s...HEAD` shows",
			quote(t.Branch), strings.Trim(quote(t.Branch), "`")), nil
	case "commit":
		if t.Sha == "" {
			return "", fmt.Errorf("a commit review needs a sha")
		}
		what := fmt.Sprintf("the commit %s (`git show %s`)", quote(t.Sha), strings.Trim(quote(t.Sha), "`"))
		if t.Title != "" {
			what += ", titled " + quote(t.Title)
		}
		return what, nil
	case "custom":
		if strings.TrimSpace(t.Instructions) == "" {
			return "", fmt.Errorf("a custom review needs instructions")
		}
		return "the code, as these instructions of the user's say:\n\n" + safetext.CutBytes(safetext.Clean(t.Instructions), 16<<10) + "\n", nil
	}
	return "", fmt.Errorf("unknown review target %q: use uncommittedChanges, baseBranch, commit or custom", safetext.LineCut(t.Type, 40))
}

// reviewPrompt asks for a review of what, in folder, with findings as codex renders them.
func reviewPrompt(what, folder string) string {
	return "Review " + what + " in " + folder + `.

Find what is wrong: bugs, security problems, code that does not do what it means to do. Read the files you need; do not change any file and do not run commands that change anything.

End your answer with the review, in exactly this form and with nothing after it:

<your overall verdict, in a short paragraph>

Full review comments:

- [P1] <a short title> — <the absolute path of the file>:<first line>-<last line>
  <what is wrong and why, each line indented by two spaces>

One "- [P…]" line per finding, each followed by its indented body. The priority is [P0] (must fix now), [P1] (urgent), [P2] (normal) or [P3] (low). Lines are the file's lines as they are now, 1-based. If you find nothing, write only your verdict ("No issues found.") without the "Full review comments:" line.`
}
