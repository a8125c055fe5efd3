// Turn events (hermes/turnEvent) -> the status bar's model and the text of the Hermes view. No vscode import.

import { agentLacks, agentLine, type AgentLacksKey } from './agent';
import { baseName, contextPercent, formatDuration, formatTokens, type BarModel, type BarState } from './format';
import type { Account, AgentStatus, Approval, Decision, StatusResult, TurnEventParams, Usage } from './protocol';
import { asked, asksQuestions, permissionsWords } from './questions';

/**
 * The context keys the extension sets (package.json's enablement and when clauses use them), the
 * agent's among them (agent.ts).
 */
export interface ContextKeys extends Record<AgentLacksKey, boolean> {
	/** A turn is running in some folder. */
	'hermes.turnRunning': boolean;
	/** An approval waits for the user. */
	'hermes.approvalPending': boolean;
	/** codex has an account (false also while unknown). */
	'hermes.signedIn': boolean;
}

/** What the extension knows of one folder's latest turn. */
export interface FolderTurn {
	folder: string;
	threadId: string;
	turnId: string;
	state: BarState;
	activity?: string;
	usage?: Usage;
	toolCalls: number;
	pending: Map<string, Approval>;
	yolo?: boolean;
}

/**
 * TurnTracker follows every folder's turns from their events: state, current step, usage and the
 * approvals waiting. The status bar shows the folder with the latest event.
 */
export class TurnTracker {
	private readonly folders = new Map<string, FolderTurn>();
	private latest: string | undefined;
	private readonly approvals = new Map<string, Approval>(); // every approval seen, by id (bounded)
	private serverState: 'starting' | 'running' | 'stopped' = 'starting';
	/** codex's account and whether it is signed in, from hermes.status (undefined: unknown). */
	private account: Account | undefined;
	private signedIn: boolean | undefined;
	/** The agent that runs the turns, from hermes.status (undefined: unknown). */
	private agent: AgentStatus | undefined;

	/** apply takes one notification and returns the folder's updated view. */
	apply(p: TurnEventParams): FolderTurn {
		const ev = p.event;
		let f = this.folders.get(p.folder);
		if (!f || ev.kind === 'turnStarted' || (p.turnId && f.turnId !== p.turnId && ev.kind !== 'approvalResolved')) {
			f = {
				folder: p.folder,
				threadId: p.threadId,
				turnId: p.turnId,
				state: 'running',
				toolCalls: 0,
				pending: new Map(),
				yolo: f?.yolo,
			};
			this.folders.set(p.folder, f);
		}
		this.latest = p.folder;
		switch (ev.kind) {
			case 'turnStarted':
				f.activity = 'starting';
				break;
			case 'steered':
				f.activity = 'steered';
				break;
			case 'reasoningDelta':
				f.activity = 'thinking';
				break;
			case 'answerDelta':
				f.activity = 'answering';
				break;
			case 'toolStarted':
				if (ev.tool) {
					f.toolCalls++;
					f.activity = `${ev.tool.name}: ${ev.tool.preview}`;
				}
				break;
			case 'toolCompleted':
				if (ev.tool) {
					f.activity = `${ev.tool.name} ${ev.tool.isError ? 'failed' : 'done'}`;
				}
				break;
			case 'compaction':
				f.activity = 'compacting the context';
				break;
			case 'usage':
				if (ev.usage) {
					f.usage = ev.usage;
				}
				break;
			case 'approvalWaiting':
				if (ev.approval) {
					f.pending.set(ev.approval.approvalId, ev.approval);
					this.remember(ev.approval);
					f.activity = `waiting for approval: ${ev.approval.summary}`;
				}
				break;
			case 'approvalResolved':
				if (ev.approval) {
					f.pending.delete(ev.approval.approvalId);
					this.remember(ev.approval);
				}
				break;
			case 'turnCompleted': {
				const r = ev.result;
				f.pending.clear();
				if (r?.usage) {
					f.usage = r.usage;
				}
				f.state = !r ? 'completed' : r.completed ? 'completed' : r.status === 'interrupted' ? 'interrupted' : 'failed';
				f.activity = r?.error ? r.error.split('\n')[0] : undefined;
				return f;
			}
			default:
				break;
		}
		if (f.state !== 'completed' && f.state !== 'failed' && f.state !== 'interrupted') {
			f.state = f.pending.size > 0 ? 'approval' : 'running';
		}
		return f;
	}

	/** approval is an approval seen in the events, by id. */
	approval(id: string): Approval | undefined {
		return this.approvals.get(id);
	}

	/** setYolo records a folder's auto-approval (from hermes.toggleYolo). */
	setYolo(folder: string, yolo: boolean): void {
		const f = this.folders.get(folder);
		if (f) {
			f.yolo = yolo;
		} else {
			this.folders.set(folder, { folder, threadId: '', turnId: '', state: 'idle', toolCalls: 0, pending: new Map(), yolo });
		}
		this.latest = folder;
	}

	setServerState(s: 'starting' | 'running' | 'stopped'): void {
		this.serverState = s;
		if (s === 'stopped') {
			// The agent is the server's: a restart may start another (hermes.agent.kind changed), told by
			// the next hermes.status.
			this.agent = undefined;
			// The server's turns and approvals end with it: after a restart nothing runs or waits.
			for (const f of this.folders.values()) {
				if (f.state === 'running' || f.state === 'approval') {
					f.state = 'interrupted';
					f.activity = undefined;
				}
				f.pending.clear();
			}
		}
	}

	/** setAccount records codex's account from a hermes.status answer (absent fields: unknown, kept as they were). */
	setAccount(st: Pick<StatusResult, 'account' | 'signedIn'>): void {
		if (st.signedIn !== undefined) {
			this.signedIn = st.signedIn;
			this.account = st.signedIn ? (st.account ?? this.account) : undefined;
		} else if (st.account) {
			this.account = st.account;
			this.signedIn = true;
		}
	}

	/** setAgent records the agent from a hermes.status answer; one without it keeps what was known. */
	setAgent(st: Pick<StatusResult, 'agent'>): void {
		if (st.agent) {
			this.agent = st.agent;
		}
	}

	/** waiting lists the approvals waiting for an answer, in every folder, in the order they came. */
	waiting(): Approval[] {
		if (this.serverState !== 'running') {
			return [];
		}
		return [...this.folders.values()].flatMap((f) => [...f.pending.values()]);
	}

	/**
	 * contextKeys are the context keys' values, from the events alone: no turn runs and no approval
	 * waits while the server is not running (its turns ended with it).
	 */
	contextKeys(): ContextKeys {
		const up = this.serverState === 'running';
		return {
			'hermes.turnRunning': up && this.running().length > 0,
			'hermes.approvalPending': this.waiting().length > 0,
			'hermes.signedIn': this.signedIn === true,
			...agentLacks(this.agent),
		};
	}

	/** running lists the folders with a turn running. */
	running(): FolderTurn[] {
		return [...this.folders.values()].filter((f) => f.state === 'running' || f.state === 'approval');
	}

	/** bar is the status bar's model. */
	bar(): BarModel {
		if (this.serverState !== 'running') {
			return { state: this.serverState === 'starting' ? 'starting' : 'stopped' };
		}
		const f = this.latest ? this.folders.get(this.latest) : undefined;
		if (!f) {
			return { state: 'idle', ...this.accountFields(), ...this.agentFields() };
		}
		return {
			state: f.state,
			folder: baseName(f.folder),
			activity: f.activity,
			tokens: f.usage?.totalTokens,
			contextPercent: contextPercent(f.usage),
			yolo: f.yolo,
			pendingApprovals: f.pending.size,
			...this.accountFields(),
			...this.agentFields(),
		};
	}

	private agentFields(): Pick<BarModel, 'agent'> {
		const line = agentLine(this.agent);
		return line ? { agent: line } : {};
	}

	private accountFields(): Pick<BarModel, 'account' | 'signedIn'> {
		return { ...(this.account ? { account: this.account } : {}), ...(this.signedIn !== undefined ? { signedIn: this.signedIn } : {}) };
	}

	private remember(a: Approval): void {
		const prev = this.approvals.get(a.approvalId);
		// A resolved event may carry fewer details than the waiting one: keep the changes.
		this.approvals.set(a.approvalId, { ...prev, ...a, changes: a.changes ?? prev?.changes });
		if (this.approvals.size > 200) {
			const first = this.approvals.keys().next().value;
			if (first !== undefined) {
				this.approvals.delete(first);
			}
		}
	}
}

const DECISION_WORDS: Record<Decision, string> = {
	once: 'allowed once',
	session: 'allowed for the session',
	deny: 'denied',
	stop: 'denied, turn stopped',
};

const ANSWER_WORDS: Record<Decision, string> = {
	once: 'answered',
	session: 'answered',
	deny: 'declined',
	stop: 'declined, turn stopped',
};

/** decisionWords says an approval's outcome for a person (questions: answered or declined; never the answers). */
export function decisionWords(a: Approval): string {
	const words = asksQuestions(a) ? ANSWER_WORDS : DECISION_WORDS;
	const d = a.decision ? (words[a.decision] ?? a.decision) : 'resolved';
	return a.decidedBy && a.decidedBy !== 'user' ? `${d} (${a.decidedBy})` : d;
}

/**
 * approvalWords says what an approval asks, in words: the command and its folder, the patch, the
 * access (network, paths), or who asks which questions (an MCP server's link as text).
 */
export function approvalWords(a: Approval): string {
	switch (a.kind) {
		case 'exec':
			return `Hermes wants to run ${a.command ?? a.summary}${a.cwd ? ` in ${a.cwd}` : ''}`;
		case 'permissions': {
			const access = permissionsWords(a.permissions);
			return `Hermes wants ${access.length > 0 ? access.join(', ') : a.summary}`;
		}
		case 'elicitation':
		case 'userInput': {
			const q = asked(a);
			const what = [q.message, q.url, ...q.questions.map((x) => x.text)].filter(Boolean).join(' · ') || a.summary;
			return `${q.asker} asks${q.tool ? ` to run its tool "${q.tool}"` : ''}: ${what} (answer in the chat view)`;
		}
		default:
			return `Hermes wants to apply a patch: ${a.summary}`;
	}
}

const MAX_RESULT_LINES = 12;

/**
 * TurnRenderer turns the events into the text streamed to the Hermes view: the prompt, the answer as
 * it streams, each tool call with its output or result, each approval and how it was answered, and a
 * closing line. It keeps track of line starts so tool output is indented.
 */
export class TurnRenderer {
	private atLineStart = true;
	private mode: 'none' | 'answer' | 'tool' = 'none';
	private readonly answered = new Set<string>(); // turns whose answer streamed
	private readonly outputSeen = new Set<string>(); // tool items whose output streamed

	render(p: TurnEventParams): string {
		const ev = p.event;
		switch (ev.kind) {
			case 'turnStarted':
				return this.block(`━━ Hermes · ${baseName(p.folder)} · turn ${p.turnId} ━━\n` + quote(ev.text ?? ''));
			case 'steered':
				return this.block('(steered)\n' + quote(ev.text ?? ''));
			case 'answerDelta': {
				if (!ev.text) {
					return '';
				}
				this.answered.add(p.turnId);
				let prefix = '';
				if (this.mode !== 'answer') {
					prefix = this.atLineStart ? '\n' : '\n\n';
					this.mode = 'answer';
				}
				return this.emit(prefix + ev.text);
			}
			case 'toolStarted':
				if (!ev.tool) {
					return '';
				}
				this.mode = 'tool';
				return this.block(`▶ ${ev.tool.name}: ${ev.tool.preview}`);
			case 'toolOutput': {
				if (!ev.text) {
					return '';
				}
				if (ev.tool?.itemId) {
					this.outputSeen.add(ev.tool.itemId);
				}
				this.mode = 'tool';
				return this.emit(indent(ev.text, this.atLineStart));
			}
			case 'toolCompleted': {
				const t = ev.tool;
				if (!t) {
					return '';
				}
				this.mode = 'tool';
				const dur = t.durationMs !== undefined ? ` (${formatDuration(t.durationMs)})` : '';
				let text = `${t.isError ? '✗' : '✓'} ${t.name}${t.isError ? ' failed' : ''}${dur}`;
				if (t.result && !this.outputSeen.has(t.itemId)) {
					text += '\n' + indent(clip(t.result, MAX_RESULT_LINES), true).replace(/\n$/, '');
				}
				this.outputSeen.delete(t.itemId);
				return this.block(text);
			}
			case 'plan':
				if (!ev.plan?.length) {
					return '';
				}
				return this.block('Plan:\n' + ev.plan.map((s) => `  ${planMark(s.status)} ${s.step}`).join('\n'));
			case 'compaction':
				return this.block(`⟳ context compacted${ev.compaction?.count ? ` (#${ev.compaction.count})` : ''}`);
			case 'approvalWaiting': {
				const a = ev.approval;
				if (!a) {
					return '';
				}
				return this.block(`⚠ approval ${a.approvalId}: ${approvalWords(a)}${a.reason ? ` (${a.reason})` : ''}`);
			}
			case 'approvalResolved': {
				const a = ev.approval;
				if (!a) {
					return '';
				}
				return this.block(`${a.decision === 'once' || a.decision === 'session' ? '✔' : '✘'} approval ${a.approvalId}: ${decisionWords(a)}`);
			}
			case 'fallback':
				return this.block(`↪ fallback: ${ev.text ?? ''}`);
			case 'error':
				return this.block(`✗ error: ${ev.text ?? ''}`);
			case 'turnCompleted': {
				const r = ev.result;
				let text = '';
				if (r && !this.answered.has(p.turnId) && r.finalText) {
					text += r.finalText.replace(/\n+$/, '') + '\n';
				}
				this.answered.delete(p.turnId);
				const parts = [r ? (r.completed ? 'completed' : r.status || 'ended') : 'ended'];
				if (r) {
					parts.push(`${r.toolIterations ?? 0} tool call(s)`);
					if (r.usage?.totalTokens) {
						parts.push(`${formatTokens(r.usage.totalTokens)} tokens`);
					}
					if (r.durationMs !== undefined) {
						parts.push(formatDuration(r.durationMs));
					}
				}
				text += `━━ ${parts.join(' · ')} ━━`;
				if (r?.error) {
					text += `\n${r.error}`;
				}
				if (r?.transcriptPath) {
					text += `\nTranscript: ${r.transcriptPath}`;
				}
				const out = this.block(text) + '\n';
				this.mode = 'none';
				this.atLineStart = true;
				return out;
			}
			default:
				return ''; // reasoning, diff and usage go to the status bar, not the view
		}
	}

	/** block writes text on lines of its own. */
	private block(text: string): string {
		const prefix = this.atLineStart ? '' : '\n';
		if (this.mode === 'answer') {
			this.mode = 'none';
		}
		return this.emit(prefix + text.replace(/\n+$/, '') + '\n');
	}

	private emit(s: string): string {
		if (s.length > 0) {
			this.atLineStart = s.endsWith('\n');
		}
		return s;
	}
}

function quote(text: string): string {
	const t = text.trim();
	return t
		? t
				.split('\n')
				.map((l) => '> ' + l)
				.join('\n')
		: '';
}

/** indent prefixes each line of text with a bar; atLineStart says whether text starts a line. */
export function indent(text: string, atLineStart: boolean): string {
	let out = '';
	let start = atLineStart;
	for (const ch of text.split(/(\n)/)) {
		if (ch === '\n') {
			out += '\n';
			start = true;
			continue;
		}
		if (ch === '') {
			continue;
		}
		out += (start ? '  │ ' : '') + ch;
		start = false;
	}
	return out;
}

/** clip keeps the first max lines of text and says how many were left out. */
export function clip(text: string, max: number): string {
	const lines = text.replace(/\n+$/, '').split('\n');
	if (lines.length <= max) {
		return lines.join('\n') + '\n';
	}
	return lines.slice(0, max).join('\n') + `\n… ${lines.length - max} more line(s)\n`;
}

function planMark(status: string): string {
	switch (status) {
		case 'completed':
			return '[x]';
		case 'inProgress':
		case 'in_progress':
			return '[~]';
		default:
			return '[ ]';
	}
}
