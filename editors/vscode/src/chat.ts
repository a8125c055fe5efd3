// The "Hermes" chat view: a webview view beside the explorer that streams the folder's conversation
// (chatModel.ts, rendered by chatHtml.ts), with an input box (Enter sends; while a turn runs the
// server steers it with what you send), and the thread, the model and the usage in its header. Its
// title bar has Threads (resume a past thread), Model (model and effort) and New Thread. The page
// gets only the entries that changed (so opened tool output, focus and selection stay), a line for
// the screen reader's live region when something new comes, and follows the conversation: to the
// newest entry on a send and a turn's start, else a "jump to latest" button while scrolled up. When
// it opens again, or a thread is resumed, it shows the thread's history as the server keeps it
// (hermes.threadHistory), never parsed from the markdown transcript. codex's questions (an MCP
// server's form or link, the agent's questions) are asked inline: the view is revealed with the
// question's first field focused, and the answers go to hermes.approve (questions.ts).

import { randomBytes } from 'node:crypto';

import * as vscode from 'vscode';

import { Chat, type ChatItem } from './chatModel';
import { Command } from './commands';
import type { Hermes } from './context';
import { conversations, formatTokens, threadName } from './format';
import { announcement, page, renderUpdate } from './chatHtml';
import { pageMessage, type PageMessage } from './pageMessage';
import { approveArgs, asksQuestions } from './questions';
import {
	ServerCommand,
	type Approval,
	type ApproveArgs,
	type ApproveResult,
	type AskArgs,
	type AskResult,
	type Decision,
	type ModelInfo,
	type StatusResult,
	type ThreadHistory,
	type ThreadHistoryArgs,
	type ThreadInfo,
	type TurnEventParams,
} from './protocol';

/** ChatViewId is the view's id (package.json contributes.views). */
export const ChatViewId = 'hermes-vscode.chat';

/** The most characters of a code block the page may ask to copy. */
const maxCopy = 1024 * 1024;

/** ChatView is the chat view's provider: one conversation, of the folder the latest turn ran in. */
export class ChatView implements vscode.WebviewViewProvider {
	private view: vscode.WebviewView | undefined;
	private chat = new Chat();
	private folder: string | undefined;
	private header = 'Hermes';
	private timer: NodeJS.Timeout | undefined;
	/** What the page shows: each item's HTML by key (renderUpdate sends only what changed). */
	private readonly shown = new Map<number, string>();
	/** The next update scrolls to the newest entry (a send, a turn's start). */
	private follow = false;
	/** What the screen reader hears with the next update (new content only). */
	private announce: string[] = [];
	/** The view is being opened by a turn's start (reveal): its page does not take the focus. */
	private quietOpen = false;
	/** Thread titles by id, as hermes.threads last said. */
	private readonly titles = new Map<string, string>();
	/** The question approval whose first field the page focuses once it shows it. */
	private focusQuestion: string | undefined;

	constructor(
		private readonly extensionUri: vscode.Uri,
		private readonly h: Pick<Hermes, 'ui' | 'client'>,
	) {}

	/** register makes the view, its title bar's commands, and follows the turn events. */
	static register(context: vscode.ExtensionContext, h: Pick<Hermes, 'ui' | 'client'>): ChatView {
		const v = new ChatView(context.extensionUri, h);
		context.subscriptions.push(
			vscode.window.registerWebviewViewProvider(ChatViewId, v, { webviewOptions: { retainContextWhenHidden: true } }),
			vscode.commands.registerCommand(Command.threads, () => v.pickThread()),
			vscode.commands.registerCommand(Command.model, () => v.pickModel()),
			h.ui.turnEvents.event((p) => v.onTurnEvent(p)),
			h.ui.askQuestion.event((a) => v.showQuestion(a)),
			h.ui.threadReset.event((folder) => v.onThreadReset(folder)),
			h.ui.turnUndone.event((turnId) => {
				if (v.chat.markUndone(turnId)) {
					v.schedule();
				}
			}),
			{ dispose: () => clearTimeout(v.timer) },
		);
		return v;
	}

	resolveWebviewView(view: vscode.WebviewView): void {
		this.view = view;
		this.shown.clear();
		const media = vscode.Uri.joinPath(this.extensionUri, 'media');
		view.webview.options = { enableScripts: true, localResourceRoots: [media] };
		const nonce = randomBytes(16).toString('base64');
		view.webview.html = page(
			nonce,
			view.webview.cspSource,
			view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.js')).toString(),
			view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css')).toString(),
		);
		view.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(pageMessage(m)));
		view.onDidDispose(() => {
			this.view = undefined;
		});
	}

	/** focusInput gives the input box the focus (the view was opened to be typed in). */
	focusInput(): void {
		void this.view?.webview.postMessage({ type: 'focus' });
	}

	/** onTurnEvent follows a turn: a turn started elsewhere (a code action) reveals the view. */
	onTurnEvent(p: TurnEventParams): void {
		if (this.folder !== p.folder) {
			this.folder = p.folder;
			this.chat = new Chat();
		}
		if (p.event.kind === 'turnStarted') {
			this.follow = true;
			this.reveal();
		}
		const before = this.chat.items.length;
		if (this.chat.apply(p)) {
			this.noteNew(p, before);
			this.schedule();
		}
		if (p.event.kind === 'turnCompleted') {
			void this.refreshHeader();
		}
		if (p.event.kind === 'approvalWaiting' && p.event.approval && asksQuestions(p.event.approval)) {
			this.revealQuestion(p.event.approval.approvalId);
		}
	}

	/**
	 * showQuestion shows a question approval waiting (Hermes: Answer Approval…): in the conversation of
	 * its folder, added when the view does not have it (asked before the view followed that folder).
	 */
	showQuestion(a: Approval): void {
		if (!this.chat.hasApproval(a.approvalId)) {
			if (this.folder !== a.folder) {
				this.folder = a.folder;
				this.chat = new Chat();
			}
			this.chat.addApproval(a);
			this.schedule();
		}
		this.revealQuestion(a.approvalId);
	}

	/**
	 * revealQuestion shows the view and gives its focus to the question's first field: the person is
	 * asked, as a dialog would ask. It waits for the focus that a turn's start moves (reveal) to
	 * settle first, and approval dialogs wait for it in turn (Ui.focusSettled).
	 */
	private revealQuestion(id: string): void {
		this.focusQuestion = id;
		const before = this.h.ui.focusSettled();
		this.h.ui.whileFocusMoves(
			(async () => {
				await before;
				if (this.view) {
					this.view.show(false);
				} else {
					await vscode.commands.executeCommand(`${ChatViewId}.focus`);
				}
				this.schedule();
			})(),
		);
	}

	/**
	 * reveal shows the view when a turn starts, without taking the focus from the editor: the chat is
	 * where the turn shows (an approval dialog may come next). A view never opened yet is opened with
	 * its focus command, and the focus given back to the editor that had it.
	 */
	private reveal(): void {
		if (this.view) {
			if (!this.view.visible) {
				this.view.show(true);
			}
			return;
		}
		const hadEditor = vscode.window.activeTextEditor !== undefined;
		this.quietOpen = true;
		// An approval dialog that comes meanwhile waits for this (Ui.focusSettled): opening the view
		// takes the focus, and the dialog's focused button (Deny) must keep it.
		this.h.ui.whileFocusMoves(
			(async () => {
				await vscode.commands.executeCommand(`${ChatViewId}.focus`);
				if (hadEditor) {
					await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
				}
			})(),
		);
	}

	/** noteNew queues for the live region what an event brought: an approval asked, an error, a turn's answer and end. */
	private noteNew(p: TurnEventParams, before: number): void {
		const kind = p.event.kind;
		if (kind !== 'approvalWaiting' && kind !== 'error' && kind !== 'turnCompleted') {
			return;
		}
		const items: ChatItem[] = this.chat.items.slice(before);
		if (kind === 'turnCompleted') {
			// The streamed answer was not announced piece by piece: now, whole.
			const answer = [...this.chat.items].reverse().find((i) => i.kind === 'answer' || i.kind === 'you');
			if (answer?.kind === 'answer' && !items.includes(answer)) {
				items.unshift(answer);
			}
		}
		for (const i of items) {
			const a = announcement(i);
			if (a) {
				this.announce.push(a);
			}
		}
	}

	private onThreadReset(folder: string): void {
		if (this.folder === undefined || this.folder === folder) {
			this.folder = folder;
			this.chat = new Chat();
			void this.refreshHeader();
		}
	}

	/** schedule renders soon, at most ten times a second. */
	private schedule(): void {
		if (!this.timer) {
			this.timer = setTimeout(() => {
				this.timer = undefined;
				this.render();
			}, 100);
		}
	}

	private render(): void {
		if (!this.view) {
			return;
		}
		const { order, changed } = renderUpdate(this.chat.items, this.shown);
		const msg = {
			type: 'update',
			order,
			changed,
			header: this.header,
			running: this.chat.running,
			follow: this.follow,
			announce: this.announce.join('\n'),
		};
		this.follow = false;
		this.announce = [];
		void this.view.webview.postMessage(msg);
		if (this.focusQuestion) {
			void this.view.webview.postMessage({ type: 'focusQuestion', id: this.focusQuestion });
			this.focusQuestion = undefined;
		}
	}

	private async onMessage(m: PageMessage): Promise<void> {
		switch (m.type) {
			case 'ready':
				// A new page: it shows nothing yet.
				this.shown.clear();
				if (!this.quietOpen) {
					this.focusInput();
				}
				this.quietOpen = false;
				await this.restore();
				return;
			case 'send':
				if (m.text) {
					await this.send(m.text);
				}
				return;
			case 'retry': {
				const item = m.key !== undefined ? this.chat.item(m.key) : undefined;
				if (item?.kind === 'error' && item.retry) {
					await this.send(item.retry);
				}
				return;
			}
			case 'switchModel':
				await this.pickModel();
				return;
			case 'approve':
				if (m.id && m.decision) {
					const args: ApproveArgs = { approvalId: m.id, decision: m.decision as Decision };
					await this.h.client.execute(ServerCommand.approve, args);
				}
				return;
			case 'answer':
				await this.answer(m);
				return;
			case 'copy':
				if (m.text !== undefined && m.text.length <= maxCopy) {
					await vscode.env.clipboard.writeText(m.text);
					void this.view?.webview.postMessage({ type: 'copied', id: m.id });
				}
				return;
			case 'transcript': {
				const item = m.key !== undefined ? this.chat.item(m.key) : undefined;
				if (item?.kind === 'end' && item.transcript) {
					await vscode.window.showTextDocument(vscode.Uri.file(item.transcript), { preview: false });
				}
				return;
			}
		}
	}

	/**
	 * answer sends the page's reply to a question waiting (hermes.approve): checked against its
	 * questions first; what is wrong, or a failure to send, goes back to the page by question id. The
	 * answers are not kept: the conversation shows the outcome once the server resolves it.
	 */
	private async answer(m: PageMessage): Promise<void> {
		const q = m.id ? this.chat.question(m.id) : undefined;
		if (!q || !m.decision) {
			return;
		}
		const r = approveArgs(q.id, q.asked, { decision: m.decision, answers: m.answers });
		let errors = 'errors' in r ? r.errors : undefined;
		if ('args' in r && !(await this.h.client.execute<ApproveResult>(ServerCommand.approve, r.args))) {
			errors = { '': 'Not sent: see the error message, then try again.' };
		}
		if (errors) {
			void this.view?.webview.postMessage({ type: 'questionErrors', id: q.id, errors });
		}
	}

	/** send asks the folder's thread (or steers its running turn), following the conversation to its end. */
	private async send(text: string): Promise<void> {
		this.follow = true;
		const args: Partial<AskArgs> = { prompt: text, uri: this.folderUri() };
		await this.h.client.execute<AskResult>(ServerCommand.ask, args);
	}

	/** folderUri is the conversation's folder: the latest turn's, else the active file's, else the first. */
	private folderUri(): string | undefined {
		if (this.folder) {
			return vscode.Uri.file(this.folder).toString();
		}
		const doc = vscode.window.activeTextEditor?.document.uri;
		const f = (doc && vscode.workspace.getWorkspaceFolder(doc)) ?? vscode.workspace.workspaceFolders?.[0];
		return f?.uri.toString();
	}

	/**
	 * restore shows the folder's current thread from its history as the server keeps it
	 * (hermes.threadHistory: codex's items of its turns), and the header. A conversation the view has
	 * followed since it started is kept: the history fills an empty one only, and a turn event that
	 * comes while the history is asked for wins over it.
	 */
	private async restore(): Promise<void> {
		const st = await this.refreshHeader();
		const uri = this.folderUri();
		const f = st?.folders.find((x) => uri && vscode.Uri.file(x.folder).toString() === uri) ?? st?.folders[0];
		if (f?.threadId && this.chat.items.length === 0) {
			const args: ThreadHistoryArgs = { uri: vscode.Uri.file(f.folder).toString(), threadId: f.threadId };
			const chat = this.chat;
			const h = await this.h.client.request<ThreadHistory>(ServerCommand.threadHistory, args);
			if (h && this.chat === chat && chat.items.length === 0) {
				chat.loadHistory(h);
				this.folder = h.folder;
			}
		}
		// Questions waiting that no event showed here (a server that outlives the editor): asked too.
		for (const a of f?.pendingApprovals ?? []) {
			if (asksQuestions(a) && f && this.chat.addApproval({ ...a, folder: f.folder, threadId: f.threadId, turnId: '', itemId: '', asked: '' })) {
				this.focusQuestion = a.approvalId;
			}
		}
		this.follow = true;
		this.render();
	}

	/** threadTitle is what the header calls a thread: its title (first prompt), never its id. */
	private async threadTitle(threadId: string, folderUri: string | undefined): Promise<string> {
		const first = this.chat.threadId === threadId ? this.chat.items.find((i) => i.kind === 'you') : undefined;
		let title = this.titles.get(threadId) ?? (first?.kind === 'you' ? first.text : '');
		if (!title) {
			const threads = await this.h.client.request<ThreadInfo[]>(ServerCommand.threads, { uri: folderUri });
			for (const t of threads ?? []) {
				if (t.title) {
					this.titles.set(t.threadId, t.title);
				}
			}
			title = this.titles.get(threadId) ?? '';
		}
		return threadName(title);
	}

	/** refreshHeader shows the thread, the model, the tokens, the context and the rate limits. */
	private async refreshHeader(): Promise<StatusResult | undefined> {
		const st = await this.h.client.execute<StatusResult>(ServerCommand.status);
		if (st) {
			this.h.ui.tracker.setAccount(st); // the status bar's account and agent, for free
			this.h.ui.tracker.setAgent(st);
			this.h.ui.updateBar();
		}
		const uri = this.folderUri();
		const f = st?.folders.find((x) => uri && vscode.Uri.file(x.folder).toString() === uri) ?? st?.folders[0];
		const parts: string[] = [];
		if (f) {
			parts.push(f.threadId ? await this.threadTitle(f.threadId, uri) : 'new thread');
			parts.push(f.model ? `${f.model}${f.effort ? ` (${f.effort})` : ''}` : 'default model');
			parts.push(`${formatTokens(f.usage.totalTokens)} tokens`);
			if (f.contextPercent) {
				parts.push(`${f.contextPercent}% context`);
			}
		}
		const rl = st?.rateLimits;
		if (rl?.primary) {
			parts.push(`limit ${rl.primary.usedPercent}%${rl.secondary ? ` / ${rl.secondary.usedPercent}%` : ''}`);
		}
		this.header = parts.join(' · ') || 'Hermes';
		this.render();
		return st;
	}

	/** pickThread offers the folder's threads by title and resumes the one picked, showing its history. */
	async pickThread(): Promise<void> {
		const threads = conversations((await this.h.client.execute<ThreadInfo[]>(ServerCommand.threads, { uri: this.folderUri() })) ?? []);
		if (!threads.length) {
			void vscode.window.showInformationMessage('Hermes: no thread in this folder yet.');
			return;
		}
		for (const t of threads) {
			if (t.title) {
				this.titles.set(t.threadId, t.title);
			}
		}
		const pick = await vscode.window.showQuickPick(
			threads.map((t) => ({
				label: `${t.current ? '$(check) ' : ''}${threadName(t.title)}`,
				description: `${new Date(t.updatedAt).toLocaleString()} · ${t.turns} turn(s)`,
				thread: t,
			})),
			{ title: 'Hermes: resume a thread', placeHolder: 'Pick a past thread: the next prompt continues it' },
		);
		if (!pick || pick.thread.current) {
			return;
		}
		if (await this.h.client.execute(ServerCommand.resumeThread, { uri: this.folderUri(), threadId: pick.thread.threadId })) {
			this.chat = new Chat();
			await this.restore();
		}
	}

	/** pickModel offers the models, then the reasoning efforts of the one picked. */
	async pickModel(): Promise<void> {
		const models = await this.h.client.execute<ModelInfo[]>(ServerCommand.models, { uri: this.folderUri() });
		if (!models?.length) {
			return;
		}
		const m = await vscode.window.showQuickPick(
			models.map((x) => ({ label: `${x.current ? '$(check) ' : ''}${x.displayName}`, description: x.id, model: x })),
			{ title: 'Hermes: model' },
		);
		if (!m) {
			return;
		}
		const e = await vscode.window.showQuickPick([`default (${m.model.defaultEffort})`, ...m.model.efforts], {
			title: `Hermes: reasoning effort of ${m.model.id}`,
		});
		if (e === undefined) {
			return;
		}
		const effort = e.startsWith('default') ? '' : e;
		await this.h.client.execute(ServerCommand.setModel, { uri: this.folderUri(), model: m.model.id, effort });
		await this.refreshHeader();
	}
}
