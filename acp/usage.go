package acp

import "context"

// PromptUsage is the token usage of a prompt's turn, which an agent may give in its answer to
// session/prompt (the member usage, from ACP's session usage RFD: v1's PromptResponse has no such
// member). Unlike codex's, its InputTokens leave out the cached tokens read (CachedReadTokens).
type PromptUsage struct {
	TotalTokens       int64 `json:"totalTokens"`
	InputTokens       int64 `json:"inputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	ThoughtTokens     int64 `json:"thoughtTokens,omitempty"`
	CachedReadTokens  int64 `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens int64 `json:"cachedWriteTokens,omitempty"`
}

// PromptAnswer is the answer to session/prompt with the usage the agent gave, if any (nil when it
// gave none, or one that does not decode).
type PromptAnswer struct {
	PromptResponse
	Usage *PromptUsage `json:"usage,omitempty"`
}

// PromptWithUsage is Prompt, answered with the usage the agent gave too.
func (c *Client) PromptWithUsage(ctx context.Context, sessionID string, prompt []ContentBlock) (*PromptAnswer, error) {
	c.inflight.uncancel(sessionID) // a Cancel ends with its prompt
	var res PromptAnswer
	err := c.call(ctx, MethodSessionPrompt, PromptRequest{SessionID: sessionID, Prompt: orEmpty(prompt)}, &res)
	if err := c.caughtUp(ctx, MethodSessionPrompt, err); err != nil {
		return nil, err
	}
	return &res, nil
}
