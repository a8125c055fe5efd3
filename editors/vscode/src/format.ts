// Small text formatting shared by the status bar, the Hermes view and the status command. No vscode import.

import { LoginMethod, type Account, type FolderStatus, type LoginResult, type StatusResult, type ThreadInfo, type Usage } from './protocol';

/** The user's compact number format, made once: formatTokens runs with every status bar update. */
const userCompact = new Intl.NumberFormat(undefined, { notation: 'compact' });

/**
 * formatTokens writes a token count for a person, in their locale's compact notation (Intl): 950,
 * 2.5K, 25K, 1.3M in English. locale is for the tests; undefined is the user's.
 */
export function formatTokens(n: number | undefined, locale?: string): string {
	const f = locale === undefined ? userCompact : new Intl.NumberFormat(locale, { notation: 'compact' });
	return f.format(n === undefined || !Number.isFinite(n) || n < 0 ? 0 : n);
}

function trimZero(s: string): string {
	return s.endsWith('.0') ? s.slice(0, -2) : s;
}

/** formatDuration writes milliseconds as 850ms, 3.1s, 2m05s. */
export function formatDuration(ms: number | undefined): string {
	if (ms === undefined || !Number.isFinite(ms) || ms < 0) {
		return '';
	}
	if (ms < 1000) {
		return Math.round(ms) + 'ms';
	}
	if (ms < 60_000) {
		return trimZero((ms / 1000).toFixed(1)) + 's';
	}
	const m = Math.floor(ms / 60_000);
	const s = Math.floor((ms % 60_000) / 1000);
	return `${m}m${String(s).padStart(2, '0')}s`;
}

/** contextPercent is how full the context window is, 0 to 100, or undefined when unknown (as the server computes it). */
export function contextPercent(u: Usage | undefined): number | undefined {
	if (!u || !u.contextWindow || u.contextWindow <= 0) {
		return undefined;
	}
	return Math.min(100, Math.floor(((u.lastPromptTokens ?? 0) * 100) / u.contextWindow));
}

/** What the status bar shows. */
export type BarState = 'starting' | 'idle' | 'running' | 'approval' | 'completed' | 'interrupted' | 'failed' | 'stopped';

export interface BarModel {
	state: BarState;
	folder?: string; // the folder's name
	activity?: string; // the current step while running
	tokens?: number;
	contextPercent?: number;
	yolo?: boolean;
	pendingApprovals?: number;
	/** codex's account, when known. */
	account?: Account;
	/** Whether codex is signed in, when known. */
	signedIn?: boolean;
	/** The agent, when it is not codex (agent.ts's agentLine). */
	agent?: string;
}

const ICONS: Record<BarState, string> = {
	starting: '$(loading~spin)',
	idle: '$(hubot)',
	running: '$(sync~spin)',
	approval: '$(bell-dot)',
	completed: '$(check)',
	interrupted: '$(debug-pause)',
	failed: '$(error)',
	stopped: '$(circle-slash)',
};

const WORDS: Record<BarState, string> = {
	starting: 'starting',
	idle: 'idle',
	running: 'running',
	approval: 'approval needed',
	completed: 'done',
	interrupted: 'interrupted',
	failed: 'failed',
	stopped: 'server stopped',
};

/** statusBarText is the status bar item's text: icon, state, tokens and context %. */
export function statusBarText(m: BarModel): string {
	const parts = [`${ICONS[m.state]} Hermes: ${WORDS[m.state]}`];
	if (m.tokens !== undefined && m.tokens > 0) {
		parts.push(`${formatTokens(m.tokens)} tok`);
	}
	if (m.contextPercent !== undefined) {
		parts.push(`${m.contextPercent}% ctx`);
	}
	if (m.yolo) {
		parts.push('auto-approve');
	}
	if (m.signedIn === false) {
		parts.push('not signed in');
	}
	return parts.join(' · ');
}

/** statusBarTooltip is the item's hover: the folder, the step, the agent when not codex, and what a click does. */
export function statusBarTooltip(m: BarModel): string {
	const lines = [`Hermes: ${WORDS[m.state]}${m.folder ? ` in ${m.folder}` : ''}`];
	if (m.activity) {
		lines.push(m.activity);
	}
	if (m.tokens !== undefined && m.tokens > 0) {
		lines.push(`${formatTokens(m.tokens)} tokens this turn`);
	}
	if (m.contextPercent !== undefined) {
		lines.push(`context ${m.contextPercent}% full`);
	}
	if (m.pendingApprovals) {
		lines.push(`${m.pendingApprovals} approval(s) waiting`);
	}
	lines.push(`auto-approve ${m.yolo ? 'on' : 'off'}`);
	if (m.agent) {
		lines.push(m.agent);
	}
	const acc = accountLine(m);
	if (acc) {
		lines.push(acc);
	}
	lines.push(m.signedIn === false ? 'Click for the status and to sign in (Hermes: Show Status).' : 'Click for the status (Hermes: Show Status).');
	return lines.join('\n');
}

/** baseName is the last element of a path. */
export function baseName(p: string): string {
	const trimmed = p.replace(/[\\/]+$/, '');
	const i = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
	return i >= 0 ? trimmed.slice(i + 1) : trimmed;
}

/** folderStatusLine says one folder of hermes.status in a line. */
export function folderStatusLine(f: FolderStatus): string {
	const parts: string[] = [];
	parts.push(f.turn ? `turn ${f.turn.state}` : 'no turn yet');
	const total = f.usage?.totalTokens ?? 0;
	parts.push(`${formatTokens(total)} tokens`);
	const pct = f.contextPercent ?? contextPercent(f.usage);
	if (pct !== undefined && (f.usage?.contextWindow ?? 0) > 0) {
		parts.push(`${pct}% context`);
	}
	parts.push(`auto-approve ${f.yolo ? 'on' : 'off'}`);
	const pending = f.pendingApprovals?.length ?? 0;
	if (pending > 0) {
		parts.push(`${pending} approval(s) waiting`);
	}
	if (f.compactions) {
		const ineffective = f.ineffectiveCompactions ? ` (last ${f.ineffectiveCompactions} ineffective)` : '';
		parts.push(`${f.compactions} compaction(s)${ineffective}`);
	}
	if (f.fallback) {
		parts.push(`fallback ${String(f.fallback)}`);
	}
	return parts.join(' · ');
}

/** statusText renders hermes.status for the status command: a headline and one block per folder. */
export function statusText(r: StatusResult | null | undefined): { headline: string; detail: string } {
	const folders = r?.folders ?? [];
	if (folders.length === 0) {
		return { headline: 'Hermes: no workspace folder has a session yet.', detail: 'Ask something (Hermes: Ask…) to start one.' };
	}
	const running = folders.filter((f) => f.turn?.state === 'running').length;
	const headline = running > 0 ? `Hermes: ${running} turn(s) running` : `Hermes: idle in ${folders.length} folder(s)`;
	const detail = folders
		.map((f) => {
			const lines = [`${baseName(f.folder)} (${f.folder})`, '  ' + folderStatusLine(f)];
			if (f.threadId) {
				lines.push(`  thread ${f.threadId}`);
			}
			for (const a of f.pendingApprovals ?? []) {
				lines.push(`  waiting: ${a.kind} ${a.summary} (${a.approvalId})`);
			}
			return lines.join('\n');
		})
		.join('\n');
	return { headline, detail };
}

/** accountName is how to name an account: its email (and plan), else its kind. */
export function accountName(a: Account): string {
	if (a.email) {
		return a.planType ? `${a.email} (${a.planType})` : a.email;
	}
	return a.type === 'apiKey' ? 'an API key' : a.type;
}

/** accountLine says who codex is signed in as, or that it is not; undefined when unknown. */
export function accountLine(st: { account?: Account; signedIn?: boolean }): string | undefined {
	if (st.signedIn === false) {
		return 'codex is not signed in';
	}
	if (st.account) {
		return `codex is signed in as ${accountName(st.account)}`;
	}
	return st.signedIn ? 'codex is signed in' : undefined;
}

/** What the Sign In command does with hermes.login's answer. */
export type LoginOutcome =
	| { kind: 'already'; message: string }
	| { kind: 'deviceCode'; message: string; url: string; userCode: string; open: boolean }
	| { kind: 'browser'; message: string; url: string; open: boolean }
	| { kind: 'none' };

/**
 * loginOutcome reads hermes.login's answer: already signed in (say as whom); a device code (show it,
 * with a way to copy it); or a page to open in the browser. open says the extension must open the
 * page itself: the server did not (opened false, e.g. no showDocument).
 */
export function loginOutcome(r: LoginResult | undefined): LoginOutcome {
	if (!r) {
		return { kind: 'none' };
	}
	if (r.alreadySignedIn) {
		return { kind: 'already', message: `Signed in to codex as ${accountName(r.alreadySignedIn)}.` };
	}
	if (!r.url) {
		return { kind: 'none' };
	}
	if (r.userCode) {
		return {
			kind: 'deviceCode',
			message: `Hermes: to sign in to codex, enter the code ${r.userCode} at ${r.url}.`,
			url: r.url,
			userCode: r.userCode,
			open: !r.opened,
		};
	}
	return {
		kind: 'browser',
		message: `Hermes: finish signing in to codex in your browser${r.opened ? '' : ` (${r.url})`}.`,
		url: r.url,
		open: !r.opened,
	};
}

/** loginMethod is hermes.login's method: a device code in a remote window (the browser is on another machine than codex). */
export function loginMethod(remoteName: string | undefined): string {
	return remoteName ? LoginMethod.deviceCode : LoginMethod.chatgpt;
}

/** threadName is a thread's name for the header and the picker: its title on one line, never its id. */
/** conversations are the threads a person resumes: a code review's thread (review) is not one. */
export function conversations(threads: readonly ThreadInfo[]): ThreadInfo[] {
	return threads.filter((t) => !t.review);
}

export function threadName(title: string): string {
	const t = title.replace(/\s+/g, ' ').trim();
	if (!t) {
		return 'untitled thread';
	}
	return t.length > 60 ? `${t.slice(0, 59)}…` : t;
}
