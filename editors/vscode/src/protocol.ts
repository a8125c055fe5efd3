// The parts of hermes-lsp's protocol (docs/protocol.md) the extension uses. The shapes are the
// server's: hermesproto.ts is generated from the Go package hermesproto (`make generate`), so
// they cannot drift from what the server sends. This module only gives them the names the
// extension uses; LSP's own shapes (MessageActionItem, ...) come from vscode-languageclient.

import {
	ApprovalActionAllowOnce,
	ApprovalActionAllowSession,
	ApprovalActionDeny,
	ApprovalActionShowDiff,
	ApprovalActionStop,
	QuestionActionAccept,
	QuestionActionDecline,
	QuestionActionDone,
	CmdApprove,
	CmdAsk,
	CmdCancel,
	CmdCompact,
	CmdNewThread,
	CmdShowTranscript,
	CmdStatus,
	CmdToggleYolo,
	CmdUndoTurn,
	CmdReview,
	CmdDismissReview,
	CmdThreads,
	CmdResumeThread,
	CmdThreadHistory,
	CmdModels,
	CmdSetModel,
	CmdLogin,
	LoginChatGPT,
	LoginDeviceCode,
	MethodTurnEvent,
} from './hermesproto';

export type {
	Account,
	LoginArgs,
	LoginResult,
	ModelInfo,
	ThreadInfo,
	ThreadHistory,
	ThreadHistoryArgs,
	HistoryTurn,
	HistoryItem,
	DismissResult,
	ReviewArgs,
	ReviewResult,
	ReviewTarget,
	Approval,
	ApprovalKind,
	ApprovalSummary,
	ApproveArgs,
	ApproveResult,
	AskArgs,
	AskResult,
	AutoApproveStatus,
	CancelResult,
	CompactResult,
	Decision,
	FileChange,
	FolderArgs,
	FolderStatus,
	NewThreadResult,
	Permissions,
	PlanStep,
	Question,
	QuestionOption,
	QuestionType,
	ShowTranscriptResult,
	ToggleYoloResult,
	ToolEvent,
	TurnEventParams,
	UndoTurnResult,
	TurnState,
	Usage,
	Event as TurnEvent,
	EventKind as TurnEventKind,
	Result as TurnResult,
	Status as StatusResult,
} from './hermesproto';

/** The server's command ids (workspace/executeCommand). The extension's own ids differ: see commands.ts. */
export const ServerCommand = {
	ask: CmdAsk,
	cancel: CmdCancel,
	approve: CmdApprove,
	newThread: CmdNewThread,
	compact: CmdCompact,
	toggleYolo: CmdToggleYolo,
	showTranscript: CmdShowTranscript,
	status: CmdStatus,
	undoTurn: CmdUndoTurn,
	review: CmdReview,
	dismissFindings: CmdDismissReview,
	threads: CmdThreads,
	resumeThread: CmdResumeThread,
	threadHistory: CmdThreadHistory,
	models: CmdModels,
	setModel: CmdSetModel,
	login: CmdLogin,
} as const;

/** hermes.login's methods: a browser on this machine, or a device code for any browser. */
export const LoginMethod = {
	chatgpt: LoginChatGPT,
	deviceCode: LoginDeviceCode,
} as const;

/** The method of the turn events the server streams. */
export const TurnEventMethod = MethodTurnEvent;

/** The action titles hermes-lsp offers on an approval prompt (docs/protocol.md, "Approvals"). */
export const Actions = {
	allowOnce: ApprovalActionAllowOnce,
	allowSession: ApprovalActionAllowSession,
	deny: ApprovalActionDeny,
	stop: ApprovalActionStop,
	showDiff: ApprovalActionShowDiff,
	decline: QuestionActionDecline,
	done: QuestionActionDone,
	accept: QuestionActionAccept,
} as const;
