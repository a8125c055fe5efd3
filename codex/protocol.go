package codex

import (
	"encoding/json"
	"fmt"
	"strings"
)

// This file holds the typed protocol of codex app-server 0.171.0 that the host uses, checked against
// the JSON schema of that version. Decoding is lenient: unknown fields are ignored, optional fields
// may be null, and unknown item types are kept as raw JSON.

// Method names: client requests and notifications.
const (
	MethodInitialize    = "initialize"
	MethodInitialized   = "initialized"
	MethodThreadStart   = "thread/start"
	MethodThreadResume  = "thread/resume"
	MethodTurnStart     = "turn/start"
	MethodTurnSteer     = "turn/steer"
	MethodTurnInterrupt = "turn/interrupt"
	MethodThreadCompact = "thread/compact/start"
)

// Method names: server notifications.
const (
	NotifyTurnStarted           = "turn/started"
	NotifyTurnCompleted         = "turn/completed"
	NotifyItemStarted           = "item/started"
	NotifyItemCompleted         = "item/completed"
	NotifyAgentMessageDelta     = "item/agentMessage/delta"
	NotifyReasoningSummaryDelta = "item/reasoning/summaryTextDelta"
	NotifyReasoningTextDelta    = "item/reasoning/textDelta"
	NotifyCommandOutputDelta    = "item/commandExecution/outputDelta"
	NotifyTurnDiffUpdated       = "turn/diff/updated"
	NotifyTurnPlanUpdated       = "turn/plan/updated"
	NotifyTokenUsageUpdated     = "thread/tokenUsage/updated"
	NotifyError                 = "error"
	NotifyServerRequestResolved = "serverRequest/resolved"
	NotifyThreadStatusChanged   = "thread/status/changed"
	NotifyThreadStarted         = "thread/started"
	// NotifyThreadCompacted is the older announcement of a compaction ({threadId, turnId}), which
	// 0.171.0 still sends beside the contextCompaction item it deprecates it for.
	NotifyThreadCompacted = "thread/compacted"

	// Older spellings of the reasoning deltas, still accepted.
	notifyReasoningSummaryDeltaOld = "item/reasoning/summaryDelta"
	notifyReasoningTextDeltaOld    = "item/reasoning/delta"
)

// Method names: server requests.
const (
	RequestCommandApproval     = "item/commandExecution/requestApproval"
	RequestFileChangeApproval  = "item/fileChange/requestApproval"
	RequestPermissionsApproval = "item/permissions/requestApproval"
	RequestMcpElicitation      = "mcpServer/elicitation/request"
)

// ClientInfo names this client to codex.
type ClientInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// InitializeParams open the session.
type InitializeParams struct {
	ClientInfo   ClientInfo             `json:"clientInfo"`
	Capabilities InitializeCapabilities `json:"capabilities"`
}

// InitializeCapabilities are what the client supports.
type InitializeCapabilities struct {
	ExperimentalAPI bool `json:"experimentalApi"`
}

// InitializeResult is codex's answer to initialize.
type InitializeResult struct {
	UserAgent      string `json:"userAgent"`
	CodexHome      string `json:"codexHome"`
	PlatformFamily string `json:"platformFamily"`
	PlatformOS     string `json:"platformOs"`
}

// Approval policies (AskForApproval).
const (
	ApprovalUntrusted = "untrusted"
	ApprovalOnRequest = "on-request"
	ApprovalNever     = "never"
)

// Sandbox modes (SandboxMode).
const (
	SandboxReadOnly       = "read-only"
	SandboxWorkspaceWrite = "workspace-write"
	SandboxFullAccess     = "danger-full-access"
)

// ThreadStartParams start a thread. Empty fields are left to codex's configuration.
type ThreadStartParams struct {
	Cwd                   string         `json:"cwd,omitempty"`
	ApprovalPolicy        string         `json:"approvalPolicy,omitempty"`
	Sandbox               string         `json:"sandbox,omitempty"`
	Model                 string         `json:"model,omitempty"`
	ModelProvider         string         `json:"modelProvider,omitempty"`
	Config                map[string]any `json:"config,omitempty"`
	BaseInstructions      string         `json:"baseInstructions,omitempty"`
	DeveloperInstructions string         `json:"developerInstructions,omitempty"`
	Ephemeral             bool           `json:"ephemeral,omitempty"`
	// DynamicTools declares client-side tools (an experimental API), passed through as given.
	DynamicTools json.RawMessage `json:"dynamicTools,omitempty"`
}

// ThreadResumeParams resume a thread recorded earlier, possibly by another codex process.
type ThreadResumeParams struct {
	ThreadID       string         `json:"threadId"`
	Cwd            string         `json:"cwd,omitempty"`
	ApprovalPolicy string         `json:"approvalPolicy,omitempty"`
	Sandbox        string         `json:"sandbox,omitempty"`
	Model          string         `json:"model,omitempty"`
	ModelProvider  string         `json:"modelProvider,omitempty"`
	Config         map[string]any `json:"config,omitempty"`
	// ExcludeTurns leaves the past turns out of the answer (and avoids a deprecation notice).
	ExcludeTurns bool `json:"excludeTurns"`
}

// ThreadResult is the answer to thread/start and thread/resume.
type ThreadResult struct {
	Thread         Thread          `json:"thread"`
	Model          string          `json:"model"`
	ModelProvider  string          `json:"modelProvider"`
	Cwd            string          `json:"cwd"`
	ApprovalPolicy json.RawMessage `json:"approvalPolicy"`
	Sandbox        json.RawMessage `json:"sandbox"`
}

// Thread is a codex conversation.
type Thread struct {
	ID            string       `json:"id"`
	Cwd           string       `json:"cwd"`
	Path          string       `json:"path"`
	Preview       string       `json:"preview"`
	ModelProvider string       `json:"modelProvider"`
	Model         string       `json:"model"`
	Status        ThreadStatus `json:"status"`
	Turns         []Turn       `json:"turns"`
}

// ThreadStatus is idle, active (with flags such as waitingOnApproval), systemError or notLoaded.
type ThreadStatus struct {
	Type        string   `json:"type"`
	ActiveFlags []string `json:"activeFlags"`
}

// UserInput is one piece of a user message. Only text is used by this client.
type UserInput struct {
	Type         string `json:"type"`
	Text         string `json:"text,omitempty"`
	TextElements []any  `json:"text_elements"`
	Path         string `json:"path,omitempty"`
}

// TextInput returns a text input.
func TextInput(text string) UserInput {
	return UserInput{Type: "text", Text: text, TextElements: []any{}}
}

// TurnStartParams start a turn on a thread.
type TurnStartParams struct {
	ThreadID       string      `json:"threadId"`
	Input          []UserInput `json:"input"`
	Cwd            string      `json:"cwd,omitempty"`
	ApprovalPolicy string      `json:"approvalPolicy,omitempty"`
	Model          string      `json:"model,omitempty"`
}

// TurnResult is the answer to turn/start.
type TurnResult struct {
	Turn Turn `json:"turn"`
}

// TurnSteerParams add input to the running turn.
type TurnSteerParams struct {
	ThreadID       string      `json:"threadId"`
	Input          []UserInput `json:"input"`
	ExpectedTurnID string      `json:"expectedTurnId"`
}

// TurnSteerResult is the answer to turn/steer.
type TurnSteerResult struct {
	TurnID string `json:"turnId"`
}

// TurnInterruptParams interrupt a turn.
type TurnInterruptParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
}

// ThreadCompactParams start compaction of a thread's context.
type ThreadCompactParams struct {
	ThreadID string `json:"threadId"`
}

// Turn states (TurnStatus).
const (
	TurnInProgress  = "inProgress"
	TurnCompleted   = "completed"
	TurnInterrupted = "interrupted"
	TurnFailed      = "failed"
)

// Turn is one exchange: the user's input and everything codex did for it.
type Turn struct {
	ID         string     `json:"id"`
	Items      []Item     `json:"items"`
	Status     string     `json:"status"`
	Error      *TurnError `json:"error"`
	DurationMs *int64     `json:"durationMs"`
}

// TurnError says why a turn or a request failed.
type TurnError struct {
	Message           string         `json:"message"`
	CodexErrorInfo    CodexErrorInfo `json:"codexErrorInfo"`
	AdditionalDetails string         `json:"additionalDetails"`
}

func (e *TurnError) Error() string {
	if kind := e.CodexErrorInfo.Kind(); kind != "" {
		return kind + ": " + e.Message
	}
	return e.Message
}

// CodexErrorInfo classifies a failure. On the wire it is a string ("usageLimitExceeded") or an object
// with one key ({"responseTooManyFailedAttempts": {"httpStatusCode": 429}}); the raw JSON is kept.
type CodexErrorInfo struct {
	Raw json.RawMessage
}

// UnmarshalJSON keeps the raw value.
func (c *CodexErrorInfo) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		c.Raw = nil
		return nil
	}
	c.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the raw value back.
func (c CodexErrorInfo) MarshalJSON() ([]byte, error) {
	if len(c.Raw) == 0 {
		return []byte("null"), nil
	}
	return c.Raw, nil
}

// Kind is the error's name: the string itself, or the single key of the object form.
func (c CodexErrorInfo) Kind() string {
	if len(c.Raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(c.Raw, &s) == nil {
		return s
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(c.Raw, &m) == nil {
		for k := range m {
			return k
		}
	}
	return strings.TrimSpace(string(c.Raw))
}

// HTTPStatus is the httpStatusCode of the object form, or 0.
func (c CodexErrorInfo) HTTPStatus() int {
	var m map[string]struct {
		HTTPStatusCode int `json:"httpStatusCode"`
	}
	if json.Unmarshal(c.Raw, &m) != nil {
		return 0
	}
	for _, v := range m {
		return v.HTTPStatusCode
	}
	return 0
}

// String renders the info as its kind with the HTTP status when there is one.
func (c CodexErrorInfo) String() string {
	kind := c.Kind()
	if st := c.HTTPStatus(); st != 0 {
		return fmt.Sprintf("%s(%d)", kind, st)
	}
	return kind
}

// Error kinds the host acts on.
const (
	ErrorUsageLimitExceeded = "usageLimitExceeded"
	ErrorRateLimitExceeded  = "rateLimitExceeded"
	ErrorUnauthorized       = "unauthorized"
	ErrorTooManyAttempts    = "responseTooManyFailedAttempts"
	ErrorInternalServer     = "internalServerError"
	ErrorContextWindow      = "contextWindowExceeded"
	ErrorOther              = "other"
)

// Item types (ThreadItem.type) that the host understands; others are kept raw.
const (
	ItemUserMessage       = "userMessage"
	ItemAgentMessage      = "agentMessage"
	ItemReasoning         = "reasoning"
	ItemCommandExecution  = "commandExecution"
	ItemFileChange        = "fileChange"
	ItemMcpToolCall       = "mcpToolCall"
	ItemDynamicToolCall   = "dynamicToolCall"
	ItemWebSearch         = "webSearch"
	ItemContextCompaction = "contextCompaction"
	ItemPlan              = "plan"
)

// Item statuses shared by commands, file changes and tool calls.
const (
	ItemInProgress = "inProgress"
	ItemCompleted  = "completed"
	ItemFailed     = "failed"
	ItemDeclined   = "declined"
)

// Item is one thing that happened in a turn. Type says which fields apply; Raw always holds the item
// as codex sent it, so an item of a type this package does not know is still kept whole.
type Item struct {
	Type string `json:"type"`
	ID   string `json:"id"`

	// agentMessage, plan
	Text  string `json:"text"`
	Phase string `json:"phase"`

	// userMessage
	Content json.RawMessage `json:"content"`

	// reasoning
	Summary []string `json:"summary"`

	// commandExecution
	Command          string  `json:"command"`
	Cwd              string  `json:"cwd"`
	AggregatedOutput *string `json:"aggregatedOutput"`
	ExitCode         *int    `json:"exitCode"`
	DurationMs       *int64  `json:"durationMs"`

	// commandExecution, fileChange, mcpToolCall, dynamicToolCall
	Status string `json:"status"`

	// fileChange
	Changes []FileChange `json:"changes"`

	// mcpToolCall
	Server string          `json:"server"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`

	// mcpToolCall, dynamicToolCall
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`

	// dynamicToolCall
	Success      *bool           `json:"success"`
	ContentItems json.RawMessage `json:"contentItems"`

	// webSearch
	Query string `json:"query"`

	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the raw item. Fields whose shape differs from what
// this package expects (reasoning content, summaries of another form) do not fail the item.
func (it *Item) UnmarshalJSON(b []byte) error {
	type plain Item
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		// Fall back to the fields every item has, so one odd field never loses the item.
		var head struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if herr := json.Unmarshal(b, &head); herr != nil {
			return err
		}
		p = plain{Type: head.Type, ID: head.ID}
	}
	*it = Item(p)
	it.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// FileChange is one file touched by a patch.
type FileChange struct {
	Path string `json:"path"`
	Kind struct {
		Type     string `json:"type"` // add, delete, update
		MovePath string `json:"move_path"`
	} `json:"kind"`
	Diff string `json:"diff"`
}

// TurnStartedParams is the turn/started notification.
type TurnStartedParams struct {
	ThreadID string `json:"threadId"`
	Turn     Turn   `json:"turn"`
}

// TurnCompletedParams is the turn/completed notification: the only end of a turn.
type TurnCompletedParams struct {
	ThreadID string `json:"threadId"`
	Turn     Turn   `json:"turn"`
}

// ItemParams is item/started and item/completed.
type ItemParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Item     Item   `json:"item"`
}

// DeltaParams is a streamed piece of text: agent message, reasoning or command output.
type DeltaParams struct {
	ThreadID     string `json:"threadId"`
	TurnID       string `json:"turnId"`
	ItemID       string `json:"itemId"`
	Delta        string `json:"delta"`
	SummaryIndex int    `json:"summaryIndex"`
	ContentIndex int    `json:"contentIndex"`
}

// TurnDiffParams is turn/diff/updated: the turn's aggregated unified diff so far.
type TurnDiffParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Diff     string `json:"diff"`
}

// TurnPlanParams is turn/plan/updated.
type TurnPlanParams struct {
	ThreadID    string     `json:"threadId"`
	TurnID      string     `json:"turnId"`
	Explanation string     `json:"explanation"`
	Plan        []PlanStep `json:"plan"`
}

// PlanStep is one step of the agent's plan.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"` // pending, inProgress, completed
}

// TokenUsageParams is thread/tokenUsage/updated.
type TokenUsageParams struct {
	ThreadID   string           `json:"threadId"`
	TurnID     string           `json:"turnId"`
	TokenUsage ThreadTokenUsage `json:"tokenUsage"`
}

// ThreadTokenUsage holds the usage of the last model call, the thread's total, and the context window.
type ThreadTokenUsage struct {
	Last               TokenUsage `json:"last"`
	Total              TokenUsage `json:"total"`
	ModelContextWindow *int64     `json:"modelContextWindow"`
}

// TokenUsage is a breakdown of tokens. InputTokens already includes CachedInputTokens, and
// OutputTokens already includes ReasoningOutputTokens.
type TokenUsage struct {
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	CacheWriteInputTokens int64 `json:"cacheWriteInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
	TotalTokens           int64 `json:"totalTokens"`
}

// ErrorParams is the error notification. WillRetry false means the turn is about to fail.
type ErrorParams struct {
	ThreadID  string    `json:"threadId"`
	TurnID    string    `json:"turnId"`
	Error     TurnError `json:"error"`
	WillRetry bool      `json:"willRetry"`
}

// ServerRequestResolvedParams says a server request was settled (answered, or withdrawn by codex).
type ServerRequestResolvedParams struct {
	ThreadID  string          `json:"threadId"`
	RequestID json.RawMessage `json:"requestId"`
}

// ThreadStatusParams is thread/status/changed.
type ThreadStatusParams struct {
	ThreadID string       `json:"threadId"`
	Status   ThreadStatus `json:"status"`
}

// ThreadStartedParams is thread/started.
type ThreadStartedParams struct {
	Thread Thread `json:"thread"`
}

// DecodeNotification decodes the params of a notification the host understands into its typed
// struct (a pointer, such as *ItemParams). It returns (nil, nil) for methods it does not know, and an
// error for a known method whose params do not decode.
func DecodeNotification(n Notification) (any, error) {
	var v any
	switch n.Method {
	case NotifyTurnStarted:
		v = new(TurnStartedParams)
	case NotifyTurnCompleted:
		v = new(TurnCompletedParams)
	case NotifyItemStarted, NotifyItemCompleted:
		v = new(ItemParams)
	case NotifyAgentMessageDelta, NotifyReasoningSummaryDelta, NotifyReasoningTextDelta,
		notifyReasoningSummaryDeltaOld, notifyReasoningTextDeltaOld, NotifyCommandOutputDelta:
		v = new(DeltaParams)
	case NotifyTurnDiffUpdated:
		v = new(TurnDiffParams)
	case NotifyTurnPlanUpdated:
		v = new(TurnPlanParams)
	case NotifyTokenUsageUpdated:
		v = new(TokenUsageParams)
	case NotifyError:
		v = new(ErrorParams)
	case NotifyServerRequestResolved:
		v = new(ServerRequestResolvedParams)
	case NotifyThreadStatusChanged:
		v = new(ThreadStatusParams)
	case NotifyThreadStarted:
		v = new(ThreadStartedParams)
	default:
		return nil, nil
	}
	if len(n.Params) == 0 || string(n.Params) == "null" {
		return nil, fmt.Errorf("%s: no params", n.Method)
	}
	if err := json.Unmarshal(n.Params, v); err != nil {
		return nil, fmt.Errorf("decode %s: %w", n.Method, err)
	}
	return v, nil
}

// CanonicalMethod maps the older spellings of a notification to the current one.
func CanonicalMethod(method string) string {
	switch method {
	case notifyReasoningSummaryDeltaOld:
		return NotifyReasoningSummaryDelta
	case notifyReasoningTextDeltaOld:
		return NotifyReasoningTextDelta
	}
	return method
}

// Approval decisions for command and file-change requests.
const (
	DecisionAccept           = "accept"
	DecisionAcceptForSession = "acceptForSession"
	DecisionDecline          = "decline" // the item is declined and the turn goes on
	DecisionCancel           = "cancel"  // the item is declined and the turn is interrupted
)

// CommandApprovalParams is item/commandExecution/requestApproval: codex wants to run a command.
type CommandApprovalParams struct {
	ThreadID                    string          `json:"threadId"`
	TurnID                      string          `json:"turnId"`
	ItemID                      string          `json:"itemId"`
	ApprovalID                  string          `json:"approvalId"`
	Command                     string          `json:"command"`
	Cwd                         string          `json:"cwd"`
	Reason                      string          `json:"reason"`
	ProposedExecpolicyAmendment []string        `json:"proposedExecpolicyAmendment"`
	AvailableDecisions          json.RawMessage `json:"availableDecisions"`
}

// FileChangeApprovalParams is item/fileChange/requestApproval: codex wants to apply a patch. The
// changes themselves are on the fileChange item with the same ItemID.
type FileChangeApprovalParams struct {
	ThreadID  string `json:"threadId"`
	TurnID    string `json:"turnId"`
	ItemID    string `json:"itemId"`
	Reason    string `json:"reason"`
	GrantRoot string `json:"grantRoot"`
}

// PermissionsApprovalParams is item/permissions/requestApproval: codex asks for wider permissions.
type PermissionsApprovalParams struct {
	ThreadID    string          `json:"threadId"`
	TurnID      string          `json:"turnId"`
	ItemID      string          `json:"itemId"`
	Cwd         string          `json:"cwd"`
	Reason      string          `json:"reason"`
	Permissions json.RawMessage `json:"permissions"`
}

// McpElicitationParams is mcpServer/elicitation/request: an MCP server asks the user for input.
type McpElicitationParams struct {
	ThreadID   string `json:"threadId"`
	TurnID     string `json:"turnId"`
	ServerName string `json:"serverName"`
	Message    string `json:"message"`
	Mode       string `json:"mode"`
}

// ApprovalResponse answers a command or file-change approval.
type ApprovalResponse struct {
	Decision string `json:"decision"`
}

// PermissionsResponse answers a permissions request; an empty grant declines it.
type PermissionsResponse struct {
	Permissions map[string]any `json:"permissions"`
	Scope       string         `json:"scope"`
}

// ElicitationResponse answers an MCP elicitation: accept, decline or cancel.
type ElicitationResponse struct {
	Action string `json:"action"`
}

// DecodeRequest decodes the params of a server request the host understands (a pointer such as
// *CommandApprovalParams). It returns (nil, nil) for other methods.
func DecodeRequest(r *Request) (any, error) {
	var v any
	switch r.Method {
	case RequestCommandApproval:
		v = new(CommandApprovalParams)
	case RequestFileChangeApproval:
		v = new(FileChangeApprovalParams)
	case RequestPermissionsApproval:
		v = new(PermissionsApprovalParams)
	case RequestMcpElicitation:
		v = new(McpElicitationParams)
	default:
		return nil, nil
	}
	if err := json.Unmarshal(r.Params, v); err != nil {
		return nil, fmt.Errorf("decode %s: %w", r.Method, err)
	}
	return v, nil
}
