package codextest

// This file is the fake's thread list (thread/list, thread/name/set), its models (model/list and
// config/read's model) and
// the account's rate limits (account/rateLimits/read and .../updated).

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
)

// FakeModels are the models the fake offers in model/list: FakeModel (the default) and a smaller one.
var FakeModels = []map[string]any{
	{
		"id": FakeModel, "model": FakeModel, "displayName": "GPT-5.5", "description": "the fake's default",
		"hidden": false, "isDefault": true, "defaultReasoningEffort": "medium",
		"supportedReasoningEfforts": []map[string]any{
			{"reasoningEffort": "low", "description": "fast"}, {"reasoningEffort": "medium", "description": "balanced"},
			{"reasoningEffort": "high", "description": "deep"},
		},
	},
	{
		"id": "gpt-5.5-mini", "model": "gpt-5.5-mini", "displayName": "GPT-5.5 mini", "description": "smaller",
		"hidden": false, "isDefault": false, "defaultReasoningEffort": "low",
		"supportedReasoningEfforts": []map[string]any{
			{"reasoningEffort": "minimal", "description": "fastest"}, {"reasoningEffort": "low", "description": "fast"},
		},
	},
}

// handleMore answers the requests of this file; it reports whether m was one.
func (c *fakeConn) handleMore(m Message) bool {
	switch m.Method {
	case "thread/list":
		c.threadList(m)
	case "thread/turns/list":
		c.threadTurnsList(m)
	case "thread/name/set":
		var p codex.ThreadSetNameParams
		if !c.decode(m, &p) {
			return true
		}
		c.f.mu.Lock()
		th := c.f.threads[p.ThreadID]
		if th != nil {
			th.Name = p.Name
		}
		c.f.mu.Unlock()
		if th == nil {
			c.fail(m.ID, codex.CodeInvalidRequest, "thread not found: %s", p.ThreadID)
			return true
		}
		c.reply(m.ID, map[string]any{})
	case codex.MethodReviewStart:
		var p struct {
			ThreadID string          `json:"threadId"`
			Target   json.RawMessage `json:"target"`
		}
		if !c.decode(m, &p) {
			return true
		}
		if loaded, running := c.thread(p.ThreadID); !loaded || running != nil {
			c.fail(m.ID, codex.CodeInvalidRequest, "thread not found or busy: %s", p.ThreadID)
			return true
		}
		ft := c.newTurn(p.ThreadID, codex.TurnStartParams{ThreadID: p.ThreadID}, false)
		ft.Prompt, ft.ReviewTarget = "review", p.Target
		c.reply(m.ID, map[string]any{"turn": ft.turnJSON(codex.TurnInProgress, false), "reviewThreadId": p.ThreadID})
		c.begin(ft, func() { ft.Item(map[string]any{"type": "enteredReviewMode", "review": "current changes"}) })
	case "model/list":
		c.reply(m.ID, map[string]any{"data": FakeModels, "nextCursor": nil})
	case "config/read":
		c.f.mu.Lock()
		model := c.f.configModel
		c.f.mu.Unlock()
		config := map[string]any{}
		if model != "" {
			config["model"] = model
		}
		c.reply(m.ID, map[string]any{"config": config, "origins": map[string]any{}})
	case "account/rateLimits/read":
		c.f.mu.Lock()
		rl := c.f.rateLimits
		c.f.mu.Unlock()
		if rl == nil {
			c.fail(m.ID, codex.CodeInvalidRequest, "codex account authentication required to read rate limits")
			return true
		}
		c.reply(m.ID, map[string]any{"rateLimits": rl, "rateLimitsByLimitId": nil})
	default:
		return c.handleAccount(m)
	}
	return true
}

// threadList answers thread/list: the threads whose cwd matches (cwd a string or a list), newest
// first, restricted to includedThreadIds when given.
func (c *fakeConn) threadList(m Message) {
	var p codex.ThreadListParams
	if !c.decode(m, &p) {
		return
	}
	var cwds []string
	if len(p.Cwd) > 0 {
		var one string
		if json.Unmarshal(p.Cwd, &one) == nil {
			cwds = []string{one}
		} else {
			_ = json.Unmarshal(p.Cwd, &cwds)
		}
	}
	c.f.mu.Lock()
	var threads []*FakeThread
	for _, th := range c.f.threads {
		if (len(cwds) == 0 || slices.Contains(cwds, th.Cwd)) && (p.IncludedThreadIds == nil || slices.Contains(p.IncludedThreadIds, th.ID)) {
			threads = append(threads, th)
		}
	}
	slices.SortFunc(threads, func(a, b *FakeThread) int { return b.updated.Compare(a.updated) })
	if p.Limit > 0 && len(threads) > p.Limit {
		threads = threads[:p.Limit]
	}
	data := make([]map[string]any, 0, len(threads))
	for _, th := range threads {
		_, thread := c.threadResult(th)
		thread["name"] = th.Name
		thread["preview"] = th.preview
		thread["updatedAt"] = th.updated.Unix()
		data = append(data, thread)
	}
	c.f.mu.Unlock()
	c.reply(m.ID, map[string]any{"data": data, "nextCursor": nil})
}

// threadTurnsList answers thread/turns/list as codex does for a thread it keeps, loaded or not: its
// turns (those thread/revert left), newest first unless sortDirection is "asc", at most limit of
// them from cursor on (the fake's cursors are indexes), each with every item it completed (the
// fake's itemsView is always "full"); nextCursor is null on the last page.
func (c *fakeConn) threadTurnsList(m Message) {
	var p codex.ThreadTurnsListParams
	if !c.decode(m, &p) {
		return
	}
	c.f.mu.Lock()
	th := c.f.threads[p.ThreadID]
	var turns []*FakeTurn
	if th != nil {
		for _, id := range th.Turns {
			turns = append(turns, th.played[id])
		}
	}
	c.f.mu.Unlock()
	if th == nil {
		c.fail(m.ID, codex.CodeInvalidRequest, "no rollout found for thread id %s", p.ThreadID)
		return
	}
	if p.SortDirection != "asc" {
		slices.Reverse(turns)
	}
	from := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(p.Cursor)
		if err != nil || n < 0 || n > len(turns) {
			c.fail(m.ID, codex.CodeInvalidRequest, "invalid cursor: %s", p.Cursor)
			return
		}
		from = n
	}
	to := len(turns)
	if p.Limit > 0 && from+p.Limit < to {
		to = from + p.Limit
	}
	data := make([]map[string]any, 0, to-from)
	for _, ft := range turns[from:to] {
		data = append(data, ft.historyJSON())
	}
	var next any
	if to < len(turns) {
		next = strconv.Itoa(to)
	}
	c.reply(m.ID, map[string]any{"data": data, "nextCursor": next, "backwardsCursor": nil})
}

// SetConfigModel sets the model config/read answers, as a `model = "..."` in codex's config.toml
// would ("": none).
func (f *Fake) SetConfigModel(model string) {
	f.mu.Lock()
	f.configModel = model
	f.mu.Unlock()
}

// SetRateLimits sets the account's rate limits: account/rateLimits/read answers them (it fails
// until they are set, as for an API key), and account/rateLimits/updated announces them.
func (f *Fake) SetRateLimits(primaryPercent, secondaryPercent int) {
	rl := map[string]any{
		"limitId": "codex", "limitName": nil, "planType": "plus", "credits": nil,
		"primary":   map[string]any{"usedPercent": primaryPercent, "windowDurationMins": 300, "resetsAt": time.Now().Add(time.Hour).Unix()},
		"secondary": map[string]any{"usedPercent": secondaryPercent, "windowDurationMins": 10080, "resetsAt": time.Now().Add(72 * time.Hour).Unix()},
	}
	f.mu.Lock()
	f.rateLimits = rl
	f.mu.Unlock()
	if c := f.current(); c != nil {
		c.notify("account/rateLimits/updated", map[string]any{"rateLimits": rl})
	}
}

// ExitReview ends a review as codex does: an exitedReviewMode item with the rendered review, then
// the same text as the agent's message.
func (ft *FakeTurn) ExitReview(rendered string) {
	ft.Item(map[string]any{"type": codex.ItemExitedReviewMode, "review": rendered})
	ft.AgentMessage(rendered)
}

// sandboxPolicy is the sandbox of a thread/start or thread/resume answer, as codex shapes it.
func sandboxPolicy(mode string) map[string]any {
	switch mode {
	case codex.SandboxWorkspaceWrite:
		return map[string]any{"type": "workspaceWrite", "writableRoots": []string{}, "networkAccess": false,
			"excludeTmpdirEnvVar": false, "excludeSlashTmp": false}
	case codex.SandboxFullAccess:
		return map[string]any{"type": "dangerFullAccess"}
	default:
		return map[string]any{"type": "readOnly"}
	}
}
