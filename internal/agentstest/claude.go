package agentstest

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// prepareClaude points Claude's adapter (and the Claude Code it runs) at a fakemodel server's
// Messages API that plays turns, with a key the fake does not check.
func prepareClaude(t testing.TB, a *Agent, turns []Turn) error {
	model, err := fakemodel.Start()
	if err != nil {
		return err
	}
	t.Cleanup(func() { _ = model.Close() })
	model.SetAnthropicDefault(claudeReply(turns, a.Work))
	a.Env = append(a.Env,
		"ANTHROPIC_BASE_URL="+model.AnthropicBaseURL(),
		"ANTHROPIC_API_KEY=fake-key",
		// No telemetry, error reports or update checks: nothing but the fake is asked.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		// The adapter starts Claude Code with its bypassPermissions mode allowed, which Claude Code
		// refuses as root unless told it runs in a sandbox: session/new fails with "Internal error:
		// --dangerously-skip-permissions cannot be used with root/sudo privileges for security
		// reasons". Tests may run as root (CI does).
		"IS_SANDBOX=1",
	)
	// The adapter starts in "auto", where Claude Code decides on permissions itself (asking the
	// model); "default" asks the client before each edit.
	a.AskMode = "default"
	return nil
}

// claudeReply answers the Messages API requests from turns: a request that offers no tools (the
// session's title) or belongs to no turn gets [fakemodel.DefaultAnthropicReply]; a turn with an
// Edit answers with a Read of the file (as a model reads before it edits; Claude Code does not
// require it, but a client then sees a tool call of each kind, read and edit), then an Edit, then
// its Answer. The answer depends only on the request, as with codex.
func claudeReply(turns []Turn, work string) func(fakemodel.AnthropicRequest) fakemodel.Reply {
	return func(r fakemodel.AnthropicRequest) fakemodel.Reply {
		if len(r.Tools) == 0 {
			return fakemodel.DefaultAnthropicReply(r)
		}
		turn, calls, ok := claudeTurn(turns, r.Messages)
		if !ok {
			return fakemodel.DefaultAnthropicReply(r)
		}
		if e := turn.Edit; e != nil {
			path := filepath.Join(work, filepath.FromSlash(e.Path))
			switch calls {
			case 0:
				return fakemodel.Call("Read", jsonObject(map[string]any{"file_path": path}))
			case 1:
				return fakemodel.Call("Edit", jsonObject(map[string]any{"file_path": path, "old_string": e.Old, "new_string": e.New}))
			}
		}
		return fakemodel.Message(turn.Answer)
	}
}

// claudeTurn finds the newest user message whose text blocks hold a turn's prompt, and counts the
// tool_use blocks after it.
func claudeTurn(turns []Turn, messages []fakemodel.AnthropicMessage) (turn Turn, calls int, ok bool) {
	for i := len(messages) - 1; i >= 0; i-- {
		m := messages[i]
		if m.Role != "user" {
			continue
		}
		var text string
		for _, b := range m.Blocks {
			if b.Type == "text" {
				text += b.Text + "\n"
			}
		}
		if turn, ok = findTurn(turns, text); !ok {
			continue
		}
		for _, later := range messages[i+1:] {
			for _, b := range later.Blocks {
				if b.Type == "tool_use" {
					calls++
				}
			}
		}
		return turn, calls, true
	}
	return Turn{}, 0, false
}

// jsonObject encodes v, which cannot fail for the maps of strings used here.
func jsonObject(v map[string]any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
