package agenthost

import (
	"encoding/json"
	"time"

	"github.com/hermes-lsp/hermes-lsp/codex"
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
}

// Turn states, as Result.Status and Status.TurnState report them.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
	StatusIdle        = "idle"
)

// Result is how a turn ended.
type Result struct {
	// FinalText is the text of the last completed agent message (or the fallback's answer); on a
	// failure it says what went wrong and what to do next.
	FinalText string `json:"finalText"`
	// Messages is the projected transcript of the turn: the user message once, then assistant rows
	// (text, or one tool call each) and tool rows. A long turn keeps the user message and its last
	// MaxResultMessages-1 rows (OmittedMessages says how many went); the JSONL transcript has all.
	Messages []Message `json:"messages"`
	// OmittedMessages counts the rows of a long turn left out of Messages, after the user message.
	OmittedMessages int `json:"omittedMessages,omitempty"`
	// ToolIterations counts the completed tool items of the turn.
	ToolIterations int `json:"toolIterations"`
	// Status is completed, interrupted or failed.
	Status string `json:"status"`
	// Completed is true for a turn that ran to its end; Partial for one that did not (interrupted,
	// failed, timed out, or codex died).
	Completed bool `json:"completed"`
	Partial   bool `json:"partial"`
	// Error says why the turn did not complete, with codex's last words when it died.
	Error    string `json:"error,omitempty"`
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	// APICalls counts agent turns run for this result: one, two when a fallback retried it.
	APICalls int `json:"apiCalls"`
	// Usage is the turn's token accounting.
	Usage Usage `json:"usage"`
	// Compacted says codex compacted the thread's context during the turn.
	Compacted bool `json:"compacted,omitempty"`
	// Fallback names the fallback provider that answered, if one did.
	Fallback string `json:"fallback,omitempty"`
	// NewThread says the session's thread could not be resumed and a new one was started.
	NewThread bool `json:"newThread,omitempty"`
	// Retired says the codex process was retired after this turn; the next turn starts a new one.
	Retired bool `json:"retired,omitempty"`
	// TranscriptPath is the readable markdown transcript of the thread.
	TranscriptPath string        `json:"transcriptPath,omitempty"`
	Duration       time.Duration `json:"-"`
	DurationMs     int64         `json:"durationMs"`
}

// Message is one row of the projected transcript, shaped like a chat-completions message.
type Message struct {
	Role       string     `json:"role"` // user, assistant, tool
	Content    string     `json:"content"`
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one tool call of an assistant row.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // always "function"
	Function ToolFunction `json:"function"`
}

// ToolFunction names the tool and its JSON arguments.
type ToolFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is token accounting in the host's terms. Prompt counts every input token, cached ones
// included (codex's inputTokens); Input counts only the uncached, unwritten part of it.
type Usage struct {
	Prompt        int64 `json:"promptTokens"`
	Input         int64 `json:"inputTokens"`
	CacheRead     int64 `json:"cacheReadTokens"`
	CacheWrite    int64 `json:"cacheWriteTokens"`
	Output        int64 `json:"outputTokens"`
	Completion    int64 `json:"completionTokens"`
	Reasoning     int64 `json:"reasoningTokens"`
	Total         int64 `json:"totalTokens"`
	ContextWindow int64 `json:"contextWindow,omitempty"`
	// LastPrompt is the prompt size of the last model call: how full the context is.
	LastPrompt int64 `json:"lastPromptTokens,omitempty"`
}

// UsageFrom converts codex's breakdown. inputTokens already includes cached tokens, so it is the
// prompt as is; cached tokens are never added to it again.
func UsageFrom(u codex.TokenUsage, contextWindow int64) Usage {
	return Usage{
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

// Add sums two usages: counts add up, the context window and last prompt are the newer ones.
func (u Usage) Add(v Usage) Usage {
	out := Usage{
		Prompt:        u.Prompt + v.Prompt,
		Input:         u.Input + v.Input,
		CacheRead:     u.CacheRead + v.CacheRead,
		CacheWrite:    u.CacheWrite + v.CacheWrite,
		Output:        u.Output + v.Output,
		Completion:    u.Completion + v.Completion,
		Reasoning:     u.Reasoning + v.Reasoning,
		Total:         u.Total + v.Total,
		ContextWindow: u.ContextWindow,
		LastPrompt:    u.LastPrompt,
	}
	if v.ContextWindow != 0 {
		out.ContextWindow = v.ContextWindow
	}
	if v.LastPrompt != 0 {
		out.LastPrompt = v.LastPrompt
	}
	return out
}

// ContextPercent is how full the context window is, 0 to 100, or 0 when unknown.
func (u Usage) ContextPercent() int {
	if u.ContextWindow <= 0 {
		return 0
	}
	return int(min(100, u.LastPrompt*100/u.ContextWindow))
}

// Event kinds of a turn's event stream.
const (
	EventTurnStarted      = "turnStarted"
	EventSteered          = "steered"
	EventAnswerDelta      = "answerDelta"
	EventReasoningDelta   = "reasoningDelta"
	EventToolStarted      = "toolStarted"
	EventToolOutput       = "toolOutput"
	EventToolCompleted    = "toolCompleted"
	EventPlan             = "plan"
	EventDiff             = "diff"
	EventUsage            = "usage"
	EventCompaction       = "compaction"
	EventApprovalWaiting  = "approvalWaiting"
	EventApprovalResolved = "approvalResolved"
	EventFallback         = "fallback"
	EventError            = "error"
	EventTurnCompleted    = "turnCompleted"
)

// Event is one thing that happened in a turn, for progress and streaming. Kind says which fields
// are set. The lsp package converts it to the hermes/turnEvent wire type (hermesproto.Event) for the
// editors that stream turn events.
type Event struct {
	Kind     string    `json:"kind"`
	ThreadID string    `json:"threadId,omitempty"`
	TurnID   string    `json:"turnId,omitempty"`
	Time     time.Time `json:"time"`
	// Text is the delta of answer, reasoning and tool output events, the message of error and
	// fallback events, and the steering input of a steered event.
	Text       string      `json:"text,omitempty"`
	Tool       *ToolEvent  `json:"tool,omitempty"`
	Plan       []PlanStep  `json:"plan,omitempty"`
	Diff       string      `json:"diff,omitempty"`
	Usage      *Usage      `json:"usage,omitempty"`
	Compaction *Compaction `json:"compaction,omitempty"`
	Approval   *Approval   `json:"approval,omitempty"`
	Result     *Result     `json:"result,omitempty"`
}

// ToolEvent describes a tool call starting or finishing.
type ToolEvent struct {
	ItemID string `json:"itemId"`
	CallID string `json:"callId"`
	// Name is exec_command, apply_patch, mcp.<server>.<tool>, the dynamic tool's name, or web_search.
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
	// Preview is a one-line summary of at most 120 characters.
	Preview    string        `json:"preview"`
	Duration   time.Duration `json:"-"`
	DurationMs int64         `json:"durationMs,omitempty"`
	IsError    bool          `json:"isError,omitempty"`
	Result     string        `json:"result,omitempty"`
	Status     string        `json:"status,omitempty"`
	// ExitCode is a finished command's exit status (exec_command only; nil when codex gave none).
	ExitCode *int `json:"exitCode,omitempty"`
}

// Compaction reports that codex compacted a thread's context.
type Compaction struct {
	SessionID string `json:"sessionId"`
	Count     int    `json:"count"`
	Runtime   string `json:"runtime"` // always "codex_app_server"
	ThreadID  string `json:"threadId"`
	TurnID    string `json:"turnId"`
}

// Approval kinds.
const (
	ApprovalExec  = "exec"
	ApprovalPatch = "patch"
)

// Decision is a person's answer to an approval.
type Decision string

// Decisions.
const (
	DecisionOnce    Decision = "once"    // allow this one
	DecisionSession Decision = "session" // allow this and the like for the rest of the session
	DecisionDeny    Decision = "deny"    // refuse; the turn goes on
	DecisionStop    Decision = "stop"    // refuse and stop the turn
)

// ParseDecision reads a decision as editors send it.
func ParseDecision(s string) (Decision, bool) {
	switch d := Decision(s); d {
	case DecisionOnce, DecisionSession, DecisionDeny, DecisionStop:
		return d, true
	}
	return "", false
}

// Approval is a request of codex's that needs a person: run a command, or apply a patch.
type Approval struct {
	ID       string `json:"approvalId"`
	Kind     string `json:"kind"` // exec or patch
	Folder   string `json:"folder"`
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	ItemID   string `json:"itemId"`
	// Summary is one line for a prompt or a menu: the command, or the patch's change kinds and paths.
	Summary string `json:"summary"`
	// Command and Cwd are set for exec approvals.
	Command string `json:"command,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// Changes and Diff are set for patch approvals (from the fileChange item), GrantRoot when codex
	// asks for write access under a root.
	Changes   []FileChange `json:"changes,omitempty"`
	GrantRoot string       `json:"grantRoot,omitempty"`
	Reason    string       `json:"reason,omitempty"`
	// Decision and DecidedBy are set once it is resolved: DecidedBy is "user", "policy" (auto-approved),
	// "timeout", "error", "dismissed", "withdrawn", "shutdown" or "no approver".
	Decision  Decision `json:"decision,omitempty"`
	DecidedBy string   `json:"decidedBy,omitempty"`
	// AutoSource says why an approval was auto-approved (DecidedBy "policy"): a Source constant.
	AutoSource string    `json:"autoSource,omitempty"`
	Asked      time.Time `json:"asked"`
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

// PlanStep is one step of the agent's plan.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"` // pending, inProgress, completed
}

// FileChange is one file a patch changes.
type FileChange struct {
	Path string         `json:"path"`
	Kind FileChangeKind `json:"kind"`
	// Diff is a unified diff for an update; the whole content for an add or a delete.
	Diff string `json:"diff"`
}

// FileChangeKind says what a FileChange does: Type is add, delete or update; MovePath is where an
// update moves the file, if it does.
type FileChangeKind struct {
	Type     string `json:"type"`
	MovePath string `json:"move_path"`
}

func planOf(steps []codex.PlanStep) []PlanStep {
	out := make([]PlanStep, len(steps))
	for i, p := range steps {
		out[i] = PlanStep{Step: p.Step, Status: p.Status}
	}
	return out
}

func fileChangesOf(changes []codex.FileChange) []FileChange {
	out := make([]FileChange, len(changes))
	for i, c := range changes {
		out[i] = FileChange{Path: c.Path, Kind: FileChangeKind{Type: c.Kind.Type, MovePath: c.Kind.MovePath}, Diff: c.Diff}
	}
	return out
}
