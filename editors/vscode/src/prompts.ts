// Approval prompts: the server's window/showMessageRequest. A command's approval, or one for wider
// access (a permissions approval, its access in words), is a modal dialog (Deny has the focus;
// Escape is Stop turn, its close button). A patch's is not modal, so that the person can read its
// diff while deciding: a notification plus a status bar item (which re-asks in a
// quick pick), whichever answers first, with the patch in one multi-file diff editor (its proposed
// contents served under the hermes-proposed scheme) that closes once the approval is decided.

import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { type CancellationToken, type MessageActionItem, type ShowMessageRequestParams } from 'vscode-languageclient/node';

import {
	approvalDialog,
	approvalNotice,
	chosenAction,
	isApproval,
	isPatchApproval,
	isReviewTab,
	noticeItems,
	promptedApproval,
	reviewItems,
	reviewTitle,
	withAccess,
	Actions,
	type Dialog,
	type DialogItem,
	type ReviewSide,
} from './approvals';
import { Command } from './commands';
import type { Hermes } from './context';
import { type Approval } from './protocol';
import { errorText } from './ui';

const PROPOSED_SCHEME = 'hermes-proposed';
/** The most files of a patch the review shows. */
const MAX_REVIEW_FILES = 20;
/** How long a prompt waits for its approvalWaiting event when the prompt came first. */
const EVENT_WAIT_MS = 2000;

/**
 * Prompts answers the server's prompts (showMessageRequest) and keeps what a patch's approval shows
 * while it waits: its diff editor, the proposed contents that editor reads, and its status bar item.
 */
export class Prompts {
	/** hermes-proposed URI -> content. */
	private readonly proposed = new Map<string, string>();
	private readonly proposedChanged = new vscode.EventEmitter<vscode.Uri>();
	/** The multi-file diff editors open, by approval id: their title and the proposed URIs they show. */
	private readonly reviews = new Map<string, { title: string; uris: string[] }>();
	/** The quick pick each pending patch approval's status bar item shows, by approval id. */
	private readonly answerers = new Map<string, () => void>();
	/** The approvals an open prompt is about (see promptedApproval). */
	private readonly claimed = new Set<string>();

	/**
	 * The constructor registers what serves the proposed contents the diff editor shows, and closes a
	 * patch's diff editor when its approval is decided elsewhere (a code action, hermes.approve, the
	 * timeout).
	 */
	constructor(
		context: vscode.ExtensionContext,
		private readonly h: Pick<Hermes, 'ui'>,
	) {
		context.subscriptions.push(
			this.proposedChanged,
			vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, {
				onDidChange: this.proposedChanged.event,
				provideTextDocumentContent: (uri) => this.proposed.get(uri.toString()) ?? '',
			}),
			h.ui.approvalResolved.event((id) => {
				this.claimed.delete(id);
				void this.closeReview(id);
			}),
		);
	}

	/**
	 * answerOpenPrompt shows the quick pick of a patch prompt that is open (the status bar item's
	 * command), and reports whether there was one; without an id, the first open one.
	 */
	answerOpenPrompt(id?: string): boolean {
		const answer = id ? this.answerers.get(id) : this.answerers.values().next().value;
		answer?.();
		return answer !== undefined;
	}

	/**
	 * showMessageRequest answers the server's prompts. A command's approval is a modal dialog; a
	 * patch's opens its diff editor, then asks without a modal (see askPatch), and closes the diff
	 * editor once answered (not for Show diff: the server asks again). Other prompts keep VS Code's
	 * usual message. A dismissed prompt answers null: the server keeps the approval pending (code
	 * actions, hermes.approve) until its timeout.
	 */
	async showMessageRequest(params: ShowMessageRequestParams, token?: CancellationToken): Promise<MessageActionItem | null> {
		if (!isApproval(params.actions)) {
			const titles = (params.actions ?? []).map((a) => a.title);
			const show =
				params.type === 1
					? vscode.window.showErrorMessage
					: params.type === 2
						? vscode.window.showWarningMessage
						: vscode.window.showInformationMessage;
			const picked = await show(params.message, ...titles);
			return chosenAction(picked ? { title: picked } : undefined, params.actions);
		}
		const closed = this.h.ui.promptOpened();
		// Which approval this is comes from the turn events' structured fields, never the message's text.
		const approval = await this.approvalForPrompt(params.actions, token);
		const id = approval?.approvalId;
		if (id) {
			this.claimed.add(id);
		}
		try {
			const d = withAccess(approvalDialog(params.message, params.actions), approval);
			if (!id || !isPatchApproval(approval, params.actions)) {
				await this.h.ui.focusSettled(); // no view opening takes the focus from Deny
				const picked = await vscode.window.showWarningMessage(d.message, { modal: true, detail: d.detail }, ...d.items);
				return chosenAction(picked, params.actions);
			}
			if (!this.reviews.has(id)) {
				await this.openReview(id, approval).catch((err) => this.h.ui.view.appendLine(`(could not open the diff: ${errorText(err)})`));
			}
			const action = chosenAction(await this.askPatch(id, d, token), params.actions);
			if (action?.title === Actions.showDiff) {
				this.claimed.delete(id); // the server asks about the same approval again
			} else {
				await this.closeReview(id);
			}
			return action;
		} finally {
			closed();
		}
	}

	/**
	 * approvalForPrompt is the approval an approval prompt asks about (promptedApproval): from the
	 * approvals the turn events reported waiting, or, when the prompt overtook its approvalWaiting
	 * event, the next such event within a short wait (on the events, not by polling). Undefined when
	 * none comes: the prompt is then asked as a dialog without its diff.
	 */
	private approvalForPrompt(actions: readonly MessageActionItem[] | undefined, token: CancellationToken | undefined): Promise<Approval | undefined> {
		const now = promptedApproval(this.h.ui.tracker.waiting(), this.claimed, actions);
		if (now) {
			return Promise.resolve(now);
		}
		return new Promise((resolve) => {
			const disposables: vscode.Disposable[] = [];
			const done = (a: Approval | undefined) => {
				clearTimeout(timer);
				disposables.forEach((d) => {
					d.dispose();
				});
				resolve(a);
			};
			const timer = setTimeout(() => done(undefined), EVENT_WAIT_MS);
			disposables.push(
				this.h.ui.turnEvents.event((p) => {
					if (p.event.kind === 'approvalWaiting') {
						const a = promptedApproval(this.h.ui.tracker.waiting(), this.claimed, actions);
						if (a) {
							done(a);
						}
					}
				}),
			);
			if (token) {
				disposables.push(token.onCancellationRequested(() => done(undefined)));
			}
		});
	}

	/**
	 * askPatch asks about a patch without a modal: a warning notification with Deny (first), Allow once
	 * and Allow for session, and a status bar item that shows every action in a quick pick. The first
	 * answer wins: closing the notification (its X) is Deny; one sent to the notification center answers
	 * nothing, and the status bar item still can. The other asker is then withdrawn. It answers
	 * undefined, too, when the approval is decided elsewhere or the server cancels the request.
	 */
	private askPatch(id: string, d: Dialog, token: CancellationToken | undefined): Promise<DialogItem | undefined> {
		const notice = approvalNotice(d);
		return new Promise((resolve) => {
			let done = false;
			let noticeOpen = true;
			let pick: vscode.QuickPick<vscode.QuickPickItem> | undefined;
			const item = vscode.window.createStatusBarItem('hermes.approval', vscode.StatusBarAlignment.Left, 49);
			const disposables: vscode.Disposable[] = [item, { dispose: () => this.answerers.delete(id) }, { dispose: () => pick?.dispose() }];
			const finish = (picked: DialogItem | undefined) => {
				if (done) {
					return;
				}
				done = true;
				disposables.forEach((x) => {
					x.dispose();
				});
				if (noticeOpen) {
					// The API cannot close one notification: tuck the toasts away into the notification
					// center, where the stale one's buttons no longer answer anything.
					void vscode.commands.executeCommand('notifications.hideToasts');
				}
				resolve(picked);
			};
			item.name = 'Hermes approval';
			item.text = '$(shield) Hermes: approve patch?';
			item.tooltip = notice;
			item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
			item.command = { command: Command.answerApproval, title: 'Answer the approval', arguments: [id] };
			this.answerers.set(id, () => {
				pick?.dispose();
				const p = vscode.window.createQuickPick();
				pick = p;
				p.title = d.message;
				p.placeholder = notice;
				p.ignoreFocusOut = true;
				// Deny first: the picker highlights the first item, and an accidental Enter must never grant.
				p.items = d.items.map((i) => ({ label: i.title }));
				p.onDidAccept(() => {
					if (p.selectedItems[0]) {
						finish({ title: p.selectedItems[0].label });
					}
				});
				p.onDidHide(() => p.dispose());
				p.show();
			});
			item.show();
			if (token) {
				disposables.push(token.onCancellationRequested(() => finish(undefined)));
			}
			disposables.push(this.h.ui.approvalResolved.event((resolved) => resolved === id && finish(undefined)));
			void vscode.window.showWarningMessage(notice, ...noticeItems(d)).then((picked) => {
				noticeOpen = false;
				finish(picked);
			});
		});
	}

	/**
	 * openReview opens the patch in one multi-file diff editor (vscode.changes): each file now against
	 * the content the patch leaves.
	 */
	private async openReview(id: string, a: Approval | undefined): Promise<void> {
		const changes = (a?.changes ?? []).slice(0, MAX_REVIEW_FILES);
		if (changes.length === 0) {
			return;
		}
		const originals = await Promise.all(
			changes.map((c) => (c.kind?.type === 'add' ? Promise.resolve(undefined) : fs.readFile(c.path, 'utf8').catch(() => undefined))),
		);
		const uris: string[] = [];
		const side = (s: ReviewSide): vscode.Uri => {
			if ('file' in s) {
				return vscode.Uri.file(s.file);
			}
			const u = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: s.path, query: s.key });
			this.proposed.set(u.toString(), s.proposed);
			this.proposedChanged.fire(u);
			uris.push(u.toString());
			return u;
		};
		const resources = reviewItems(id, changes, originals).map((r) => [vscode.Uri.file(r.resource), side(r.left), side(r.right)]);
		const title = reviewTitle(id);
		this.reviews.set(id, { title, uris });
		await vscode.commands.executeCommand('vscode.changes', title, resources);
	}

	/** closeReview closes an approval's diff editor, if open, and forgets its proposed contents. */
	private async closeReview(id: string): Promise<void> {
		const r = this.reviews.get(id);
		if (!r) {
			return;
		}
		this.reviews.delete(id);
		r.uris.forEach((u) => this.proposed.delete(u));
		// The multi-diff editor's tab input (TabInputTextMultiDiff) is newer than the typings: the tab is
		// found by its label, and by its class where the running VS Code has it.
		const multiDiff = (vscode as unknown as { TabInputTextMultiDiff?: new (...args: never[]) => unknown }).TabInputTextMultiDiff;
		const tabs = vscode.window.tabGroups.all
			.flatMap((g) => g.tabs)
			.filter((t) => isReviewTab(t.label, r.title) && (!multiDiff || t.input instanceof multiDiff));
		if (tabs.length > 0) {
			await vscode.window.tabGroups.close(tabs).then(undefined, (err) => this.h.ui.view.appendLine(`(could not close the diff: ${errorText(err)})`));
		}
	}
}
