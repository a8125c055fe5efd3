// codex discovery in VS Code: at activation and before the server starts, look for codex (codex.ts)
// and, when it is missing, say so with a way out: "Install with npm" (the pinned version, in a
// terminal) or "Set Path". It never blocks activation, and it checks again on events only: the
// install terminal closing, hermes.codex.path changing, the window regaining focus.

import * as os from 'node:os';
import { isAbsolute } from 'node:path';
import * as vscode from 'vscode';

import { codexFromArgs, findCodex, findOnPath, installCommand, missingCodexMessage, runsCodex, type CodexLookup } from './codex';
import { Command } from './commands';
import { trustedGetter } from './settings';

/** The context key the walkthrough's first step completes on. */
const FOUND_KEY = 'hermes.codexFound';

/** trusted reads codex.path and the socket from the user's settings only, as the server launch does. */
function trusted(key: string): unknown {
	const c = vscode.workspace.getConfiguration('hermes');
	return trustedGetter((k) => c.inspect(k))(key);
}

/**
 * CodexSetup looks for codex and, when it is missing, offers to install it: Hermes: Install Codex, and
 * the events that check again.
 */
export class CodexSetup {
	private installTerminal: vscode.Terminal | undefined;
	private checking: Promise<CodexLookup | undefined> | undefined;
	/** The lookup last warned about (its setting and outcome): the same one is not shown twice a session. */
	private warned: string | undefined;
	private lastFound: boolean | undefined;

	/** The constructor registers Hermes: Install Codex and the events that check again. */
	constructor(context: vscode.ExtensionContext) {
		context.subscriptions.push(
			vscode.commands.registerCommand(Command.installCodex, () => this.installCodex()),
			vscode.window.onDidCloseTerminal((t) => {
				if (t === this.installTerminal) {
					this.installTerminal = undefined;
					void this.check({ afterInstall: true });
				}
			}),
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (['hermes.codex.path', 'hermes.serverArgs', 'hermes.server.socket', 'hermes.agent.kind'].some((k) => e.affectsConfiguration(k))) {
					void this.check();
				}
			}),
			// codex installed from a terminal outside VS Code: checked when the person comes back, and only
			// while it is missing.
			vscode.window.onDidChangeWindowState((s) => {
				if (s.focused && this.lastFound === false) {
					void this.check({ quiet: true });
				}
			}),
		);
	}

	/**
	 * check looks for codex and warns when it is missing (once per setting and outcome, unless
	 * asked for). Not with hermes.server.socket: that server runs its own codex, maybe elsewhere; nor
	 * when the server runs another agent (hermes.agent.kind acp, or --agent in hermes.serverArgs).
	 */
	check(opts: { quiet?: boolean; afterInstall?: boolean } = {}): Promise<CodexLookup | undefined> {
		if (this.checking) {
			return this.checking;
		}
		this.checking = (async () => {
			const socket = trusted('server.socket');
			if (typeof socket === 'string' && socket.trim() !== '') {
				return undefined;
			}
			if (!runsCodex(trusted('serverArgs'), process.env, trusted('agent.kind'))) {
				return undefined;
			}
			// The server's --codex flag (in hermes.serverArgs) wins over hermes.codex.path, as in the server;
			// a bare name there is the server's to resolve, and is not second-guessed.
			const flag = codexFromArgs(trusted('serverArgs'));
			if (flag !== undefined && !isAbsolute(flag) && !flag.startsWith('~/')) {
				return undefined;
			}
			const configured = flag ?? trusted('codex.path');
			const l = await findCodex(configured, process.env, process.platform, { home: os.homedir() });
			this.lastFound = l.found;
			void vscode.commands.executeCommand('setContext', FOUND_KEY, l.found);
			if (l.found) {
				this.warned = undefined;
				if (opts.afterInstall) {
					const pick = await vscode.window.showInformationMessage(`Hermes: codex is installed (${l.path}).`, 'Restart Server');
					if (pick === 'Restart Server') {
						await vscode.commands.executeCommand(Command.restart);
					}
				}
				return l;
			}
			const key = JSON.stringify([configured, l.from]);
			if (!opts.quiet && (opts.afterInstall || this.warned !== key)) {
				this.warned = key;
				void this.offerInstall(missingCodexMessage(l));
			}
			return l;
		})().finally(() => {
			this.checking = undefined;
		});
		return this.checking;
	}

	private async offerInstall(message: string): Promise<void> {
		const pick = await vscode.window.showWarningMessage(message, 'Install with npm', 'Set Path');
		if (pick === 'Install with npm') {
			await this.runInstall();
		} else if (pick === 'Set Path') {
			await vscode.commands.executeCommand('workbench.action.openSettings', 'hermes.codex.path');
		}
	}

	/** installCodex (Hermes: Install Codex, the walkthrough's button): installs unless codex is there already. */
	private async installCodex(): Promise<void> {
		const l = await this.check({ quiet: true });
		if (l?.found) {
			void vscode.window.showInformationMessage(`Hermes: codex is already installed (${l.path}).`);
			return;
		}
		await this.runInstall();
	}

	/** runInstall runs the pinned npm install in a terminal the person sees; its closing checks again. */
	private async runInstall(): Promise<void> {
		if (!(await findOnPath('npm', process.env, process.platform))) {
			const pick = await vscode.window.showErrorMessage(
				`Hermes: npm was not found on PATH. Install Node.js (which brings npm), then run: ${installCommand()}`,
				'Open nodejs.org',
			);
			if (pick) {
				await vscode.env.openExternal(vscode.Uri.parse('https://nodejs.org/'));
			}
			return;
		}
		this.installTerminal?.dispose();
		this.installTerminal = vscode.window.createTerminal({ name: 'Hermes: install codex' });
		this.installTerminal.show();
		this.installTerminal.sendText(installCommand());
		void vscode.window.showInformationMessage(
			'Hermes: installing codex in the terminal. Close the terminal when it is done: Hermes then looks for codex again.',
		);
	}
}
