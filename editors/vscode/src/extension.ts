// The VS Code extension: starts hermes-lsp with vscode-languageclient, adds the Hermes commands, a
// status bar item, the Hermes view (an output channel streaming hermes/turnEvent), and approvals as
// modal dialogs with a diff editor for patches. The logic without vscode lives in the other modules.

import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
	DidChangeConfigurationNotification,
	ExecuteCommandRequest,
	LanguageClient,
	ResponseError,
	ShowMessageRequest,
	State,
	WorkDoneProgress,
	WorkDoneProgressCancelNotification,
	type LanguageClientOptions,
	type ServerOptions,
	type MessageActionItem,
	type ShowMessageRequestParams,
	type StreamInfo,
} from 'vscode-languageclient/node';

import { Command } from './commands';
import { connectSocket, readToken } from './connect';
import { Actions, approvalDialog, approvalId, chosenAction, isApproval, proposedChange } from './approvals';
import { baseName, folderStatusLine, statusBarText, statusBarTooltip, statusText } from './format';
import {
	ServerCommand,
	TurnEventMethod,
	type Approval,
	type ApproveArgs,
	type ApproveResult,
	type AskResult,
	type CancelResult,
	type Decision,
	type NewThreadResult,
	type ShowTranscriptResult,
	type StatusResult,
	type ToggleYoloResult,
	type TurnEventParams,
} from './protocol';
import {
	changedKeys,
	configurationAnswer,
	initializationOptions,
	launchChanged,
	restartMessage,
	serverLaunch,
	SettingError,
	trustedAffected,
	trustedGetter,
	trustedSnapshot,
	untrustedAffected,
	untrustedSettings,
	type Getter,
	type Launch,
	type PathContext,
} from './settings';
import { TurnRenderer, TurnTracker } from './turns';

const PROPOSED_SCHEME = 'hermes-proposed';

let client: LanguageClient | undefined;
let startedWith: Record<string, string> | undefined; // the trusted settings the running client was started with
let starting: Promise<LanguageClient | undefined> | undefined;
let view: vscode.OutputChannel;
let bar: vscode.StatusBarItem;
const tracker = new TurnTracker();
const renderer = new TurnRenderer();
const proposed = new Map<string, string>(); // hermes-proposed URI -> content
const proposedChanged = new vscode.EventEmitter<vscode.Uri>();
const diffsShown = new Set<string>(); // approval ids whose diff editors were opened
const turnEnded = new vscode.EventEmitter<TurnEventParams>();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
	view = vscode.window.createOutputChannel('Hermes');
	bar = vscode.window.createStatusBarItem('hermes.status', vscode.StatusBarAlignment.Left, 50);
	bar.name = 'Hermes';
	bar.command = Command.status;
	updateBar();
	bar.show();
	context.subscriptions.push(view, bar, proposedChanged, turnEnded);

	context.subscriptions.push(
		vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, {
			onDidChange: proposedChanged.event,
			provideTextDocumentContent: (uri) => proposed.get(uri.toString()) ?? '',
		}),
		vscode.commands.registerCommand(Command.ask, () => ask(false)),
		vscode.commands.registerCommand(Command.askSelection, () => ask(true)),
		vscode.commands.registerCommand(Command.stop, stop),
		vscode.commands.registerCommand(Command.newThread, newThread),
		vscode.commands.registerCommand(Command.showTranscript, showTranscript),
		vscode.commands.registerCommand(Command.toggleYolo, toggleYolo),
		vscode.commands.registerCommand(Command.status, showStatus),
		vscode.commands.registerCommand(Command.restart, restart),
		vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
		{ dispose: () => void stopClient() },
	);
	await ensureClient();
}

export async function deactivate(): Promise<void> {
	await stopClient();
}

// --- the language client ------------------------------------------------------------------------

/** config reads `hermes.*` settings as VS Code resolves them (workspace values included): for untrusted settings only. */
function config(scope?: vscode.Uri): Getter {
	const c = vscode.workspace.getConfiguration('hermes', scope);
	return (key) => c.get(key);
}

/** trusted reads trusted settings: the user's value or the default, never a workspace's (see settings.ts). */
function trusted(): Getter {
	const c = vscode.workspace.getConfiguration('hermes');
	return trustedGetter((key) => c.inspect(key));
}

function pathContext(): PathContext {
	return { home: os.homedir() };
}

function untrustedFor(scope?: vscode.Uri): Record<string, unknown> {
	return untrustedSettings(config(scope));
}

/** createClient reads the settings (a bad one throws a SettingError) and makes the client. */
async function createClient(launch: Launch): Promise<LanguageClient> {
	let serverOptions: ServerOptions;
	let token: string | undefined;
	if (launch.kind === 'socket') {
		const address = launch.address;
		if (launch.tokenFile) {
			try {
				token = await readToken(launch.tokenFile);
			} catch (err) {
				throw new SettingError('server.tokenFile', `could not read hermes.server.tokenFile: ${errorText(err)}`);
			}
		}
		serverOptions = async (): Promise<StreamInfo> => {
			const sock = await connectSocket(address);
			return { reader: sock, writer: sock };
		};
	} else {
		serverOptions = { command: launch.command, args: launch.args, options: { env: process.env } };
	}
	const snapshot = trustedSnapshot(trusted());
	const clientOptions: LanguageClientOptions = {
		documentSelector: [{ scheme: 'file' }],
		// The only way trusted settings reach the server.
		initializationOptions: initializationOptions(config(), trusted(), pathContext(), token),
		outputChannelName: 'Hermes Language Server',
		middleware: {
			workspace: {
				// The server asks for section `hermes`: answer with the untrusted settings only (turnEvents on,
				// no trusted keys: the server takes those from initializationOptions alone).
				configuration: async (params, token, next) => {
					const defaults = await next(params, token);
					if (!Array.isArray(defaults)) {
						return defaults;
					}
					return params.items.map((item, i) =>
						configurationAnswer(item.section, defaults[i], untrustedFor(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)),
					);
				},
			},
		},
	};
	startedWith = snapshot;
	const c = new LanguageClient('hermes-lsp', 'Hermes Language Server', serverOptions, clientOptions);
	// Registered before start: the client installs these after its own defaults, on every (re)start.
	c.onRequest(ShowMessageRequest.type, (params) => showMessageRequest(params));
	c.onNotification(TurnEventMethod, (params: TurnEventParams) => onTurnEvent(params));
	c.onDidChangeState((e) => {
		tracker.setServerState(e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped');
		updateBar();
	});
	return c;
}

/** ensureClient starts the server when it is not running, and reports a failure once with a way out. */
async function ensureClient(): Promise<LanguageClient | undefined> {
	if (client && client.state === State.Running) {
		return client;
	}
	if (starting) {
		return starting;
	}
	starting = (async () => {
		let launch: Launch | undefined;
		try {
			launch = serverLaunch(trusted(), pathContext());
			if (!client) {
				client = await createClient(launch);
			}
			await client.start();
			return client;
		} catch (err) {
			tracker.setServerState('stopped');
			updateBar();
			let message: string;
			let key = 'serverPath';
			if (err instanceof SettingError) {
				message = `Hermes: ${err.message}`;
				key = err.key;
			} else if (launch?.kind === 'socket') {
				const needsToken = 'port' in launch.address && !launch.tokenFile;
				message = `Hermes: could not connect to ${launch.label}: ${errorText(err)}. ${
					needsToken ? 'A TCP server wants its token: set hermes.server.tokenFile.' : 'Start hermes-lsp --listen there, or clear hermes.server.socket.'
				}`;
				key = needsToken ? 'server.tokenFile' : 'server.socket';
			} else {
				message = `Hermes: could not start ${launch?.kind === 'spawn' ? launch.command : 'hermes-lsp'}: ${errorText(err)}. Set hermes.serverPath to the hermes-lsp binary.`;
			}
			const pick = await vscode.window.showErrorMessage(message, 'Open Settings');
			if (pick === 'Open Settings') {
				void vscode.commands.executeCommand('workbench.action.openSettings', 'hermes.' + key);
			}
			const failed = client;
			client = undefined;
			startedWith = undefined;
			void failed?.dispose().catch(() => undefined);
			return undefined;
		} finally {
			starting = undefined;
		}
	})();
	return starting;
}

async function stopClient(): Promise<void> {
	const c = client;
	client = undefined;
	startedWith = undefined;
	if (c) {
		try {
			await c.dispose(3000);
		} catch {
			// already stopped
		}
	}
}

async function restart(): Promise<void> {
	await stopClient();
	await ensureClient();
}

function onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
	if (!e.affectsConfiguration('hermes')) {
		return;
	}
	const affects = (s: string) => e.affectsConfiguration(s);
	// Trusted settings reach the server only at start: a change of how to start or reach it restarts
	// it, as before; for the others the user is offered a restart. Only a change of the value the
	// extension reads (user settings or default) counts: a workspace's value is ignored.
	if (trustedAffected(affects).length > 0) {
		if (!startedWith) {
			void restart(); // not running (it failed to start, e.g. on a relative path): try the new settings
			return;
		} else {
			const changed = changedKeys(startedWith, trustedSnapshot(trusted()));
			if (launchChanged((s) => changed.some((k) => 'hermes.' + k === s))) {
				void restart();
				return;
			}
			if (changed.length > 0) {
				void offerRestart(changed);
			}
		}
	}
	if (untrustedAffected(affects) && client?.state === State.Running) {
		// Only untrusted settings travel this way.
		client.sendNotification(DidChangeConfigurationNotification.type, { settings: { hermes: untrustedFor() } }).catch(() => undefined); // a restart may have begun
	}
}

let offering = false;

async function offerRestart(keys: string[]): Promise<void> {
	if (offering) {
		return;
	}
	offering = true;
	try {
		const pick = await vscode.window.showInformationMessage(restartMessage(keys), 'Restart');
		if (pick === 'Restart') {
			await restart();
		}
	} finally {
		offering = false;
	}
}

/** execute runs one of the server's commands; an error is shown and comes back as undefined. */
async function execute<T>(command: string, args?: object, workDoneToken?: string): Promise<T | undefined> {
	const c = await ensureClient();
	if (!c) {
		return undefined;
	}
	try {
		return (await c.sendRequest(ExecuteCommandRequest.type, {
			command,
			arguments: args ? [args] : [],
			...(workDoneToken ? { workDoneToken } : {}),
		})) as T;
	} catch (err) {
		void vscode.window.showErrorMessage(`Hermes: ${errorText(err)}`);
		return undefined;
	}
}

function errorText(err: unknown): string {
	if (err instanceof ResponseError) {
		return err.message;
	}
	return err instanceof Error ? err.message : String(err);
}

// --- turn events: the Hermes view and the status bar -------------------------------------------

function onTurnEvent(p: TurnEventParams): void {
	tracker.apply(p);
	const text = renderer.render(p);
	if (text) {
		view.append(text);
	}
	if (p.event.kind === 'turnCompleted') {
		turnEnded.fire(p);
	}
	updateBar();
}

function updateBar(): void {
	const m = tracker.bar();
	bar.text = statusBarText(m);
	bar.tooltip = statusBarTooltip(m);
	bar.backgroundColor = m.state === 'approval' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
}

// --- commands ------------------------------------------------------------------------------------

/**
 * targetUri is what picks the workspace folder: the active file, else the only folder, else the
 * folder the person picks (undefined when they cancel).
 */
async function targetUri(): Promise<vscode.Uri | undefined> {
	const doc = vscode.window.activeTextEditor?.document;
	if (doc && doc.uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(doc.uri)) {
		return doc.uri;
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

async function ask(aboutSelection: boolean): Promise<void> {
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
	const c = await ensureClient();
	if (!c) {
		return;
	}
	const uri = aboutSelection ? editor?.document.uri : await targetUri();
	if (!uri) {
		return;
	}
	const args: Record<string, unknown> = { prompt, uri: uri.toString() };
	if (aboutSelection && editor) {
		const sel = editor.selection;
		args.range = c.code2ProtocolConverter.asRange(sel);
		const diags = vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.range.intersection(sel) !== undefined);
		if (diags.length > 0) {
			args.diagnostics = await c.code2ProtocolConverter.asDiagnostics(diags);
		}
	}
	view.show(true);
	await runWithProgress(c, args, prompt);
}

/**
 * runWithProgress sends hermes.ask with a work-done token of its own and shows that progress as a
 * cancellable notification until it ends (the server then reports on this token rather than making one).
 */
async function runWithProgress(c: LanguageClient, args: Record<string, unknown>, prompt: string): Promise<void> {
	const token = `hermes-vscode/${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
	let result: AskResult | undefined;
	await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: 'Hermes', cancellable: true },
		(progress, cancel) =>
			new Promise<void>((resolve) => {
				const disposables: vscode.Disposable[] = [];
				const done = () => {
					disposables.forEach((d) => d.dispose());
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
					turnEnded.event((p) => {
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
				execute<AskResult>(ServerCommand.ask, args, token).then((r) => {
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

async function uriArgs(): Promise<{ uri?: string }> {
	const uri = await targetUri();
	return uri ? { uri: uri.toString() } : {};
}

/** stopArgs: the active file's folder; without one, every running turn (hermes.cancel without uri). */
async function stopArgs(): Promise<{ uri?: string }> {
	const doc = vscode.window.activeTextEditor?.document;
	if (doc && doc.uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(doc.uri)) {
		return { uri: doc.uri.toString() };
	}
	return {};
}

async function stop(): Promise<void> {
	const r = await execute<CancelResult>(ServerCommand.cancel, await stopArgs());
	if (r) {
		void vscode.window.showInformationMessage(r.cancelled > 0 ? `Hermes: stopped ${r.cancelled} turn(s).` : 'Hermes: no turn is running.');
	}
}

async function newThread(): Promise<void> {
	const r = await execute<NewThreadResult>(ServerCommand.newThread, await uriArgs());
	if (r) {
		view.appendLine(`━━ new thread in ${r.folder} ━━`);
		void vscode.window.showInformationMessage(`Hermes: the next prompt in ${baseName(r.folder)} starts a new thread.`);
	}
}

async function showTranscript(): Promise<void> {
	const r = await execute<ShowTranscriptResult>(ServerCommand.showTranscript, await uriArgs());
	if (r?.path) {
		try {
			await vscode.window.showTextDocument(vscode.Uri.file(r.path), { preview: false });
		} catch {
			void vscode.window.showInformationMessage(`Hermes: the transcript is ${r.path}`);
		}
	}
}

async function toggleYolo(): Promise<void> {
	const r = await execute<ToggleYoloResult>(ServerCommand.toggleYolo, await uriArgs());
	if (r) {
		tracker.setYolo(r.folder, r.yolo);
		updateBar();
		void vscode.window.showInformationMessage(
			r.yolo
				? `Hermes: auto-approve is ON in ${baseName(r.folder)}: commands and patches run without asking.`
				: `Hermes: auto-approve is off in ${baseName(r.folder)}: you are asked before each command and patch.`,
		);
	}
}

async function showStatus(): Promise<void> {
	const r = await execute<StatusResult>(ServerCommand.status);
	if (!r) {
		return;
	}
	for (const f of r.folders ?? []) {
		tracker.setYolo(f.folder, !!f.yolo);
	}
	updateBar();
	const { headline, detail } = statusText(r);
	view.appendLine(`${headline}\n${detail}`);
	type Item = vscode.QuickPickItem & { run?: () => Promise<void> };
	const items: Item[] = [];
	for (const f of r.folders ?? []) {
		items.push({ label: `$(folder) ${baseName(f.folder)}`, description: folderStatusLine(f), detail: f.threadId ? `thread ${f.threadId}` : f.folder });
		for (const a of f.pendingApprovals ?? []) {
			items.push({
				label: `$(bell-dot) Answer approval ${a.approvalId}`,
				description: `${a.kind}: ${a.summary}`,
				run: () => answerApproval(a.approvalId),
			});
		}
	}
	items.push(
		{ label: '', kind: vscode.QuickPickItemKind.Separator },
		{ label: '$(comment-discussion) Ask…', run: () => ask(false) },
		{ label: '$(debug-stop) Stop Turn', run: stop },
		{ label: '$(add) New Thread', run: newThread },
		{ label: '$(file-text) Show Transcript', run: showTranscript },
		{ label: '$(shield) Toggle Auto-approve', run: toggleYolo },
		{ label: '$(output) Show the Hermes view', run: async () => view.show() },
	);
	const pick = await vscode.window.showQuickPick(items, { title: headline, placeHolder: 'Hermes status: pick an action', matchOnDescription: true });
	await pick?.run?.();
}

async function answerApproval(id: string): Promise<void> {
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
		await execute<ApproveResult>(ServerCommand.approve, args);
	}
}

// --- approvals -------------------------------------------------------------------------------------

/**
 * showMessageRequest answers the server's prompts. An approval becomes a modal dialog (Escape is
 * Deny); a patch first opens a diff editor per change. Other prompts keep VS Code's usual message.
 */
async function showMessageRequest(params: ShowMessageRequestParams): Promise<MessageActionItem | null> {
	if (!isApproval(params.message, params.actions)) {
		const titles = (params.actions ?? []).map((a) => a.title);
		const show = params.type === 1 ? vscode.window.showErrorMessage : params.type === 2 ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
		const picked = await show(params.message, ...titles);
		return chosenAction(picked ? { title: picked } : undefined, params.actions);
	}
	const id = approvalId(params.message);
	if (id && params.message.includes('apply a patch') && !diffsShown.has(id)) {
		diffsShown.add(id);
		await showPatchDiffs(await approvalFromEvents(id)).catch((err) => view.appendLine(`(could not open the diff: ${errorText(err)})`));
	}
	const d = approvalDialog(params.message, params.actions);
	const picked = await vscode.window.showWarningMessage(d.message, { modal: true, detail: d.detail }, ...d.items);
	return chosenAction(picked, params.actions);
}

/** approvalFromEvents waits briefly for the approvalWaiting event that carries the patch's changes. */
async function approvalFromEvents(id: string): Promise<Approval | undefined> {
	for (let waited = 0; waited < 2000; waited += 100) {
		const a = tracker.approval(id);
		if (a?.changes) {
			return a;
		}
		await new Promise((r) => setTimeout(r, 100));
	}
	return tracker.approval(id);
}

/** showPatchDiffs opens a diff editor for each change: the file now against the content the patch leaves. */
async function showPatchDiffs(a: Approval | undefined): Promise<void> {
	const changes = a?.changes ?? [];
	for (const [i, change] of changes.slice(0, 8).entries()) {
		let original: string | undefined;
		if (change.kind?.type !== 'add') {
			try {
				original = await fs.readFile(change.path, 'utf8');
			} catch {
				original = undefined;
			}
		}
		const p = proposedChange(change, original);
		const name = baseName(p.targetPath);
		const right = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: p.targetPath, query: `${a!.approvalId}-${i}` });
		if (p.proposed === undefined) {
			// The diff does not apply to the file as it is now: show codex's diff itself.
			proposed.set(right.toString(), change.diff);
			proposedChanged.fire(right);
			const doc = await vscode.workspace.openTextDocument(right);
			await vscode.window.showTextDocument(await vscode.languages.setTextDocumentLanguage(doc, 'diff'), { preview: false });
			continue;
		}
		proposed.set(right.toString(), p.proposed);
		proposedChanged.fire(right);
		let left: vscode.Uri;
		if (p.originalPath && original !== undefined) {
			left = vscode.Uri.file(p.originalPath);
		} else {
			left = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: p.targetPath, query: `${a!.approvalId}-${i}-before` });
			proposed.set(left.toString(), original ?? '');
		}
		const title = `${name} (${p.kind}, proposed by Hermes · approval ${a!.approvalId})`;
		await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false, preserveFocus: false });
	}
}
