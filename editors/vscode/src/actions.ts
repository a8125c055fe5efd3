// The Hermes commands: ask (with a work-done progress of its own), stop, new thread, transcript,
// auto-approve, status (a quick pick of folders, pending approvals and actions), answering approvals.
// Each takes the extension's state (context.ts) as its first argument.

import * as vscode from 'vscode';
import { State, WorkDoneProgress, WorkDoneProgressCancelNotification, type LanguageClient } from 'vscode-languageclient/node';

import { agentLine } from './agent';
import { Actions } from './approvals';
import type { Hermes } from './context';
import { accountLine, baseName, folderStatusLine, loginMethod, loginOutcome, statusText } from './format';
import {
	ServerCommand,
	type Approval,
	type LoginArgs,
	type LoginResult,
	type ApproveArgs,
	type ApproveResult,
	type AskArgs,
	type AskResult,
	type CancelResult,
	type CompactResult,
	type Decision,
	type FolderArgs,
	type NewThreadResult,
	type ShowTranscriptResult,
	type StatusResult,
	type ToggleYoloResult,
	type UndoTurnResult,
	type DismissResult,
	type ReviewArgs,
	type ReviewResult,
	type ReviewTarget,
} from './protocol';
import { asksQuestions } from './questions';

/** activeFileUri is the active editor's file, when it is in a workspace folder. */
function activeFileUri(): vscode.Uri | undefined {
	const doc = vscode.window.activeTextEditor?.document;
	if (doc && doc.uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(doc.uri)) {
		return doc.uri;
	}
	return undefined;
}

/**
 * targetUri is what picks the workspace folder: the active file, else the only folder, else the
 * folder the person picks (undefined when they cancel).
 */
async function targetUri(): Promise<vscode.Uri | undefined> {
	const active = activeFileUri();
	if (active) {
		return active;
	}
	const folders = vscode.workspace.workspaceFolders ?? [];
	if (folders.length === 1) {
		return folders[0].uri;
	}
	if (folders.length > 1) {
		return (await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Hermes: which folder?' }))?.uri;
	}
	return undefined;
}

export async function ask(h: Hermes, aboutSelection: boolean): Promise<void> {
	const editor = vscode.window.activeTextEditor;
	if (aboutSelection && (!editor || editor.selection.isEmpty)) {
		void vscode.window.showWarningMessage('Hermes: select some code first (or use Hermes: Ask…).');
		return;
	}
	if (!vscode.workspace.workspaceFolders?.length) {
		void vscode.window.showWarningMessage('Hermes: open a folder first: Hermes runs codex in a workspace folder.');
		return;
	}
	const prompt = await vscode.window.showInputBox({
		title: aboutSelection ? 'Hermes: Ask About Selection' : 'Hermes: Ask',
		prompt: aboutSelection ? 'What should Hermes do with the selected code?' : 'What should Hermes do?',
		placeHolder: aboutSelection ? 'e.g. explain this, or add error handling' : 'e.g. add a test for the parser',
		ignoreFocusOut: true,
	});
	if (!prompt || !prompt.trim()) {
		return;
	}
	const c = await h.client.ensure();
	if (!c) {
		return;
	}
	const uri = aboutSelection ? editor?.document.uri : await targetUri();
	if (!uri) {
		return;
	}
	// Left out, range and diagnostics take the server's defaults.
	const args: Pick<AskArgs, 'prompt'> & Partial<AskArgs> = { prompt, uri: uri.toString() };
	if (aboutSelection && editor) {
		const sel = editor.selection;
		args.range = c.code2ProtocolConverter.asRange(sel);
		const diags = vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.range.intersection(sel) !== undefined);
		if (diags.length > 0) {
			args.diagnostics = await c.code2ProtocolConverter.asDiagnostics(diags);
		}
	}
	// The chat view shows the turn (it reveals itself when the turn starts): the Output panel stays
	// where it is.
	await runWithProgress(h, c, args, prompt);
}

/**
 * runWithProgress sends hermes.ask with a work-done token of its own and shows that progress as a
 * cancellable notification until it ends (the server then reports on this token rather than making one).
 */
async function runWithProgress(h: Hermes, c: LanguageClient, args: Partial<AskArgs>, prompt: string): Promise<void> {
	const token = `hermes-vscode/${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
	let result: AskResult | undefined;
	await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: 'Hermes', cancellable: true },
		(progress, cancel) =>
			new Promise<void>((resolve) => {
				const disposables: vscode.Disposable[] = [];
				const done = () => {
					disposables.forEach((d) => {
						d.dispose();
					});
					resolve();
				};
				progress.report({ message: firstWords(prompt) });
				disposables.push(
					c.onProgress(WorkDoneProgress.type, token, (v) => {
						if (v.kind === 'end') {
							done();
						} else if (v.message) {
							progress.report({ message: v.message });
						}
					}),
					cancel.onCancellationRequested(() => {
						void c.sendNotification(WorkDoneProgressCancelNotification.type, { token });
					}),
					// In case the end of the progress is lost (server restart), the turn's own end closes it.
					h.ui.turnEnded.event((p) => {
						if (result && p.turnId === result.turnId) {
							setTimeout(done, 500);
						}
					}),
					c.onDidChangeState((e) => {
						if (e.newState === State.Stopped) {
							done();
						}
					}),
				);
				h.client.execute<AskResult>(ServerCommand.ask, args, token).then((r) => {
					result = r;
					if (!r) {
						done();
					} else if (r.steered) {
						void vscode.window.showInformationMessage(`Hermes: added to the turn running in ${baseName(r.folder)}.`);
						done();
					}
				}, done);
			}),
	);
}

function firstWords(s: string, n = 8): string {
	const words = s.trim().split(/\s+/);
	return words.slice(0, n).join(' ') + (words.length > n ? '…' : '');
}

/** uriArgs: the folder targetUri picks; without one (cancelled), the server's default. */
async function uriArgs(): Promise<Partial<FolderArgs>> {
	const uri = await targetUri();
	return uri ? { uri: uri.toString() } : {};
}

/** stopArgs: the active file's folder; without one, every running turn (hermes.cancel without uri). */
function stopArgs(): Partial<FolderArgs> {
	const uri = activeFileUri();
	return uri ? { uri: uri.toString() } : {};
}

export async function stop(h: Hermes): Promise<void> {
	const r = await h.client.execute<CancelResult>(ServerCommand.cancel, stopArgs());
	if (r) {
		void vscode.window.showInformationMessage(r.cancelled > 0 ? `Hermes: stopped ${r.cancelled} turn(s).` : 'Hermes: no turn is running.');
	}
}

export async function newThread(h: Hermes): Promise<void> {
	const r = await h.client.execute<NewThreadResult>(ServerCommand.newThread, await uriArgs());
	if (r) {
		h.ui.threadReset.fire(r.folder);
		h.ui.view.appendLine(`━━ new thread in ${r.folder} ━━`);
		void vscode.window.showInformationMessage(`Hermes: the next prompt in ${baseName(r.folder)} starts a new thread.`);
	}
}

/**
 * compact is Hermes: Compact: the folder's thread's context is compacted (hermes.compact), as a turn
 * of its own with its progress. An agent that cannot compact has the command hidden (agent.ts); the
 * server refuses it with what to do instead.
 */
export async function compact(h: Hermes): Promise<void> {
	const r = await h.client.execute<CompactResult>(ServerCommand.compact, await uriArgs());
	if (r) {
		void vscode.window.showInformationMessage(`Hermes: compacting the thread's context in ${baseName(r.folder)}.`);
	}
}

export async function showTranscript(h: Hermes): Promise<void> {
	const r = await h.client.execute<ShowTranscriptResult>(ServerCommand.showTranscript, await uriArgs());
	if (r?.path) {
		try {
			await vscode.window.showTextDocument(vscode.Uri.file(r.path), { preview: false });
		} catch {
			void vscode.window.showInformationMessage(`Hermes: the transcript is ${r.path}`);
		}
	}
}

export async function toggleYolo(h: Hermes): Promise<void> {
	const r = await h.client.execute<ToggleYoloResult>(ServerCommand.toggleYolo, await uriArgs());
	if (r) {
		h.ui.tracker.setYolo(r.folder, r.yolo);
		h.ui.updateBar();
		void vscode.window.showInformationMessage(
			r.yolo
				? `Hermes: auto-approve is ON in ${baseName(r.folder)}: commands and patches run without asking.`
				: `Hermes: auto-approve is off in ${baseName(r.folder)}: you are asked before each command and patch.`,
		);
	}
}

export async function showStatus(h: Hermes): Promise<void> {
	const r = await h.client.execute<StatusResult>(ServerCommand.status);
	if (!r) {
		return;
	}
	for (const f of r.folders ?? []) {
		h.ui.tracker.setYolo(f.folder, !!f.yolo);
	}
	h.ui.tracker.setAccount(r);
	h.ui.tracker.setAgent(r);
	h.ui.updateBar();
	const { headline, detail } = statusText(r);
	const account = accountLine(r);
	const agent = agentLine(r.agent);
	h.ui.view.appendLine([headline, detail, agent, account].filter((l) => l).join('\n'));
	type Item = vscode.QuickPickItem & { run?: () => void | Promise<void> };
	const items: Item[] = [];
	if (agent) {
		items.push({
			label: `$(hubot) ${agent}`,
			description: 'hermes.agent.* in your user settings',
			run: () => void vscode.commands.executeCommand('workbench.action.openSettings', 'hermes.agent'),
		});
	}
	if (r.signedIn === false) {
		items.push({ label: '$(sign-in) Sign In', description: 'codex is not signed in: sign in with your ChatGPT account', run: () => signIn(h) });
	} else if (account) {
		items.push({ label: `$(account) ${account}`, run: () => signIn(h) });
	}
	for (const f of r.folders ?? []) {
		items.push({ label: `$(folder) ${baseName(f.folder)}`, description: folderStatusLine(f), detail: f.threadId ? `thread ${f.threadId}` : f.folder });
		for (const a of f.pendingApprovals ?? []) {
			items.push({
				label: `$(bell-dot) Answer approval ${a.approvalId}`,
				description: `${a.kind}: ${a.summary}`,
				run: () => answerApproval(h, a.approvalId, { ...a, folder: f.folder, threadId: f.threadId, turnId: '', itemId: '', asked: '' }),
			});
		}
	}
	items.push(
		{ label: '', kind: vscode.QuickPickItemKind.Separator },
		{ label: '$(comment-discussion) Ask…', run: () => ask(h, false) },
		{ label: '$(debug-stop) Stop Turn', run: () => stop(h) },
		{ label: '$(add) New Thread', run: () => newThread(h) },
		{ label: '$(file-text) Show Transcript', run: () => showTranscript(h) },
		{ label: '$(shield) Toggle Auto-approve', run: () => toggleYolo(h) },
		{ label: '$(discard) Undo Last Turn', run: () => undoTurn(h) },
		{ label: '$(output) Show the Hermes view', run: () => h.ui.view.show() },
	);
	const pick = await vscode.window.showQuickPick(items, { title: headline, placeHolder: 'Hermes status: pick an action', matchOnDescription: true });
	await pick?.run?.();
}

/**
 * answerPending is Hermes: Answer Approval… (and the patch approval's status bar item, with its id):
 * the open patch prompt's quick pick when there is one, else a pick of the approvals waiting, then
 * the decision (hermes.approve), or for questions the chat view that asks them.
 */
export async function answerPending(h: Hermes, id?: string): Promise<void> {
	if (h.prompts.answerOpenPrompt(typeof id === 'string' ? id : undefined)) {
		return;
	}
	const waiting = h.ui.tracker.waiting();
	if (waiting.length === 0) {
		void vscode.window.showInformationMessage('Hermes: no approval is waiting.');
		return;
	}
	let pickedId = waiting.length === 1 ? waiting[0].approvalId : undefined;
	if (!pickedId) {
		const pick = await vscode.window.showQuickPick(
			waiting.map((a) => ({ label: `$(bell-dot) ${a.summary}`, description: `${a.kind} · ${baseName(a.folder)}`, id: a.approvalId })),
			{ title: 'Hermes: which approval?' },
		);
		pickedId = pick?.id;
	}
	if (pickedId) {
		await answerApproval(h, pickedId);
	}
}

/**
 * answerApproval asks for the decision on approval id in a quick pick; questions (an elicitation or
 * userInput approval, as the events or else known describe it) are asked in the chat view instead.
 */
async function answerApproval(h: Hermes, id: string, known?: Approval): Promise<void> {
	const a = h.ui.tracker.approval(id) ?? known;
	if (a && asksQuestions(a)) {
		h.ui.askQuestion.fire(a);
		return;
	}
	const choices: (vscode.QuickPickItem & { decision: Decision })[] = [
		// Deny first: the picker highlights the first item, and an accidental Enter must never grant.
		{ label: Actions.deny, decision: 'deny' },
		{ label: Actions.allowOnce, decision: 'once' },
		{ label: Actions.allowSession, decision: 'session' },
		{ label: Actions.stop, decision: 'stop' },
	];
	const pick = await vscode.window.showQuickPick(choices, { title: `Hermes: approval ${id}` });
	if (pick) {
		const args: ApproveArgs = { approvalId: id, decision: pick.decision };
		await h.client.execute<ApproveResult>(ServerCommand.approve, args);
	}
}

/** undoTurn restores the files the folder's last turn changed with patches (hermes.undoTurn). */
export async function undoTurn(h: Hermes): Promise<void> {
	const r = await h.client.execute<UndoTurnResult>(ServerCommand.undoTurn, await uriArgs());
	if (r) {
		h.ui.turnUndone.fire(r.turnId);
		h.ui.view.appendLine(
			`━━ undid turn ${r.turnId}: ${r.restored.length} file(s) restored${r.skipped.length ? `, ${r.skipped.length} left as they are` : ''} ━━`,
		);
		for (const s of r.skipped) {
			h.ui.view.appendLine(`  ${s.path}: ${s.reason}`);
		}
	}
}

/**
 * review asks what to review (the uncommitted changes first, or against a branch, a commit, or by
 * instructions) and starts hermes.review; the findings land in the Problems panel when it ends.
 */
export async function review(h: Hermes): Promise<void> {
	type Choice = vscode.QuickPickItem & { target: () => Promise<ReviewTarget | undefined> };
	const ask = async (prompt: string, placeHolder: string): Promise<string | undefined> =>
		(await vscode.window.showInputBox({ title: 'Hermes: Review Changes', prompt, placeHolder, ignoreFocusOut: true }))?.trim() || undefined;
	const choices: Choice[] = [
		{ label: 'Uncommitted changes', description: 'staged, unstaged and untracked', target: () => Promise.resolve({ type: 'uncommittedChanges' }) },
		{
			label: 'Against a branch…',
			description: 'the changes since the branch',
			target: async () => {
				const branch = await ask('Review against which branch?', 'main');
				return branch ? { type: 'baseBranch', branch } : undefined;
			},
		},
		{
			label: 'A commit…',
			description: 'the changes one commit made',
			target: async () => {
				const sha = await ask('Review which commit?', 'a sha');
				return sha ? { type: 'commit', sha } : undefined;
			},
		},
		{
			label: 'Custom instructions…',
			description: 'what to look at, in your words',
			target: async () => {
				const instructions = await ask('What should the review look at?', 'e.g. the error handling of the parser');
				return instructions ? { type: 'custom', instructions } : undefined;
			},
		},
	];
	const pick = await vscode.window.showQuickPick(choices, { title: 'Hermes: Review Changes', placeHolder: 'What should codex review?' });
	const target = pick ? await pick.target() : undefined;
	if (!target) {
		return;
	}
	const uri = await targetUri();
	if (!uri) {
		return;
	}
	const args: ReviewArgs = { uri: uri.toString(), target };
	const r = await h.client.execute<ReviewResult>(ServerCommand.review, args);
	if (r) {
		h.ui.view.appendLine(`━━ reviewing ${pick?.label.replace('…', '').toLowerCase()} (${r.reviewId}); the findings will be in the Problems panel ━━`);
	}
}

/** dismissFindings removes the folder's review findings (hermes.dismissFindings). */
export async function dismissFindings(h: Hermes): Promise<void> {
	const r = await h.client.execute<DismissResult>(ServerCommand.dismissFindings, await uriArgs());
	if (r) {
		void vscode.window.showInformationMessage(`Hermes: ${r.dismissed} review finding(s) dismissed.`);
	}
}

/**
 * refreshAccount asks hermes.status who codex is signed in as, for the status bar and the
 * hermes.signedIn context key (the walkthrough's sign-in step), and what agent runs the turns (the
 * tooltip, and the commands hidden for what it lacks). Quiet: only when the server runs, and
 * a failure shows nothing. Called on events (the server started, the window regained focus, a turn
 * ended), never on a timer.
 */
export async function refreshAccount(h: Hermes): Promise<void> {
	const r = await h.client.request<StatusResult>(ServerCommand.status);
	if (r) {
		h.ui.tracker.setAccount(r);
		h.ui.tracker.setAgent(r);
		h.ui.updateBar();
	}
}

/**
 * signIn is Hermes: Sign In: codex's ChatGPT sign-in through hermes.login, with a device code in a
 * remote window (the browser is then on another machine than codex). The server reports the end of
 * the sign-in itself; the account shows once the window has the focus again.
 */
export async function signIn(h: Hermes): Promise<void> {
	const args: LoginArgs = { method: loginMethod(vscode.env.remoteName) };
	const o = loginOutcome(await h.client.execute<LoginResult>(ServerCommand.login, args));
	switch (o.kind) {
		case 'already':
			// The server says so itself (window/showMessage), for every client: no second message.
			await refreshAccount(h);
			return;
		case 'browser':
			if (o.open) {
				await vscode.env.openExternal(vscode.Uri.parse(o.url));
			}
			void vscode.window.showInformationMessage(o.message);
			return;
		case 'deviceCode': {
			if (o.open) {
				await vscode.env.openExternal(vscode.Uri.parse(o.url));
			}
			// Not modal: the person goes to the browser with the message still there.
			const pick = await vscode.window.showInformationMessage(o.message, 'Copy Code', 'Open Page');
			if (pick === 'Copy Code') {
				await vscode.env.clipboard.writeText(o.userCode);
			} else if (pick === 'Open Page') {
				await vscode.env.openExternal(vscode.Uri.parse(o.url));
			}
			return;
		}
		case 'none':
			return;
	}
}
