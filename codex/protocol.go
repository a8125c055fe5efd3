package codex

import (
	"encoding/json"
	"fmt"
	"regexp"

	fastjson "github.com/segmentio/encoding/json"
)

// This file names the protocol of codex app-server 0.171.0 that the host uses. Its types are
// generated from the pinned codex's own schema (protocol_gen.go, `make generate`); this file gives
// them the names the host uses and decodes messages into them. Decoding is lenient: unknown fields
// are ignored, null and missing fields are zero, and the unions the schema has (items, error
// infos, inputs, policies, statuses) are typed by hand in protocol_lenient.go.

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
	MethodThreadRevert  = "thread/revert"
	MethodReviewStart   = "review/start"
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
	RequestToolUserInput       = "item/tool/requestUserInput"
)

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

// Turn states (TurnStatus).
const (
	TurnInProgress  = "inProgress"
	TurnCompleted   = "completed"
	TurnInterrupted = "interrupted"
	TurnFailed      = "failed"
)

// The host's names for the schema's types.
type (
	// InitializeResult is codex's answer to initialize.
	InitializeResult = InitializeResponse
	// ThreadResult is the answer to thread/start and thread/resume (the same shape).
	ThreadResult = ThreadStartResponse
	// TurnResult is the answer to turn/start.
	TurnResult = TurnStartResponse
	// TurnSteerResult is the answer to turn/steer.
	TurnSteerResult = TurnSteerResponse
	// ThreadCompactParams start compaction of a thread's context.
	ThreadCompactParams = ThreadCompactStartParams
	// TokenUsage is a breakdown of tokens. InputTokens already includes CachedInputTokens, and
	// OutputTokens already includes ReasoningOutputTokens.
	TokenUsage = TokenUsageBreakdown
	// PlanStep is one step of the agent's plan.
	PlanStep = TurnPlanStep
	// FileChange is one file touched by a patch.
	FileChange = FileUpdateChange

	// TurnStartedParams is the turn/started notification.
	TurnStartedParams = TurnStartedNotification
	// TurnCompletedParams is the turn/completed notification: the only end of a turn.
	TurnCompletedParams = TurnCompletedNotification
	// ItemParams is item/started and item/completed (one shape).
	ItemParams = ItemStartedNotification
	// DeltaParams is a streamed piece of text: agent message, reasoning or command output (one
	// shape, as far as the host reads it).
	DeltaParams = AgentMessageDeltaNotification
	// TurnDiffParams is turn/diff/updated: the turn's aggregated unified diff so far.
	TurnDiffParams = TurnDiffUpdatedNotification
	// TurnPlanParams is turn/plan/updated.
	TurnPlanParams = TurnPlanUpdatedNotification
	// TokenUsageParams is thread/tokenUsage/updated.
	TokenUsageParams = ThreadTokenUsageUpdatedNotification
	// ErrorParams is the error notification. WillRetry false means the turn is about to fail.
	ErrorParams = ErrorNotification
	// ServerRequestResolvedParams says a server request was settled (answered, or withdrawn).
	ServerRequestResolvedParams = ServerRequestResolvedNotification
	// ThreadStatusParams is thread/status/changed.
	ThreadStatusParams = ThreadStatusChangedNotification
	// ThreadStartedParams is thread/started.
	ThreadStartedParams = ThreadStartedNotification

	// CommandApprovalParams is item/commandExecution/requestApproval: codex wants to run a command.
	CommandApprovalParams = CommandExecutionRequestApprovalParams
	// FileChangeApprovalParams is item/fileChange/requestApproval: codex wants to apply a patch. The
	// changes themselves are on the fileChange item with the same ItemID.
	FileChangeApprovalParams = FileChangeRequestApprovalParams
	// PermissionsApprovalParams is item/permissions/requestApproval: codex asks for wider
	// permissions.
	PermissionsApprovalParams = PermissionsRequestApprovalParams
	// PermissionsResponse answers a permissions request: what is granted (nothing declines it) and
	// for how long ("turn" or "session").
	PermissionsResponse = PermissionsRequestApprovalResponse
	// UserInputParams is item/tool/requestUserInput: the agent's questions, each with options.
	UserInputParams = ToolRequestUserInputParams
	// UserInputResponse answers them, by question id.
	UserInputResponse = ToolRequestUserInputResponse
)

// Permission grant scopes.
const (
	ScopeTurn    = "turn"
	ScopeSession = "session"
)

func (e *TurnError) Error() string {
	if kind := e.CodexErrorInfo.Kind(); kind != "" {
		return kind + ": " + e.Message
	}
	return e.Message
}

// TextInput returns a text input.
func TextInput(text string) UserInput {
	return UserInput{Type: "text", Text: text, TextElements: []any{}}
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
	// ItemExitedReviewMode ends a review (review/start): Review holds the findings as codex renders
	// them (ParseReview reads them).
	ItemExitedReviewMode = "exitedReviewMode"
)

// Item statuses shared by commands, file changes and tool calls.
const (
	ItemInProgress = "inProgress"
	ItemCompleted  = "completed"
	ItemFailed     = "failed"
	ItemDeclined   = "declined"
)

// DecodeNotification decodes the params of a notification the host understands into its typed
// struct (a pointer, such as *ItemParams). It returns (nil, nil) for methods it does not know, and an
// error for a known method whose params do not decode. The value's strings may share n.Params'
// memory: n.Params must not be changed afterwards (a Conn's notifications never are).
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
	// The params are the connection's own copy of them, never written again: the decoded strings
	// point into them rather than each be copied (a string then holds its params' bytes).
	rest, err := fastjson.Parse(n.Params, v, fastjson.DontCopyString)
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("invalid character %q after the params", rest[0])
	}
	if err != nil {
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

// McpElicitationParams is mcpServer/elicitation/request: an MCP server asks the user for input,
// with a form (Mode "form": RequestedSchema, a JSON schema of flat fields) or a page to visit (Mode
// "url": URL). The schema's union of modes is read by hand: one struct holds every mode's fields.
type McpElicitationParams struct {
	ThreadID        string          `json:"threadId"`
	TurnID          string          `json:"turnId"`
	ServerName      string          `json:"serverName"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitationId"`
	// Meta is the request's _meta: codex marks its own approval of an MCP tool call there
	// (codex_approval_kind "mcp_tool_call", tool_name).
	Meta json.RawMessage `json:"_meta"`
}

// ToolCallApproval returns the tool's name when the elicitation is codex's own approval of an MCP
// tool call (a form without fields, _meta.codex_approval_kind "mcp_tool_call"), and false for an
// MCP server's own question. The name is _meta's tool_name (0.171.0), else the one codex's message
// quotes (`… to run tool "NAME"?`, the releases before it), else "a tool".
func (p *McpElicitationParams) ToolCallApproval() (tool string, ok bool) {
	var meta struct {
		Kind      string `json:"codex_approval_kind"`
		ToolName  string `json:"tool_name"`
		ToolTitle string `json:"tool_title"`
	}
	if len(p.Meta) == 0 || json.Unmarshal(p.Meta, &meta) != nil || meta.Kind != "mcp_tool_call" {
		return "", false
	}
	switch m := quotedTool.FindStringSubmatch(p.Message); {
	case meta.ToolName != "":
		return meta.ToolName, true
	case meta.ToolTitle != "":
		return meta.ToolTitle, true
	case m != nil:
		return m[1], true
	}
	return "a tool", true
}

// quotedTool finds the tool codex's approval of an MCP tool call names in its message.
var quotedTool = regexp.MustCompile(`run tool "([^"]{1,200})"`)

// Elicitation modes.
const (
	ElicitationForm = "form"
	ElicitationURL  = "url"
)

// ApprovalResponse answers a command or file-change approval.
type ApprovalResponse struct {
	Decision string `json:"decision"`
}

// ElicitationResponse answers an MCP elicitation: accept (with the form's Content), decline or
// cancel.
type ElicitationResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicitation actions.
const (
	ElicitationAccept  = "accept"
	ElicitationDecline = "decline"
	ElicitationCancel  = "cancel"
)

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
	case RequestToolUserInput:
		v = new(UserInputParams)
	default:
		return nil, nil
	}
	if err := json.Unmarshal(r.Params, v); err != nil {
		return nil, fmt.Errorf("decode %s: %w", r.Method, err)
	}
	return v, nil
}
