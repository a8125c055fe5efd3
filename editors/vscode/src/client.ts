// The language client: how hermes-lsp is started or reached, the settings it gets (trusted ones only
// at start, see settings.ts), restarts, and running the server's commands.

import { chmodSync, existsSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
	ApplyWorkspaceEditRequest,
	CancellationToken,
	DidChangeConfigurationNotification,
	ExecuteCommandRequest,
	LanguageClient,
	ResponseError,
	ShowMessageRequest,
	State,
	type ApplyWorkspaceEditParams,
	type ApplyWorkspaceEditResult,
	type LanguageClientOptions,
	type ServerOptions,
	type StreamInfo,
} from 'vscode-languageclient/node';

import { listedInProblems } from './changes';
import { connectSocket, readToken } from './connect';
import type { Hermes } from './context';
import { editedDocuments } from './edits';
import { TurnEventMethod, type TurnEventParams } from './protocol';
import {
	bundledServerPath,
	changedKeys,
	HermesFlags,
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
	withHermesFlag,
	type Getter,
	type Launch,
	type PathContext,
} from './settings';
import { errorText } from './ui';

/**
 * bundledServer is the server binary the package carries (server/hermes-lsp[.exe]) under the
 * extension's folder, when it does. A zip may lose the execute bit on the way: it is set again
 * (where the folder is writable).
 */
function bundledServer(extensionDir: string): string | undefined {
	const path = bundledServerPath(extensionDir, process.platform);
	if (!existsSync(path)) {
		return undefined;
	}
	if (process.platform !== 'win32') {
		try {
			const mode = statSync(path).mode;
			if ((mode & 0o111) === 0) {
				chmodSync(path, mode | 0o755);
			}
		} catch {
			// read-only install: the spawn reports what is wrong
		}
	}
	return path;
}

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

/**
 * applyEdit applies the server's workspace/applyEdit and, for a refactoring (metadata
 * isRefactoring: hermes.undoTurn's restores), saves the documents it changed that had no unsaved
 * edits before, when files.refactoring.autoSave is on (its default). VS Code saves a refactoring
 * only when it spans several files, and the undo restores one file per edit. The save is done
 * before the answer, so the server finds the disk restored. A failed save is said in view.
 */
async function applyEdit(
	view: vscode.OutputChannel,
	params: ApplyWorkspaceEditParams,
	next: ApplyWorkspaceEditRequest.HandlerSignature,
): Promise<ApplyWorkspaceEditResult | ResponseError<void>> {
	const save = params.metadata?.isRefactoring === true && vscode.workspace.getConfiguration('files').get('refactoring.autoSave', true);
	const dirty = new Set(vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString()));
	const clean = save ? editedDocuments(params.edit).filter((u) => !dirty.has(vscode.Uri.parse(u).toString())) : [];
	const res = await next(params, CancellationToken.None);
	if (!(res instanceof ResponseError) && res.applied) {
		for (const u of clean) {
			const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === vscode.Uri.parse(u).toString());
			if (doc?.isDirty && !(await doc.save())) {
				view.appendLine(`(${doc.uri.fsPath} was restored in its editor but could not be saved)`);
			}
		}
	}
	return res;
}

function untrustedFor(scope?: vscode.Uri): Record<string, unknown> {
	return untrustedSettings(config(scope));
}

/**
 * Client is the language client: how hermes-lsp is started or reached, the settings it gets (trusted
 * ones only at start, see settings.ts), restarts, and running the server's commands.
 */
export class Client {
	private client: LanguageClient | undefined;
	/** The trusted settings the running client was started with. */
	private startedWith: Record<string, string> | undefined;
	private starting: Promise<LanguageClient | undefined> | undefined;
	/** A restart is being offered (one offer at a time). */
	private offering = false;
	/** Where the extension is installed: a platform-specific package bundles the server there. */
	private readonly extensionDir: string;
	/** running fires each time the server is up (first start and restarts). */
	readonly running = new vscode.EventEmitter<void>();

	constructor(
		context: vscode.ExtensionContext,
		private readonly h: Pick<Hermes, 'ui' | 'prompts' | 'codex'>,
	) {
		this.extensionDir = context.extensionUri.fsPath;
		context.subscriptions.push(this.running);
	}

	private pathContext(): PathContext {
		return { home: os.homedir(), bundledServer: bundledServer(this.extensionDir) };
	}

	/** createClient reads the settings (a bad one throws a SettingError) and makes the client. */
	private async createClient(launch: Launch): Promise<LanguageClient> {
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
		const { ui, prompts } = this.h;
		const snapshot = trustedSnapshot(trusted());
		const clientOptions: LanguageClientOptions = {
			documentSelector: [{ scheme: 'file' }],
			// The only way trusted settings reach the server.
			initializationOptions: initializationOptions(config(), trusted(), this.pathContext(), token),
			outputChannelName: 'Hermes Language Server',
			middleware: {
				// The changes under review in the Problems panel, which leaves Hint diagnostics out.
				handleDiagnostics: (uri, diagnostics, next) => next(uri, diagnostics.map(listedInProblems)),
				workspace: {
					handleApplyEdit: (params, next) => applyEdit(ui.view, params, next),
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
		this.startedWith = snapshot;
		const c = new LanguageClient('hermes-lsp', 'Hermes Language Server', serverOptions, clientOptions);
		// What the chat view does itself: see HermesFlags.
		c.registerFeature({
			fillClientCapabilities: (caps) => {
				caps.experimental = withHermesFlag(caps.experimental, ...HermesFlags);
			},
			initialize: () => undefined,
			getState: () => ({ kind: 'static' }),
			clear: () => undefined,
		});
		// Registered before start: the client installs these after its own defaults, on every (re)start.
		c.onRequest(ShowMessageRequest.type, (params, token) => prompts.showMessageRequest(params, token));
		c.onNotification(TurnEventMethod, (params: TurnEventParams) => ui.onTurnEvent(params));
		c.onDidChangeState((e) => {
			ui.tracker.setServerState(e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped');
			ui.updateBar();
			if (e.newState === State.Running) {
				this.running.fire();
			}
		});
		return c;
	}

	/** ensure starts the server when it is not running, and reports a failure once with a way out. */
	async ensure(): Promise<LanguageClient | undefined> {
		if (this.client && this.client.state === State.Running) {
			return this.client;
		}
		if (this.starting) {
			return this.starting;
		}
		this.starting = (async () => {
			let launch: Launch | undefined;
			// Not awaited: a missing codex is reported with a way to install it, and the server starts anyway
			// (it reports codex's absence itself at the first prompt).
			void this.h.codex.check();
			try {
				launch = serverLaunch(trusted(), this.pathContext());
				if (!this.client) {
					this.client = await this.createClient(launch);
				}
				await this.client.start();
				return this.client;
			} catch (err) {
				this.h.ui.tracker.setServerState('stopped');
				this.h.ui.updateBar();
				let message: string;
				let key = 'serverPath';
				if (err instanceof SettingError) {
					message = `Hermes: ${err.message}`;
					key = err.key;
				} else if (launch?.kind === 'socket') {
					const needsToken = 'port' in launch.address && !launch.tokenFile;
					message = `Hermes: could not connect to ${launch.label}: ${errorText(err)}. ${
						needsToken
							? 'A TCP server wants its token: set hermes.server.tokenFile.'
							: 'Start hermes-lsp --listen there, or clear hermes.server.socket.'
					}`;
					key = needsToken ? 'server.tokenFile' : 'server.socket';
				} else {
					message = `Hermes: could not start ${launch?.kind === 'spawn' ? launch.command : 'hermes-lsp'}: ${errorText(err)}. Set hermes.serverPath to the hermes-lsp binary.`;
				}
				const pick = await vscode.window.showErrorMessage(message, 'Open Settings');
				if (pick === 'Open Settings') {
					void vscode.commands.executeCommand('workbench.action.openSettings', 'hermes.' + key);
				}
				const failed = this.client;
				this.client = undefined;
				this.startedWith = undefined;
				void failed?.dispose().catch(() => undefined);
				return undefined;
			} finally {
				this.starting = undefined;
			}
		})();
		return this.starting;
	}

	async stop(): Promise<void> {
		const c = this.client;
		this.client = undefined;
		this.startedWith = undefined;
		if (c) {
			try {
				await c.dispose(3000);
			} catch {
				// already stopped
			}
		}
	}

	async restart(): Promise<void> {
		await this.stop();
		await this.ensure();
	}

	onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
		if (!e.affectsConfiguration('hermes')) {
			return;
		}
		const affects = (s: string) => e.affectsConfiguration(s);
		// Trusted settings reach the server only at start: a change of how to start or reach it restarts
		// it; for the others the user is offered a restart. Only a change of the value the
		// extension reads (user settings or default) counts: a workspace's value is ignored.
		if (trustedAffected(affects).length > 0) {
			if (!this.startedWith) {
				void this.restart(); // not running (it failed to start, e.g. on a relative path): try the new settings
				return;
			} else {
				const changed = changedKeys(this.startedWith, trustedSnapshot(trusted()));
				if (launchChanged((s) => changed.some((k) => 'hermes.' + k === s))) {
					void this.restart();
					return;
				}
				if (changed.length > 0) {
					void this.offerRestart(changed);
				}
			}
		}
		if (untrustedAffected(affects) && this.client?.state === State.Running) {
			// Only untrusted settings travel this way.
			this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { hermes: untrustedFor() } }).catch(() => undefined); // a restart may have begun
		}
	}

	private async offerRestart(keys: string[]): Promise<void> {
		if (this.offering) {
			return;
		}
		this.offering = true;
		try {
			const pick = await vscode.window.showInformationMessage(restartMessage(keys), 'Restart');
			if (pick === 'Restart') {
				await this.restart();
			}
		} finally {
			this.offering = false;
		}
	}

	/** execute runs one of the server's commands; an error is shown and comes back as undefined. */
	async execute<T>(command: string, args?: object, workDoneToken?: string): Promise<T | undefined> {
		const c = await this.ensure();
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

	/**
	 * request runs one of the server's commands quietly, for background refreshes: only when the server
	 * runs (it is not started for this), and a failure comes back as undefined without a message.
	 */
	async request<T>(command: string, args?: object): Promise<T | undefined> {
		const c = this.client;
		if (!c || c.state !== State.Running) {
			return undefined;
		}
		try {
			return (await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: args ? [args] : [] })) as T;
		} catch {
			return undefined;
		}
	}
}
