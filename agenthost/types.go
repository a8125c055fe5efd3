package agenthost

import (
	"github.com/hermes-lsp/hermes-lsp/codex"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// Input is what a person asked for in one turn.
type Input struct {
	// Prompt is the full text sent to the agent.
	Prompt string
	// Title names the thread when the turn starts a new one: the user's words, without the context
	// Prompt adds. Empty: Prompt's first line.
	Title string
	// Model and Effort override the folder's model and reasoning effort for this turn (and, as
	// codex does, the thread's later turns); empty keeps them.
	Model, Effort string

	// notes are the reverts the model is told of before Prompt (session_changes.go): the session
	// sets them when it registers the turn.
	notes []RevertNote
}

// Turn states, as Result.Status and Status.TurnState report them.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
	StatusIdle        = "idle"
)

// UsageFrom converts codex's breakdown. inputTokens already includes cached tokens, so it is the
// prompt as is; cached tokens are never added to it again.
func UsageFrom(u codex.TokenUsage, contextWindow int64) hermesproto.Usage {
	return hermesproto.Usage{
		Prompt:        u.InputTokens,
		Input:         max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteInputTokens),
		CacheRead:     u.CachedInputTokens,
		CacheWrite:    u.CacheWriteInputTokens,
		Output:        u.OutputTokens,
		Completion:    u.OutputTokens,
		Reasoning:     u.ReasoningOutputTokens,
		Total:         u.TotalTokens,
		ContextWindow: contextWindow,
		LastPrompt:    u.InputTokens,
	}
}

// FallbackProvider is a model provider to retry a turn on when codex's provider is out of quota.
type FallbackProvider struct {
	Name string `json:"name"`
	// Kind is "responses" (an OpenAI Responses API, run through codex with full tools) or "chat" (an
	// OpenAI-compatible chat completions API, text only).
	Kind      string `json:"kind"`
	BaseURL   string `json:"baseUrl"`
	Model     string `json:"model"`
	APIKeyEnv string `json:"apiKeyEnv"`
}

// Fallback kinds.
const (
	FallbackResponses = "responses"
	FallbackChat      = "chat"
)

func planOf(steps []codex.PlanStep) []hermesproto.PlanStep {
	out := make([]hermesproto.PlanStep, len(steps))
	for i, p := range steps {
		out[i] = hermesproto.PlanStep{Step: p.Step, Status: p.Status}
	}
	return out
}

func fileChangesOf(changes []codex.FileChange) []hermesproto.FileChange {
	out := make([]hermesproto.FileChange, len(changes))
	for i, c := range changes {
		out[i] = hermesproto.FileChange{Path: c.Path, Kind: hermesproto.FileChangeKind{Type: c.Kind.Type, MovePath: c.Kind.MovePath}, Diff: c.Diff}
	}
	return out
}

// toolChanges are the files of a file change item, typed, for its tool events; nil for other items.
func toolChanges(item *codex.Item) []hermesproto.FileChange {
	if item.Type != codex.ItemFileChange {
		return nil
	}
	return fileChangesOf(item.Changes)
}
