// The "Hermes" chat view: a webview view beside the explorer that streams the folder's conversation
// (chatModel.ts, rendered by chatHtml.ts), with an input box (Enter sends; while a turn runs the
// server steers it with what you send), a thread picker, a model and effort picker, and the usage,
// context and rate limits. It reloads the current thread's transcript when it opens again.

import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import * as vscode from 'vscode';

import { Chat } from './chatModel';
import type { Hermes } from './context';
import { formatTokens } from './format';
import { page, renderItems } from './chatHtml';
import {
	ServerCommand,
	type ApproveArgs,
	type AskArgs,
	type AskResult,
	type Decision,
	type ModelInfo,
	type StatusResult,
	type ThreadInfo,
	type TurnEventParams,
} from './protocol';

/** PageMessage is what the page's script (media/chat.js) posts to the extension. */
interface PageMessage {
	type: string;
	text?: string;
	id?: string;
	decision?: string;
}

/** pageMessage reads a message from the page: its string fields, nothing else. */
function pageMessage(m: unknown): PageMessage {
	const o = typeof m === 'object' && m !== null ? (m as Record<string, unknown>) : {};
	const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
	return { type: str(o.type) ?? '', text: str(o.text), id: str(o.id), decision: str(o.decision) };
}

/** ChatViewId is the view's id (package.json contributes.views). */
export const ChatViewId = 'hermes-vscode.chat';

/** ChatView is the chat view's provider: one conversation, of the folder the latest turn ran in. */
export class ChatView implements vscode.WebviewViewProvider {
	private view: vscode.WebviewView | undefined;
	private chat = new Chat();
	private folder: string | undefined;
	private header = 'Hermes';
	private timer: NodeJS.Timeout | undefined;

	constructor(
		private readonly extensionUri: vscode.Uri,
		private readonly h: Pick<Hermes, 'ui' | 'client'>,
	) {}

	/** register makes the view and follows the turn events. */
	static register(context: vscode.ExtensionContext, h: Pick<Hermes, 'ui' | 'client'>): ChatView {
		const v = new ChatView(context.extensionUri, h);
		context.subscriptions.push(
			vscode.window.registerWebviewViewProvider(ChatViewId, v, { webviewOptions: { retainContextWhenHidden: true } }),
			h.ui.turnEvents.event((p) => v.onTurnEvent(p)),
			{ dispose: () => clearTimeout(v.timer) },
		);
		return v;
	}

	resolveWebviewView(view: vscode.WebviewView): void {
		this.view = view;
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

	/** onTurnEvent follows a turn: a turn started elsewhere (a code action) reveals the view. */
	onTurnEvent(p: TurnEventParams): void {
		if (this.folder !== p.folder) {
			this.folder = p.folder;
			this.chat = new Chat();
		}
		if (p.event.kind === 'turnStarted' && this.view && !this.view.visible) {
			this.view.show(true); // without the focus: an approval dialog may come next
		}
		if (this.chat.apply(p)) {
			this.schedule();
		}
		if (p.event.kind === 'turnCompleted') {
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
		void this.view?.webview.postMessage({ type: 'render', html: renderItems(this.chat.items), header: this.header, running: this.chat.running });
	}

	private async onMessage(m: PageMessage): Promise<void> {
		switch (m.type) {
			case 'ready':
				await this.restore();
				return;
			case 'send':
				if (m.text) {
					const args: Partial<AskArgs> = { prompt: m.text, uri: this.folderUri() };
					await this.h.client.execute<AskResult>(ServerCommand.ask, args);
				}
				return;
			case 'approve':
				if (m.id && m.decision) {
					const args: ApproveArgs = { approvalId: m.id, decision: m.decision as Decision };
					await this.h.client.execute(ServerCommand.approve, args);
				}
				return;
			case 'threads':
				await this.pickThread();
				return;
			case 'model':
				await this.pickModel();
				return;
			case 'new':
				await this.h.client.execute(ServerCommand.newThread, { uri: this.folderUri() });
				this.chat = new Chat();
				this.render();
				return;
		}
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

	/** restore shows the folder's current thread from its transcript, and the header. */
	private async restore(): Promise<void> {
		const st = await this.refreshHeader();
		const uri = this.folderUri();
		const f = st?.folders.find((x) => uri && vscode.Uri.file(x.folder).toString() === uri) ?? st?.folders[0];
		if (f?.transcriptPath && f.threadId && !this.chat.running) {
			try {
				this.chat.loadTranscript(await readFile(f.transcriptPath, 'utf8'), f.threadId);
				this.folder = f.folder;
			} catch {
				// No transcript yet: an empty conversation.
			}
		}
		this.render();
	}

	/** refreshHeader shows the thread, the model, the tokens, the context and the rate limits. */
	private async refreshHeader(): Promise<StatusResult | undefined> {
		const st = await this.h.client.execute<StatusResult>(ServerCommand.status);
		if (st) {
			this.h.ui.tracker.setAccount(st); // the status bar's account, for free
			this.h.ui.updateBar();
		}
		const uri = this.folderUri();
		const f = st?.folders.find((x) => uri && vscode.Uri.file(x.folder).toString() === uri) ?? st?.folders[0];
		const parts: string[] = [];
		if (f) {
			parts.push(f.threadId ? `thread ${f.threadId.slice(0, 8)}` : 'new thread');
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

	/** pickThread offers the folder's threads and resumes the one picked, showing its history. */
	private async pickThread(): Promise<void> {
		const threads = await this.h.client.execute<ThreadInfo[]>(ServerCommand.threads, { uri: this.folderUri() });
		if (!threads?.length) {
			void vscode.window.showInformationMessage('Hermes: no thread in this folder yet.');
			return;
		}
		const pick = await vscode.window.showQuickPick(
			threads.map((t) => ({
				label: `${t.current ? '$(check) ' : ''}${t.title || t.threadId}`,
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
	private async pickModel(): Promise<void> {
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
