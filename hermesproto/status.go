package hermesproto

import "time"

// Status is hermes.status's answer: one entry per workspace folder with a session.
type Status struct {
	Folders []FolderStatus `json:"folders"`
	// RateLimits are the account's, as codex last reported them; absent when unknown (an API key
	// has none).
	RateLimits *RateLimits `json:"rateLimits,omitempty"`
	// Account is who codex is signed in as; absent when codex is not running yet or could not say.
	// SignedIn is false when codex has no account (run hermes.login).
	Account  *Account `json:"account,omitempty"`
	SignedIn *bool    `json:"signedIn,omitempty"`
	// Codex is the codex the server runs, as it last started it; absent before it has.
	Codex *CodexStatus `json:"codex,omitempty"`
	// Agent is the agent that runs the turns; absent before a host exists.
	Agent *AgentStatus `json:"agent,omitempty"`
}

// AgentStatus is hermes.status's agent: its kind ("codex", or "acp" for an agent of the Agent Client
// Protocol), its name and version as it says them (before it has started: the program the settings
// name, and no version), and which of Hermes's features it supports and lacks (Agent* names; both
// empty until the agent has started and said); a command of a feature it lacks is refused with a
// message saying so.
type AgentStatus struct {
	Kind     string   `json:"kind"`
	Name     string   `json:"name"`
	Version  string   `json:"version,omitempty"`
	Supports []string `json:"supports"`
	Lacks    []string `json:"lacks"`
}

// The features an agent may lack, as AgentStatus names them.
const (
	AgentFeatureThreads    = "threads"    // its threads listed (hermes.threads) and found again after a restart
	AgentFeatureResume     = "resume"     // a thread resumed in a new agent process
	AgentFeatureHistory    = "history"    // a thread's past turns (hermes.threadHistory)
	AgentFeatureSteer      = "steer"      // input added to a running turn
	AgentFeatureCompact    = "compact"    // hermes.compact
	AgentFeatureForgetTurn = "forgetTurn" // an undone turn dropped from what the agent remembers
	AgentFeatureReview     = "review"     // a review by the agent itself (else by a prompt)
	AgentFeatureModels     = "models"     // its models listed (hermes.models)
	AgentFeatureLogin      = "login"      // sign-in through Hermes (hermes.login)
	AgentFeatureRateLimits = "rateLimits"
	AgentFeatureFallback   = "fallback" // fallbackProviders
)

// CodexStatus is hermes.status's codex: the release codex named when it started ("" when it named
// none), the releases hermes-lsp supports (MinVersion to TestedVersion, the one it is tested with),
// a warning when the release is outside them (saying what to do; a release older than MinVersion is
// refused), and the release's known problems.
type CodexStatus struct {
	Version       string   `json:"version"`
	MinVersion    string   `json:"minVersion"`
	TestedVersion string   `json:"testedVersion"`
	Warning       string   `json:"warning,omitempty"`
	KnownProblems []string `json:"knownProblems,omitempty"`
}

// RateLimits are the account's rate-limit windows (codex's primary, usually 5 hours, and secondary,
// usually a week), and the limit reached, if one was.
type RateLimits struct {
	Primary   *RateLimitWindow `json:"primary,omitempty"`
	Secondary *RateLimitWindow `json:"secondary,omitempty"`
	Reached   string           `json:"reached,omitempty"`
}

// Highest is the most used of the windows and its length in minutes, or false when none is known.
func (r RateLimits) Highest() (percent int, minutes int64, ok bool) {
	for _, w := range []*RateLimitWindow{r.Primary, r.Secondary} {
		if w != nil && (!ok || w.UsedPercent > percent) {
			percent, minutes, ok = w.UsedPercent, w.WindowMinutes, true
		}
	}
	return percent, minutes, ok
}

// RateLimitWindow is how much of a window is used, its length, and when it resets (Unix seconds).
type RateLimitWindow struct {
	UsedPercent   int   `json:"usedPercent"`
	WindowMinutes int64 `json:"windowMinutes,omitempty"`
	ResetsAt      int64 `json:"resetsAt,omitempty"`
}

// FolderStatus is one folder of hermes.status.
type FolderStatus struct {
	Folder   string `json:"folder"`
	ThreadID string `json:"threadId"`
	// Turn is the folder's latest turn; null before the first.
	Turn           *TurnState `json:"turn" tstype:"TurnState | null,required"`
	Usage          Usage      `json:"usage"`
	ContextPercent int        `json:"contextPercent"`
	// PendingApprovals are the approvals waiting for an answer; never null.
	PendingApprovals []ApprovalSummary `json:"pendingApprovals"`
	// Yolo is whether approvals are answered without asking, whatever the source (AutoApprove says it).
	Yolo        bool              `json:"yolo"`
	AutoApprove AutoApproveStatus `json:"autoApprove"`
	// Model and Effort are the folder's choice for its turns (hermes.setModel); absent: the defaults.
	Model  string `json:"model,omitempty"`
	Effort string `json:"effort,omitempty"`
	// Fallback names the fallback provider the folder's turns run on while the providers before it
	// in the chain (the primary first) cool down after failing; absent: the primary.
	Fallback    string `json:"fallback,omitempty"`
	Compactions int    `json:"compactions"`
	// IneffectiveCompactions counts the compactions in a row of the folder's thread that left the
	// context too big: the first model call after each still sent a prompt of at least half the
	// context window (64,000 tokens at least). A compaction that clears it, or a new thread, sets it
	// back to 0.
	IneffectiveCompactions int `json:"ineffectiveCompactions"`
	// TranscriptPath is the markdown transcript of the folder's thread, when it has one.
	TranscriptPath string `json:"transcriptPath,omitempty"`
	// UndoableTurns are the turns hermes.undoTurn can undo, newest first; never null.
	UndoableTurns []UndoableTurn `json:"undoableTurns"`
}

// UndoableTurn is an undoable turn: the files its patches changed, and when it started.
type UndoableTurn struct {
	TurnID    string    `json:"turnId"`
	Files     []string  `json:"files"`
	StartedAt time.Time `json:"startedAt"`
}

// TurnState is a turn's id and state: running, completed, interrupted or failed.
type TurnState struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// ApprovalSummary is a pending approval as hermes.status lists it; its ApprovalID is what
// hermes.approve takes.
type ApprovalSummary struct {
	ApprovalID string       `json:"approvalId"`
	Kind       ApprovalKind `json:"kind"`
	Summary    string       `json:"summary"`
	// Questions are the questions to answer (elicitation and userInput), for a client that asks
	// them itself.
	Questions []Question `json:"questions,omitempty"`
}

// AutoApproveStatus is hermes.status's and hermes.toggleYolo's autoApprove: whether approvals are
// answered without asking, and why: "config", "env", "flag", "session" or "policy"; null when not
// effective.
type AutoApproveStatus struct {
	Effective bool    `json:"effective"`
	Source    *string `json:"source" tstype:"string | null,required"`
}

// Usage is a turn's or a thread's token accounting. Prompt counts every input token, cached ones
// included; Input only the uncached, unwritten part of it. LastPrompt is the prompt of the last model
// call: how full the context window is.
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
	LastPrompt    int64 `json:"lastPromptTokens,omitempty"`
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
