// The chat view's conversation, without vscode: the items a folder's turns leave (your prompts, the
// answers as they stream, tool calls, approvals, questions to answer, diffs, each turn's last
// line), built from hermes/turnEvent notifications, or from the thread's history the server
// answers (hermes.threadHistory) when the view opens again or resumes a thread.

import { formatTokens } from './format';
import type { Approval, ThreadHistory, TurnEventParams } from './protocol';
import { asked, asksQuestions, outcome, permissionsWords, type Asked } from './questions';

/**
 * ChatItem is one entry of the conversation. key names it for the view's updates (unique in a Chat,
 * never reused): the page replaces only the entries whose rendering changed.
 */
export type ChatItem = { key: number } & (
	| { kind: 'you'; text: string }
	| { kind: 'answer'; text: string }
	| { kind: 'tool'; id: string; line: string; done: boolean; ok: boolean; output: string }
	/** A command, a patch or wider access (a permissions approval's summary says it in words) to allow or deny. */
	| { kind: 'approval'; id: string; summary: string; warning: string; decision: string }
	/** Questions to answer inline (an elicitation or userInput approval); outcome is set once it is resolved. */
	| { kind: 'question'; id: string; asked: Asked; outcome: string }
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

/** toolLine is a finished tool call's line: its name and preview, the exit code, how long it took. */
function toolLine(name: string, preview: string, exitCode: number | null | undefined, durationMs: number | undefined): string {
	const exit = exitCode !== undefined && exitCode !== null ? ` · exit ${exitCode}` : '';
	const took = durationMs ? ` · ${(durationMs / 1000).toFixed(1)} s` : '';
	return `${name} ${preview}${exit}${took}`;
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
				t.line = toolLine(ev.tool.name, ev.tool.preview, ev.tool.exitCode, ev.tool.durationMs);
				t.done = true;
				t.ok = !ev.tool.isError;
				if (!t.output && ev.tool.result) {
					t.output = clip(ev.tool.result);
				}
				return true;
			}
			case 'approvalWaiting':
				return ev.approval ? this.addApproval(ev.approval) : false;
			case 'approvalResolved': {
				const a = this.items.find(
					(i): i is Extract<ChatItem, { kind: 'approval' | 'question' }> =>
						(i.kind === 'approval' || i.kind === 'question') && i.id === ev.approval?.approvalId,
				);
				if (a?.kind === 'question' && ev.approval) {
					a.outcome = outcome(a.asked, ev.approval);
					return true;
				}
				if (a?.kind === 'approval' && ev.approval) {
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

	/**
	 * addApproval adds an approval waiting, once: questions to answer inline, or a request to allow.
	 * It reports whether the conversation changed.
	 */
	addApproval(a: Approval): boolean {
		if (this.hasApproval(a.approvalId)) {
			return false;
		}
		if (asksQuestions(a)) {
			this.push({ kind: 'question', id: a.approvalId, asked: asked(a), outcome: '' });
		} else {
			const access = a.kind === 'permissions' ? permissionsWords(a.permissions) : [];
			const summary = access.length > 0 ? `Hermes wants ${access.join('; ')}` : a.summary;
			this.push({ kind: 'approval', id: a.approvalId, summary, warning: a.warning ?? '', decision: '' });
		}
		return true;
	}

	/** hasApproval says whether the conversation shows the approval id. */
	hasApproval(id: string): boolean {
		return this.items.some((i) => (i.kind === 'approval' || i.kind === 'question') && i.id === id);
	}

	/** question is the question approval id, while the conversation shows it unanswered. */
	question(id: string): Extract<ChatItem, { kind: 'question' }> | undefined {
		return this.items.find((i): i is Extract<ChatItem, { kind: 'question' }> => i.kind === 'question' && i.id === id && !i.outcome);
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
	 * loadHistory replaces the conversation with a thread's history as the server keeps it
	 * (hermes.threadHistory: codex's items of the thread's turns, cleaned and bounded by the server):
	 * each turn's prompt, tool calls, its diff as one entry where the first patch showed, answers, an
	 * error for a failed turn (Retry sends its prompt again) and its last line, which links the
	 * transcript. A turn that still runs leaves the conversation running: its events continue it.
	 */
	loadHistory(h: ThreadHistory): void {
		this.items = [];
		this.threadId = h.threadId;
		this.running = false;
		this.lastPrompt = '';
		const transcript = h.transcriptPath ?? '';
		if (h.truncated) {
			this.push({ kind: 'end', line: 'older turns are not shown here: the transcript has them', turnId: '', transcript, undone: false });
		}
		for (const t of h.turns ?? []) {
			let tools = 0;
			let diff: Extract<ChatItem, { kind: 'diff' }> | undefined;
			let compacted = false;
			for (const it of t.items ?? []) {
				switch (it.kind) {
					case 'user':
						this.lastPrompt = it.text ?? '';
						this.push({ kind: 'you', text: clip(it.text ?? '') });
						break;
					case 'answer':
						if (it.text) {
							this.push({ kind: 'answer', text: clip(it.text) });
						}
						break;
					case 'tool': {
						if (it.name !== 'web_search') {
							tools++;
						}
						this.push({
							kind: 'tool',
							id: it.itemId,
							line: toolLine(it.name ?? '', it.preview ?? '', it.exitCode, it.durationMs),
							done: it.status !== 'inProgress',
							ok: !it.isError,
							output: clip(it.output ?? ''),
						});
						if (it.diff) {
							if (diff) {
								diff.text = clip(diff.text + it.diff);
							} else {
								diff = this.push({ kind: 'diff', text: clip(it.diff) }) as Extract<ChatItem, { kind: 'diff' }>;
							}
						}
						break;
					}
					case 'compaction':
						compacted = true;
						break;
				}
			}
			if (t.status === 'inProgress') {
				this.running = true;
				continue;
			}
			if (t.status === 'failed') {
				this.push({ kind: 'error', text: clip(t.error || 'The turn failed.'), retry: this.lastPrompt });
			}
			const took = t.durationMs ? ` · ${(t.durationMs / 1000).toFixed(1)} s` : '';
			const what = compacted && tools === 0 ? 'context compacted' : `${tools} tool call(s)`;
			this.push({ kind: 'end', line: `${t.status} · ${what}${took}`, turnId: t.turnId, transcript, undone: false });
		}
	}
}
