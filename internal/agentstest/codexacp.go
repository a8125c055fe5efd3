package agentstest

import (
	"path/filepath"
	"testing"

	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// prepareCodexACP gives codex-acp a CODEX_HOME whose config.toml points codex at a fakemodel
// server that plays turns, and no API key, so that only the fake is ever asked. codex-acp runs the
// codex app-server of its own @openai/codex dependency (CODEX_PATH would pick another).
func prepareCodexACP(t testing.TB, a *Agent, turns []Turn) error {
	model, err := fakemodel.Start()
	if err != nil {
		return err
	}
	t.Cleanup(func() { _ = model.Close() })
	codexHome := filepath.Join(a.Home, ".codex")
	if err := model.WriteCodexConfig(codexHome); err != nil {
		return err
	}
	model.SetDefault(codexReply(turns))
	a.Env = append(a.Env,
		"CODEX_HOME="+codexHome,
		"OPENAI_API_KEY=",
		"CODEX_API_KEY=",
		"NO_BROWSER=1", // no ChatGPT sign-in offered: there is no browser
	)
	// codex-acp starts in workspace-write, where codex applies a patch inside the folder without
	// asking; in read-only it asks first.
	a.AskMode = "read-only"
	return nil
}

// codexReply answers codex's Responses API requests from turns: a request that offers no tools (a
// thread's title, a summary) or belongs to no turn gets [fakemodel.DefaultReply]; a turn with an
// Edit first answers with an apply_patch call, then, once a tool call is in the input, with its
// Answer. The answer depends only on the request, so requests codex makes besides the turn's own
// cannot take a turn's reply.
func codexReply(turns []Turn) func(fakemodel.Request) fakemodel.Reply {
	return func(r fakemodel.Request) fakemodel.Reply {
		if len(r.Tools) == 0 {
			return fakemodel.DefaultReply(r)
		}
		turn, calls, ok := codexTurn(turns, r.Input)
		if !ok {
			return fakemodel.DefaultReply(r)
		}
		if turn.Edit != nil && calls == 0 {
			return fakemodel.Patch(fakemodel.UpdateFilePatch(turn.Edit.Path, turn.Edit.Old, turn.Edit.New))
		}
		return fakemodel.Message(turn.Answer)
	}
}

// codexTurn finds the newest user message of input that holds a turn's prompt, and counts the
// tool calls after it.
func codexTurn(turns []Turn, input []fakemodel.Item) (turn Turn, calls int, ok bool) {
	for i := len(input) - 1; i >= 0; i-- {
		it := input[i]
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		if turn, ok = findTurn(turns, it.Text); !ok {
			continue
		}
		for _, later := range input[i+1:] {
			if later.Type == "function_call" || later.Type == "custom_tool_call" {
				calls++
			}
		}
		return turn, calls, true
	}
	return Turn{}, 0, false
}
