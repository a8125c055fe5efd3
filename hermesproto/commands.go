package hermesproto

import (
	"time"

	"go.lsp.dev/protocol"
)

// Command names (workspace/executeCommand), without the server's configurable commandPrefix.
const (
	CmdAsk            = "hermes.ask"
	CmdCancel         = "hermes.cancel"
	CmdApprove        = "hermes.approve"
	CmdNewThread      = "hermes.newThread"
	CmdCompact        = "hermes.compact"
	CmdToggleYolo     = "hermes.toggleYolo"
	CmdShowTranscript = "hermes.showTranscript"
	CmdStatus         = "hermes.status"
	CmdUndoTurn       = "hermes.undoTurn"
	CmdThreads        = "hermes.threads"
	CmdResumeThread   = "hermes.resumeThread"
	CmdThreadHistory  = "hermes.threadHistory"
	CmdModels         = "hermes.models"
	CmdSetModel       = "hermes.setModel"
	CmdReview         = "hermes.review"
	CmdDismissFinding = "hermes.dismissFinding"
	CmdDismissReview  = "hermes.dismissFindings"
	CmdLogin          = "hermes.login"
	CmdChanges        = "hermes.changes"
	CmdKeepChange     = "hermes.keepChange"
	CmdRevertChange   = "hermes.revertChange"
)

// Commands returns every command name, in the order docs/protocol.md lists them. It is a function,
// not a variable, so that no caller can change the list the server advertises.
func Commands() []string {
	return []string{CmdAsk, CmdCancel, CmdApprove, CmdNewThread, CmdCompact, CmdToggleYolo, CmdShowTranscript, CmdStatus, CmdUndoTurn,
		CmdThreads, CmdResumeThread, CmdThreadHistory, CmdModels, CmdSetModel, CmdReview, CmdDismissFinding, CmdDismissReview, CmdLogin,
		CmdChanges, CmdKeepChange, CmdRevertChange}
}

// AskArgs are hermes.ask's arguments. Only Prompt is needed: URI picks the workspace folder and the
// file the prompt is about, Range the lines it quotes, Diagnostics the problems in them (else the
// ones last seen in a code action request). A bare string argument is taken as the prompt. The
// server sends these arguments too, in the commands of its code actions.
type AskArgs struct {
	Prompt      string                `json:"prompt"`
	URI         string                `json:"uri"`
	Range       *protocol.Range       `json:"range"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
	// Model and Effort override the folder's model and reasoning effort (hermes.setModel) for this
	// turn; empty keeps them.
	Model  string `json:"model,omitempty"`
	Effort string `json:"effort,omitempty"`
}

// FolderArgs are the arguments of the commands that act on one workspace folder (hermes.cancel,
// hermes.newThread, hermes.compact, hermes.toggleYolo, hermes.showTranscript): URI is the folder, or a
// file in it; empty picks the only folder (hermes.cancel: every running turn).
type FolderArgs struct {
	URI string `json:"uri"`
}

// ApproveArgs are hermes.approve's arguments. Decision is a Decision; it is a string here because the
// server reads it from the editor and refuses any other value with a clear error.
type ApproveArgs struct {
	ApprovalID string `json:"approvalId"`
	Decision   string `json:"decision" tstype:"Decision"`
	// Answers answer an elicitation's or a userInput approval's questions, by question id (decision
	// once); each question takes one answer, a multiChoice any number.
	Answers map[string][]string `json:"answers,omitempty"`
}

// AskResult is hermes.ask's answer, sent at once: the turn runs on, reported by progress and
// hermes/turnEvent. Steered says the prompt was added to the turn already running in the folder.
type AskResult struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Folder   string `json:"folder"`
	Steered  bool   `json:"steered,omitempty"`
}

// CompactResult is hermes.compact's answer: the compaction runs as a turn of its own, reported like
// one. Its TurnID is empty when codex has not named the turn yet (the turn's events carry it).
type CompactResult struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Folder   string `json:"folder"`
}

// CancelResult is hermes.cancel's answer: how many running turns it stopped.
type CancelResult struct {
	Cancelled int `json:"cancelled"`
}

// ApproveResult is hermes.approve's answer: the approval and the decision taken.
type ApproveResult struct {
	ApprovalID string   `json:"approvalId"`
	Decision   Decision `json:"decision"`
}

// NewThreadResult is hermes.newThread's answer: the folder whose next prompt starts a new thread.
type NewThreadResult struct {
	Folder string `json:"folder"`
}

// ToggleYoloResult is hermes.toggleYolo's answer: the folder's auto-approval after the toggle, and,
// when the toggle could not change it (another source keeps it on), the reason in words.
type ToggleYoloResult struct {
	Folder      string            `json:"folder"`
	Yolo        bool              `json:"yolo"`
	AutoApprove AutoApproveStatus `json:"autoApprove"`
	Reason      string            `json:"reason,omitempty"`
}

// ShowTranscriptResult is hermes.showTranscript's answer: the folder's markdown transcript, as a path
// and as a file URI.
type ShowTranscriptResult struct {
	Path string `json:"path"`
	URI  string `json:"uri"`
}

// Action titles of an approval prompt (window/showMessageRequest), in the order the server offers
// them: Deny first, since an editor that pre-selects the first action must never grant by accident.
// Show diff is offered for patches only.
const (
	ApprovalActionDeny         = "Deny"
	ApprovalActionAllowOnce    = "Allow once"
	ApprovalActionAllowSession = "Allow for session"
	ApprovalActionStop         = "Stop turn"
	ApprovalActionShowDiff     = "Show diff"
)

// Action titles of the question about a trusted setting a workspace wants to change. Keep asking
// comes first, for the same reason as Deny.
const (
	TrustActionKeepAsking = "Keep asking"
	TrustActionAllow      = "Allow"
)

// Code action titles; the approvals' are followed by the approval's summary.
const (
	CodeActionTitleAskSelection  = "Hermes: ask about selection"
	CodeActionTitleFixDiagnostic = "Hermes: fix this diagnostic"
	CodeActionTitleRunInstruct   = "Hermes: run instruction"
	CodeActionTitleStopTurn      = "Hermes: stop turn"
	CodeActionTitleAllowOnce     = "Hermes: allow once: "
	CodeActionTitleAllowSession  = "Hermes: allow for session: "
	CodeActionTitleDeny          = "Hermes: deny: "
	// Questions (elicitation, userInput): decline, accept a page or a form without fields, or pick
	// the answer (the option's label) of a single question.
	CodeActionTitleDecline    = "Hermes: decline: "
	CodeActionTitleAccept     = "Hermes: accept: "
	CodeActionTitleAnswer     = "Hermes: answer %s: "
	CodeActionTitleUndoTurn   = "Hermes: undo last turn (%d files)"
	CodeActionTitleFixFinding = "Hermes: fix this finding"
	CodeActionTitleDismiss    = "Hermes: dismiss finding"
	CodeActionTitleDismissAll = "Hermes: dismiss all review findings"
	CodeActionTitleReview     = "Hermes: review uncommitted changes"
	// CodeActionTitleResumeThread is followed by the thread's title and when it was last used.
	CodeActionTitleResumeThread = "Hermes: resume a past thread… %s (%s)"
	// The changes under review: keep or revert the one under the cursor, keep every change of the
	// folder, revert every change of the file.
	CodeActionTitleKeepChange   = "Hermes: keep this change"
	CodeActionTitleRevertChange = "Hermes: revert this change"
	CodeActionTitleKeepAll      = "Hermes: keep all changes"
	CodeActionTitleRevertFile   = "Hermes: revert all changes in this file"
)

// UndoTurnArgs are hermes.undoTurn's: the folder (URI), the turn (default: the last), Force.
type UndoTurnArgs struct {
	URI    string `json:"uri"`
	TurnID string `json:"turnId"`
	Force  bool   `json:"force"`
}

// UndoTurnResult is hermes.undoTurn's answer: the files restored, and those left, with why.
type UndoTurnResult struct {
	TurnID   string        `json:"turnId"`
	Restored []string      `json:"restored"`
	Skipped  []SkippedFile `json:"skipped"`
}

// SkippedFile is a file hermes.undoTurn did not restore, and why.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ThreadInfo is one of a folder's threads in hermes.threads' answer, newest first. Title is the
// thread's name (from its first prompt) or codex's preview; Turns counts the turns hermes-lsp
// recorded in its transcript; Current marks the folder's thread; Review marks the thread of a code
// review (hermes.review), which is no conversation to resume (absent: a conversation).
type ThreadInfo struct {
	ThreadID  string    `json:"threadId"`
	Title     string    `json:"title"`
	UpdatedAt time.Time `json:"updatedAt"`
	Turns     int       `json:"turns"`
	Current   bool      `json:"current"`
	Review    bool      `json:"review,omitempty"`
}

// ResumeThreadArgs are hermes.resumeThread's: the folder (URI) and one of its threads.
type ResumeThreadArgs struct {
	URI      string `json:"uri"`
	ThreadID string `json:"threadId"`
}

// ResumeThreadResult is hermes.resumeThread's answer: the folder's thread from now on.
type ResumeThreadResult struct {
	Folder   string `json:"folder"`
	ThreadID string `json:"threadId"`
}

// ThreadHistoryArgs are hermes.threadHistory's: the folder (URI) and one of its threads (ThreadID;
// empty: the folder's thread).
type ThreadHistoryArgs struct {
	URI      string `json:"uri"`
	ThreadID string `json:"threadId"`
}

// ThreadHistory is hermes.threadHistory's answer: a thread's turns as codex keeps them, oldest
// first, for a client to show the conversation. ThreadID is empty (and Turns too) when the folder
// has no thread yet. Truncated says older turns were left out: only the newest 50 are sent, fewer
// when their text passes 2 MiB. TranscriptPath is the thread's markdown transcript, when there is
// one. Every text is codex's, cleaned of control characters and bounded.
type ThreadHistory struct {
	Folder         string        `json:"folder"`
	ThreadID       string        `json:"threadId"`
	Turns          []HistoryTurn `json:"turns"`
	Truncated      bool          `json:"truncated,omitempty"`
	TranscriptPath string        `json:"transcriptPath,omitempty"`
}

// HistoryTurn is a turn of a ThreadHistory: Status is completed, interrupted, failed or inProgress
// (the turn runs); Error says why it failed; Items are what it did, in order.
type HistoryTurn struct {
	TurnID     string        `json:"turnId"`
	Status     string        `json:"status"`
	Error      string        `json:"error,omitempty"`
	DurationMs int64         `json:"durationMs,omitempty"`
	Items      []HistoryItem `json:"items"`
}

// HistoryItemKind says what a HistoryItem is.
type HistoryItemKind string

// History item kinds.
const (
	// HistoryItemKindUser is a prompt: Text (as sent to codex, with the context hermes.ask added).
	HistoryItemKindUser HistoryItemKind = "user"
	// HistoryItemKindAnswer is the agent's message: Text, markdown.
	HistoryItemKindAnswer HistoryItemKind = "answer"
	// HistoryItemKindTool is a tool call, named as hermes/turnEvent's tool events name it: Name,
	// Preview, Status, IsError, ExitCode, DurationMs, Output, and Diff for apply_patch.
	HistoryItemKindTool HistoryItemKind = "tool"
	// HistoryItemKindCompaction says codex compacted the thread's context.
	HistoryItemKindCompaction HistoryItemKind = "compaction"
)

// HistoryItem is one thing a past turn did; Kind says which fields are set. Text and Diff are at
// most 64 KiB, Output 16 KiB, Preview 120 characters on one line.
type HistoryItem struct {
	Kind       HistoryItemKind `json:"kind"`
	ItemID     string          `json:"itemId"`
	Text       string          `json:"text,omitempty"`
	Name       string          `json:"name,omitempty"`
	Preview    string          `json:"preview,omitempty"`
	Status     string          `json:"status,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	ExitCode   *int            `json:"exitCode,omitempty"`
	DurationMs int64           `json:"durationMs,omitempty"`
	Output     string          `json:"output,omitempty"`
	Diff       string          `json:"diff,omitempty"`
}

// ModelInfo is a model in hermes.models' answer: its reasoning efforts and default one; Current
// marks the model the folder's next turn uses.
type ModelInfo struct {
	ID            string   `json:"id"`
	DisplayName   string   `json:"displayName"`
	Efforts       []string `json:"efforts"`
	DefaultEffort string   `json:"defaultEffort"`
	Current       bool     `json:"current"`
}

// SetModelArgs are hermes.setModel's: the folder (URI), the model id (empty: codex's default) and
// the reasoning effort (empty: the model's default).
type SetModelArgs struct {
	URI    string `json:"uri"`
	Model  string `json:"model"`
	Effort string `json:"effort"`
}

// SetModelResult is hermes.setModel's answer: the folder's model and effort from now on.
type SetModelResult struct {
	Folder string `json:"folder"`
	Model  string `json:"model"`
	Effort string `json:"effort"`
}

// ReviewArgs are hermes.review's: the folder (URI) and what to review (default
// {type: "uncommittedChanges"}).
type ReviewArgs struct {
	URI    string        `json:"uri"`
	Target *ReviewTarget `json:"target,omitempty"`
}

// ReviewTarget is what a review looks at, as codex's review/start takes it: Type is
// "uncommittedChanges", "baseBranch" (Branch), "commit" (Sha, Title) or "custom" (Instructions).
type ReviewTarget struct {
	Type         string `json:"type"`
	Branch       string `json:"branch,omitempty"`
	Sha          string `json:"sha,omitempty"`
	Title        string `json:"title,omitempty"`
	Instructions string `json:"instructions,omitempty"`
}

// ReviewResult is hermes.review's answer, sent at once: the review runs on, reported like a turn;
// its findings become diagnostics when it ends.
type ReviewResult struct {
	ReviewID string `json:"reviewId"`
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Folder   string `json:"folder"`
}

// FindingRef names a review finding: a diagnostic's data, hermes.dismissFinding's argument.
type FindingRef struct {
	ReviewID  string `json:"reviewId"`
	FindingID string `json:"findingId"`
}

// DismissResult is the answer of hermes.dismissFinding and hermes.dismissFindings: how many
// findings went.
type DismissResult struct {
	Dismissed int `json:"dismissed"`
}

// Sign-in methods of hermes.login.
const (
	// LoginChatGPT signs in with a ChatGPT account in a browser on this machine (codex listens on
	// localhost for the browser's answer).
	LoginChatGPT = "chatgpt"
	// LoginDeviceCode signs in with a ChatGPT account from any browser: open URL and enter UserCode.
	// Use it when the editor runs on another machine (SSH, a container).
	LoginDeviceCode = "deviceCode"
)

// LoginArgs are hermes.login's arguments, optional: Method is LoginChatGPT (the default) or
// LoginDeviceCode. One codex serves every folder of the server, so no folder is named.
type LoginArgs struct {
	Method string `json:"method,omitempty"`
}

// LoginResult is hermes.login's answer once codex has started the sign-in: the page to open (and,
// for a device code, the code to enter there). Opened says the server already asked the editor to
// open URL (window/showDocument, external); when false the client opens it, or shows it to the
// user. The sign-in ends later: the server shows a message when codex reports it, and
// hermes.status's account changes. AlreadySignedIn is set (and nothing else) when codex already
// has an account. URL is empty when codex's page is not one to open (not https:, nor http: on this
// machine): the server then shows it as text, with a warning, and opens nothing.
type LoginResult struct {
	Method          string   `json:"method,omitempty"`
	LoginID         string   `json:"loginId,omitempty"`
	URL             string   `json:"url,omitempty"`
	UserCode        string   `json:"userCode,omitempty"`
	Opened          bool     `json:"opened"`
	AlreadySignedIn *Account `json:"alreadySignedIn,omitempty"`
}

// Account is the account codex uses, as account/read reports it: Type "chatgpt" (with Email and
// PlanType), "apiKey", or another codex names.
type Account struct {
	Type     string `json:"type"`
	Email    string `json:"email,omitempty"`
	PlanType string `json:"planType,omitempty"`
}
