// The chat view's conversation, without vscode: the items a folder's turns leave (your prompts, the
// answers as they stream, tool calls, approvals, diffs, each turn's last line), built from
// hermes/turnEvent notifications, or from a thread's markdown transcript when the view opens again.

import { formatTokens } from './format';
import type { TurnEventParams } from './protocol';

/**
 * ChatItem is one entry of the conversation. key names it for the view's updates (unique in a Chat,
 * never reused): the page replaces only the entries whose rendering changed.
 */
export type ChatItem = { key: number } & (
	| { kind: 'you'; text: string }
	| { kind: 'answer'; text: string }
	| { kind: 'tool'; id: string; line: string; done: boolean; ok: boolean; output: string }
	| { kind: 'approval'; id: string; summary: string; warning: string; decision: string }
	| { kind: 'diff'; text: string }
	/** An error: a turn that failed, or codex's error event; retry is the prompt to send again. */
	| { kind: 'error'; text: string; retry: string }
	/** A turn's last line; transcript is the thread's markdown transcript, undone marks an undone turn. */
	| { kind: 'end'; line: string; turnId: string; transcript: string; undone: boolean }
);

/** NewItem is an item before the Chat gives it its key. */
type NewItem = ChatItem extends infer T ? (T extends ChatItem ? Omit<T, 'key'> : never) : never;

/** maxItems bounds what the view keeps: the oldest go first. */
const maxItems = 400;
/** maxText bounds an answer or a tool's output kept for the view. */
const maxText = 64 * 1024;

function clip(s: string): string {
	return s.length > maxText ? s.slice(0, maxText) + '\n…' : s;
}

/** Chat is one folder's conversation as the view shows it. */
export class Chat {
	items: ChatItem[] = [];
	threadId = '';
	running = false;
	tokens = 0;
	contextPercent = 0;
	/** The prompt of the latest turn (Retry sends it again). */
	lastPrompt = '';
	private nextKey = 1;

	private push(n: NewItem): ChatItem {
		const item = { ...n, key: this.nextKey++ };
		this.items.push(item);
		if (this.items.length > maxItems) {
			this.items.splice(0, this.items.length - maxItems);
		}
		return item;
	}

	private last(): ChatItem | undefined {
		return this.items[this.items.length - 1];
	}

	/** apply takes one hermes/turnEvent into the conversation; it reports whether it changed. */
	apply(p: TurnEventParams): boolean {
		const ev = p.event;
		if (p.threadId) {
			this.threadId = p.threadId;
		}
		switch (ev.kind) {
			case 'turnStarted':
				this.running = true;
				this.lastPrompt = ev.text ?? '';
				this.push({ kind: 'you', text: ev.text ?? '' });
				return true;
			case 'steered':
				this.push({ kind: 'you', text: ev.text ?? '' });
				return true;
			case 'answerDelta': {
				const last = this.last();
				if (last?.kind === 'answer') {
					last.text = clip(last.text + (ev.text ?? ''));
				} else {
					this.push({ kind: 'answer', text: ev.text ?? '' });
				}
				return true;
			}
			case 'toolStarted':
				if (ev.tool) {
					this.push({ kind: 'tool', id: ev.tool.itemId, line: `${ev.tool.name} ${ev.tool.preview}`, done: false, ok: true, output: '' });
					return true;
				}
				return false;
			case 'toolOutput': {
				const t = this.findTool(ev.tool?.itemId);
				if (t) {
					t.output = clip(t.output + (ev.text ?? ''));
					return true;
				}
				return false;
			}
			case 'toolCompleted': {
				if (!ev.tool) {
					return false;
				}
				const t =
					this.findTool(ev.tool.itemId) ??
					(this.push({ kind: 'tool', id: ev.tool.itemId, line: '', done: false, ok: true, output: '' }) as Extract<ChatItem, { kind: 'tool' }>);
				const exit = ev.tool.exitCode !== undefined && ev.tool.exitCode !== null ? ` · exit ${ev.tool.exitCode}` : '';
				const took = ev.tool.durationMs ? ` · ${(ev.tool.durationMs / 1000).toFixed(1)} s` : '';
				t.line = `${ev.tool.name} ${ev.tool.preview}${exit}${took}`;
				t.done = true;
				t.ok = !ev.tool.isError;
				if (!t.output && ev.tool.result) {
					t.output = clip(ev.tool.result);
				}
				return true;
			}
			case 'approvalWaiting':
				if (ev.approval) {
					this.push({ kind: 'approval', id: ev.approval.approvalId, summary: ev.approval.summary, warning: ev.approval.warning ?? '', decision: '' });
					return true;
				}
				return false;
			case 'approvalResolved': {
				const a = this.items.find((i): i is Extract<ChatItem, { kind: 'approval' }> => i.kind === 'approval' && i.id === ev.approval?.approvalId);
				if (a && ev.approval) {
					a.decision = `${ev.approval.decision ?? '?'} (${ev.approval.decidedBy ?? 'user'})`;
					return true;
				}
				return false;
			}
			case 'diff':
				if (ev.diff) {
					// The turn's diff is one entry, updated where it first showed.
					const you = this.lastYou();
					const last = this.items.slice(you + 1).find((i) => i.kind === 'diff');
					if (last?.kind === 'diff') {
						last.text = clip(ev.diff);
					} else {
						this.push({ kind: 'diff', text: clip(ev.diff) });
					}
					return true;
				}
				return false;
			case 'usage':
				if (ev.usage) {
					this.tokens = ev.usage.totalTokens;
					if (ev.usage.contextWindow) {
						this.contextPercent = Math.min(100, Math.round(((ev.usage.lastPromptTokens ?? 0) * 100) / ev.usage.contextWindow));
					}
					return true;
				}
				return false;
			case 'error':
				if (ev.text) {
					this.push({ kind: 'error', text: clip(ev.text), retry: '' });
					return true;
				}
				return false;
			case 'turnCompleted': {
				this.running = false;
				const r = ev.result;
				if (r) {
					const failed = r.status === 'failed' || (!r.completed && !!r.error && r.status !== 'interrupted');
					if (failed) {
						this.push({ kind: 'error', text: clip(r.error || r.finalText || 'The turn failed.'), retry: this.lastPrompt });
					} else if (!this.items.some((i, n) => i.kind === 'answer' && n > this.lastYou()) && r.finalText) {
						this.push({ kind: 'answer', text: clip(r.finalText) });
					}
					this.push({
						kind: 'end',
						line: `${r.status} · ${r.toolIterations} tool call(s) · ${formatTokens(r.usage.totalTokens)} tokens`,
						turnId: r.turnId || p.turnId,
						transcript: r.transcriptPath ?? '',
						undone: false,
					});
				}
				return true;
			}
		}
		return false;
	}

	/** markUndone marks the end of the turn turnId as undone; it reports whether the view has it. */
	markUndone(turnId: string): boolean {
		const end = this.items.find((i): i is Extract<ChatItem, { kind: 'end' }> => i.kind === 'end' && i.turnId === turnId);
		if (!end || end.undone) {
			return false;
		}
		end.undone = true;
		return true;
	}

	/** item is the entry with key, if the view still has it. */
	item(key: number): ChatItem | undefined {
		return this.items.find((i) => i.key === key);
	}

	private lastYou(): number {
		for (let i = this.items.length - 1; i >= 0; i--) {
			if (this.items[i].kind === 'you') {
				return i;
			}
		}
		return -1;
	}

	private findTool(id: string | undefined): Extract<ChatItem, { kind: 'tool' }> | undefined {
		for (let i = this.items.length - 1; i >= 0; i--) {
			const it = this.items[i];
			if (it.kind === 'tool' && it.id === id) {
				return it;
			}
		}
		return undefined;
	}

	/**
	 * loadTranscript replaces the conversation with a thread's markdown transcript (as the server
	 * writes it: "### You · time" and the prompt quoted ("> " on each line), "### Hermes" and the
	 * answer quoted the same way (an older transcript's answer is not), tool lines "**$** `cmd` — ✓",
	 * approvals "> ✅ …", an italic last line per turn). A quoted prompt or answer ends at its first
	 * line that is not a quote: a quote line inside it is its text, never an approval.
	 */
	loadTranscript(md: string, threadId: string, transcriptPath = ''): void {
		this.items = [];
		this.threadId = threadId;
		this.running = false;
		let section: 'none' | 'you' | 'answer' = 'none';
		let quoted = false;
		let buf: string[] = [];
		const flush = () => {
			let text = buf.join('\n');
			if (quoted) {
				text = text.replace(/^> ?/gm, '');
			}
			text = text.trim();
			if (section === 'you' && text) {
				this.push({ kind: 'you', text });
			} else if (section === 'answer' && text) {
				this.push({ kind: 'answer', text: clip(text) });
			}
			buf = [];
			section = 'none';
			quoted = false;
		};
		const lines = md.split(/\r\n|\r|\n/);
		for (let i = 0; i < lines.length; i++) {
			const line = lines[i];
			if (section !== 'none' && buf.length === 0) {
				if (line.trim() === '') {
					continue;
				}
				quoted = line.startsWith('>');
			}
			if (quoted) {
				if (line.startsWith('>')) {
					buf.push(line);
					continue;
				}
				flush();
			}
			if (/^### You\b/.test(line) || /^### Compaction\b/.test(line)) {
				flush();
				section = line.startsWith('### You') ? 'you' : 'none';
				continue;
			}
			if (line.startsWith('### Hermes')) {
				flush();
				section = 'answer';
				continue;
			}
			if (line.startsWith('**$** ') || line.startsWith('**Patch** ') || /^\*\*[\w.]+\*\* `/.test(line)) {
				flush();
				this.push({ kind: 'tool', id: `t${i}`, line: line.replace(/\*\*/g, '').replace(/`/g, ''), done: true, ok: !line.includes('✗'), output: '' });
				continue;
			}
			if (/^> (✅|⛔|…) /.test(line)) {
				flush();
				this.push({ kind: 'approval', id: `a${i}`, summary: line.slice(2), warning: '', decision: 'answered' });
				continue;
			}
			if (/^_\w+ · turn `/.test(line)) {
				flush();
				const turnId = /turn `([^`]+)`/.exec(line)?.[1] ?? '';
				this.push({ kind: 'end', line: line.replace(/^_|_$/g, '').replace(/`/g, ''), turnId, transcript: transcriptPath, undone: false });
				continue;
			}
			if (line === '---' && section !== 'answer') {
				continue;
			}
			if (section !== 'none') {
				buf.push(line);
			}
		}
		flush();
	}
}
