package codextest

// This file is the fake's thread list (thread/list, thread/name/set), thread/revert, its models
// (model/list and config/read's model) and the account's rate limits (account/rateLimits/read and
// .../updated).

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
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

// threadList answers thread/list as codex before 0.171.0 does: the threads whose cwd matches (cwd a
// string or a list), newest first, includedThreadIds ignored; a page holds at most limit of them, and
// at most the page size ThreadPageSize set, from cursor on (the fake's cursors are indexes);
// nextCursor is null on the last page.
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
	defer c.f.mu.Unlock()
	var threads []*FakeThread
	for _, th := range c.f.threads {
		if len(cwds) == 0 || slices.Contains(cwds, th.Cwd) {
			threads = append(threads, th)
		}
	}
	slices.SortFunc(threads, func(a, b *FakeThread) int {
		if d := b.updated.Compare(a.updated); d != 0 {
			return d
		}
		return strings.Compare(b.ID, a.ID) // threads made in the same instant: the later first
	})
	from := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(p.Cursor)
		if err != nil || n < 0 || n > len(threads) {
			c.fail(m.ID, codex.CodeInvalidRequest, "invalid cursor: %s", p.Cursor)
			return
		}
		from = n
	}
	size := p.Limit
	if size <= 0 || c.f.threadPage > 0 && c.f.threadPage < size {
		size = max(c.f.threadPage, 0)
	}
	to := len(threads)
	if size > 0 && from+size < to {
		to = from + size
	}
	data := make([]map[string]any, 0, to-from)
	for _, th := range threads[from:to] {
		_, thread := c.threadResult(th)
		thread["name"] = th.Name
		thread["preview"] = th.preview
		thread["updatedAt"] = th.updated.Unix()
		data = append(data, thread)
	}
	var next any
	if to < len(threads) {
		next = strconv.Itoa(to)
	}
	c.reply(m.ID, map[string]any{"data": data, "nextCursor": next})
}

// ThreadPageSize caps how many threads a page of thread/list holds, as a codex whose pages are
// smaller than the limit asked for (0: the limit alone).
func (f *Fake) ThreadPageSize(n int) {
	f.mu.Lock()
	f.threadPage = n
	f.mu.Unlock()
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

// threadRevert forgets a turn and the later ones from a loaded thread's history, as codex does
// (the fake records the reverted turn in FakeThread.Reverted).
func (c *fakeConn) threadRevert(m Message) {
	var p codex.ThreadRevertParams
	if !c.decode(m, &p) {
		return
	}
	if !c.idle(m, p.ThreadID) {
		return
	}
	c.f.mu.Lock()
	th := c.f.threads[p.ThreadID]
	i := slices.Index(th.Turns, p.BeforeTurnID)
	if i >= 0 {
		th.Reverted = append(th.Reverted, th.Turns[i:]...)
		th.Turns = th.Turns[:i]
	}
	c.f.mu.Unlock()
	if i < 0 {
		c.fail(m.ID, codex.CodeInvalidRequest, "turn %s not found in thread %s", p.BeforeTurnID, p.ThreadID)
		return
	}
	res, _ := c.threadResult(th)
	c.reply(m.ID, res)
}

// idle reports whether threadID is loaded with no turn running, or answers m with codex's error.
func (c *fakeConn) idle(m Message, threadID string) bool {
	loaded, running := c.thread(threadID)
	switch {
	case !loaded:
		c.fail(m.ID, codex.CodeInvalidRequest, "thread not found: %s", threadID)
		return false
	case running != nil:
		c.fail(m.ID, codex.CodeInvalidRequest, "turn already in progress")
		return false
	}
	return true
}
