package hermesproto

import (
	"encoding/json"
	"time"
)

// MethodTurnEvent is the notification that streams a turn's events to clients that turn on the
// turnEvents setting.
const MethodTurnEvent = "hermes/turnEvent"

// TurnEventParams are hermes/turnEvent's params: one event of a turn in a workspace folder.
type TurnEventParams struct {
	Folder   string `json:"folder"`
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Event    Event  `json:"event"`
}

// EventKind says what happened in a turn, and so which fields of its Event are set.
type EventKind string

// Event kinds.
const (
	EventKindTurnStarted      EventKind = "turnStarted"
	EventKindSteered          EventKind = "steered"
	EventKindAnswerDelta      EventKind = "answerDelta"
	EventKindReasoningDelta   EventKind = "reasoningDelta"
	EventKindToolStarted      EventKind = "toolStarted"
	EventKindToolOutput       EventKind = "toolOutput"
	EventKindToolCompleted    EventKind = "toolCompleted"
	EventKindPlan             EventKind = "plan"
	EventKindDiff             EventKind = "diff"
	EventKindUsage            EventKind = "usage"
	EventKindCompaction       EventKind = "compaction"
	EventKindApprovalWaiting  EventKind = "approvalWaiting"
	EventKindApprovalResolved EventKind = "approvalResolved"
	EventKindFallback         EventKind = "fallback"
	EventKindError            EventKind = "error"
	EventKindTurnCompleted    EventKind = "turnCompleted"
)

// Event is one thing that happened in a turn. Kind says which of the other fields are set.
type Event struct {
	Kind     EventKind `json:"kind"`
	ThreadID string    `json:"threadId,omitempty"`
	TurnID   string    `json:"turnId,omitempty"`
	Time     time.Time `json:"time"`
	// Text is the delta of answer, reasoning and tool output events, the message of error and
	// fallback events, and the input of turnStarted and steered events.
	Text       string      `json:"text,omitempty"`
	Tool       *ToolEvent  `json:"tool,omitempty"`
	Plan       []PlanStep  `json:"plan,omitempty"`
	Diff       string      `json:"diff,omitempty"`
	Usage      *Usage      `json:"usage,omitempty"`
	Compaction *Compaction `json:"compaction,omitempty"`
	Approval   *Approval   `json:"approval,omitempty"`
	Result     *Result     `json:"result,omitempty"`
}

// ToolEvent is a tool call starting or finishing.
type ToolEvent struct {
	ItemID string `json:"itemId"`
	CallID string `json:"callId"`
	// Name is exec_command, apply_patch, mcp.<server>.<tool>, a dynamic tool's name, or web_search.
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
	// Preview is a one-line summary of at most 120 characters.
	Preview    string `json:"preview"`
	DurationMs int64  `json:"durationMs,omitempty"`
	IsError    bool   `json:"isError,omitempty"`
	Result     string `json:"result,omitempty"`
	Status     string `json:"status,omitempty"`
	// ExitCode is a finished command's exit status (exec_command only; absent when codex gave none).
	ExitCode *int `json:"exitCode,omitempty"`
	// Changes are the files of an apply_patch call, typed, for the server's own use: Args carries
	// their paths and kinds on the wire.
	Changes []FileChange `json:"-"`
}

// PlanStep is one step of the agent's plan; Status is pending, inProgress or completed.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// Compaction reports that codex compacted a thread's context: the runtime contract's
// session:compress event. Runtime is always "codex_app_server". Count is the folder's compactions so
// far. Codex compacts a thread's context on its side, so the conversation goes on in the same
// session and thread: OldSessionID and OldThreadID, which would name the session and thread it left,
// are always empty, and InPlace (hermes rewrote its own record of the conversation where it was) is
// always false: the transcript keeps every row, and marks the compaction.
type Compaction struct {
	SessionID    string `json:"sessionId"`
	OldSessionID string `json:"oldSessionId"`
	InPlace      bool   `json:"inPlace"`
	Count        int    `json:"count"`
	Runtime      string `json:"runtime"`
	ThreadID     string `json:"threadId"`
	OldThreadID  string `json:"oldThreadId"`
	TurnID       string `json:"turnId"`
}

// ApprovalKind says what an approval is for.
type ApprovalKind string

// Approval kinds: run a command, apply a patch, widen the sandbox (network or file-system access),
// an MCP server's question (elicitation), the agent's questions with options (userInput).
const (
	ApprovalKindExec        ApprovalKind = "exec"
	ApprovalKindPatch       ApprovalKind = "patch"
	ApprovalKindPermissions ApprovalKind = "permissions"
	ApprovalKindElicitation ApprovalKind = "elicitation"
	ApprovalKindUserInput   ApprovalKind = "userInput"
)

// Asks reports whether an approval of this kind asks questions, answered with hermes.approve's
// answers: an elicitation or userInput.
func (k ApprovalKind) Asks() bool {
	return k == ApprovalKindElicitation || k == ApprovalKindUserInput
}

// Decision is a person's answer to an approval.
type Decision string

// Decisions, as hermes.approve takes them. For a permissions approval once grants the access for
// the turn, session for the session; for questions once (or session) answers them, deny declines
// and stop declines and stops the turn.
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

// Approval is a request of codex's that needs a person: run a command, apply a patch, widen the
// sandbox, or answer questions.
type Approval struct {
	ID       string       `json:"approvalId"`
	Kind     ApprovalKind `json:"kind"`
	Folder   string       `json:"folder"`
	ThreadID string       `json:"threadId"`
	TurnID   string       `json:"turnId"`
	ItemID   string       `json:"itemId"`
	// Summary is one line for a prompt or a menu: the command, or the patch's change kinds and paths.
	Summary string `json:"summary"`
	// Command and Cwd are set for exec approvals.
	Command string `json:"command,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// Changes are set for patch approvals, GrantRoot when codex asks for write access under a root.
	Changes   []FileChange `json:"changes,omitempty"`
	GrantRoot string       `json:"grantRoot,omitempty"`
	Reason    string       `json:"reason,omitempty"`
	// Permissions is set for permissions approvals: the access asked for.
	Permissions *Permissions `json:"permissions,omitempty"`
	// Server is the MCP server of an elicitation; Message what it says; URL the page an elicitation
	// asks the person to visit (shown as text: the server never opens it).
	Server  string `json:"server,omitempty"`
	Message string `json:"message,omitempty"`
	URL     string `json:"url,omitempty"`
	// Tool is set when an elicitation is codex's own approval of an MCP tool call: the tool it asks
	// to run. It is answered like a command (auto-approval accepts it).
	Tool string `json:"tool,omitempty"`
	// Questions are an elicitation's form fields, or a userInput approval's questions.
	Questions []Question `json:"questions,omitempty"`
	// Answers are the person's answers by question id, once answered; a secret question's answer
	// is never here.
	Answers map[string][]string `json:"answers,omitempty"`
	// Warning is set when a patch touches files with unsaved edits in the editor: the sentence that
	// says so ("calc.go has unsaved changes in your editor: applying this patch will conflict with
	// them"), for the prompt.
	Warning string `json:"warning,omitempty"`
	// Decision and DecidedBy are set once it is resolved: DecidedBy is "user", "policy" (auto-approved),
	// "timeout", "error", "dismissed", "withdrawn" or "shutdown".
	Decision  Decision `json:"decision,omitempty"`
	DecidedBy string   `json:"decidedBy,omitempty"`
	// AutoSource says why an approval was auto-approved (DecidedBy "policy"): an AutoApproveStatus source.
	AutoSource string    `json:"autoSource,omitempty"`
	Asked      time.Time `json:"asked"`
}

// FileChange is one file of a patch approval, with its unified diff.
type FileChange struct {
	Path string         `json:"path"`
	Kind FileChangeKind `json:"kind"`
	Diff string         `json:"diff"`
	// Before and After are, on a completed apply_patch tool event, the file's content before the
	// turn's first patch of it and as this patch left it, for the server's own use (the changes
	// under review); nil unless the file was updated in place, existed before and after, inside
	// the folder and within the size a checkpoint records.
	Before []byte `json:"-"`
	After  []byte `json:"-"`
}

// FileChangeKind is how a patch changes a file: Type is add, delete or update; MovePath is set
// (else empty) when an update moves the file.
type FileChangeKind struct {
	Type     string `json:"type"`
	MovePath string `json:"move_path"`
}

// Result is how a turn ended, carried by its turnCompleted event.
type Result struct {
	// FinalText is the text of the last agent message (or the fallback's answer); on a failure it
	// says what went wrong and what to do next.
	FinalText string `json:"finalText"`
	// Messages is the turn's transcript: the user message, then assistant rows (text, or one tool
	// call each) and tool rows; of a long turn, the user message and its last rows.
	Messages []Message `json:"messages"`
	// OmittedMessages counts the rows of a long turn left out of Messages (the transcript file
	// has them).
	OmittedMessages int `json:"omittedMessages,omitempty"`
	ToolIterations  int `json:"toolIterations"`
	// Status is completed, interrupted or failed. Completed is true for a turn that ran to its end,
	// Partial for one that did not.
	Status    string `json:"status"`
	Completed bool   `json:"completed"`
	Partial   bool   `json:"partial"`
	Error     string `json:"error,omitempty"`
	ThreadID  string `json:"threadId"`
	TurnID    string `json:"turnId"`
	// APICalls counts the agent turns run for this result: two when a fallback retried it.
	APICalls  int   `json:"apiCalls"`
	Usage     Usage `json:"usage"`
	Compacted bool  `json:"compacted,omitempty"`
	// Fallback names the fallback provider that answered, if one did.
	Fallback string `json:"fallback,omitempty"`
	// NewThread says the folder's thread could not be resumed and a new one was started.
	NewThread bool `json:"newThread,omitempty"`
	// Retired says codex was restarted after this turn.
	Retired bool `json:"retired,omitempty"`
	// TranscriptPath is the thread's markdown transcript.
	TranscriptPath string `json:"transcriptPath,omitempty"`
	DurationMs     int64  `json:"durationMs"`
}

// Message is one row of a turn's transcript, shaped like a chat-completions message; Role is user,
// assistant or tool.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one tool call of an assistant row; Type is always "function".
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction names a tool call's tool and carries its JSON arguments as a string.
type ToolFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
