// The parts of hermes-lsp's protocol (docs/protocol.md) the extension reads. Types only.

/** The server's command ids (workspace/executeCommand). The extension's own ids differ: see extension.ts. */
export const ServerCommand = {
	ask: 'hermes.ask',
	cancel: 'hermes.cancel',
	approve: 'hermes.approve',
	newThread: 'hermes.newThread',
	compact: 'hermes.compact',
	toggleYolo: 'hermes.toggleYolo',
	showTranscript: 'hermes.showTranscript',
	status: 'hermes.status',
} as const;

export const TurnEventMethod = 'hermes/turnEvent';

export interface Usage {
	promptTokens?: number;
	inputTokens?: number;
	cacheReadTokens?: number;
	cacheWriteTokens?: number;
	outputTokens?: number;
	completionTokens?: number;
	reasoningTokens?: number;
	totalTokens?: number;
	contextWindow?: number;
	lastPromptTokens?: number;
}

export interface ToolEvent {
	itemId: string;
	callId: string;
	name: string;
	args?: unknown;
	preview: string;
	durationMs?: number;
	isError?: boolean;
	result?: string;
	status?: string;
}

export interface FileChange {
	path: string;
	kind: { type: string; move_path?: string | null };
	diff: string;
}

export type Decision = 'once' | 'session' | 'deny' | 'stop';

export interface Approval {
	approvalId: string;
	kind: 'exec' | 'patch';
	folder: string;
	threadId: string;
	turnId: string;
	itemId: string;
	summary: string;
	command?: string;
	cwd?: string;
	changes?: FileChange[];
	grantRoot?: string;
	reason?: string;
	decision?: Decision;
	decidedBy?: string;
}

export interface TurnResult {
	finalText: string;
	toolIterations: number;
	status: string;
	completed: boolean;
	partial?: boolean;
	error?: string;
	threadId: string;
	turnId: string;
	usage?: Usage;
	transcriptPath?: string;
	durationMs?: number;
	fallback?: unknown;
}

export type TurnEventKind =
	| 'turnStarted'
	| 'steered'
	| 'answerDelta'
	| 'reasoningDelta'
	| 'toolStarted'
	| 'toolOutput'
	| 'toolCompleted'
	| 'plan'
	| 'diff'
	| 'usage'
	| 'compaction'
	| 'approvalWaiting'
	| 'approvalResolved'
	| 'fallback'
	| 'error'
	| 'turnCompleted';

export interface TurnEvent {
	kind: TurnEventKind;
	threadId?: string;
	turnId?: string;
	time?: string;
	text?: string;
	tool?: ToolEvent;
	plan?: { step: string; status: string }[];
	diff?: string;
	usage?: Usage;
	compaction?: { count: number };
	approval?: Approval;
	result?: TurnResult;
}

/** The hermes/turnEvent notification's params. */
export interface TurnEventParams {
	folder: string;
	threadId: string;
	turnId: string;
	event: TurnEvent;
}

export interface AskResult {
	threadId: string;
	turnId: string;
	folder: string;
	steered?: boolean;
}

export interface FolderStatus {
	folder: string;
	threadId?: string;
	turn?: { id: string; state: string } | null;
	usage?: Usage;
	contextPercent?: number;
	pendingApprovals?: { approvalId: string; kind: string; summary: string }[];
	yolo?: boolean;
	fallback?: unknown;
	compactions?: number;
}

export interface StatusResult {
	folders: FolderStatus[];
}

export interface MessageActionItem {
	title: string;
}
