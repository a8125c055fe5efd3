// The VS Code extension: starts hermes-lsp with vscode-languageclient (client.ts), adds the Hermes
// commands (actions.ts), a status bar item and the Hermes view (ui.ts), and approvals (prompts.ts):
// a modal dialog for a command, a notification and a status bar item for a patch, whose changes open
// in one multi-file diff editor. The agent's changes under review show inline (changesView.ts). codexSetup.ts looks for codex and offers to install it. Their state
// is one object (context.ts) made here and handed to each. The logic without vscode lives in the
// other modules.

import * as vscode from 'vscode';

import {
	answerPending,
	ask,
	compact,
	dismissFindings,
	newThread,
	refreshAccount,
	review,
	showStatus,
	showTranscript,
	signIn,
	stop,
	toggleYolo,
	undoTurn,
} from './actions';
import { ChatView, ChatViewId } from './chat';
import { Command } from './commands';
import { createHermes, type Hermes } from './context';

/**
 * The running extension, for deactivate alone: VS Code calls deactivate without arguments, and only
 * it is awaited at shutdown (the server's orderly stop). Nothing else reads it.
 */
// eslint-disable-next-line no-restricted-syntax -- the one binding at module scope, see above
let active: Hermes | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
	const h = createHermes(context);
	active = h;
	const chat = ChatView.register(context, h);
	context.subscriptions.push(
		vscode.commands.registerCommand(Command.ask, () => ask(h, false)),
		vscode.commands.registerCommand(Command.askSelection, () => ask(h, true)),
		vscode.commands.registerCommand(Command.stop, () => stop(h)),
		vscode.commands.registerCommand(Command.newThread, () => newThread(h)),
		vscode.commands.registerCommand(Command.compact, () => compact(h)),
		vscode.commands.registerCommand(Command.showTranscript, () => showTranscript(h)),
		vscode.commands.registerCommand(Command.toggleYolo, () => toggleYolo(h)),
		vscode.commands.registerCommand(Command.status, () => showStatus(h)),
		vscode.commands.registerCommand(Command.restart, () => h.client.restart()),
		vscode.commands.registerCommand(Command.undoTurn, () => undoTurn(h)),
		vscode.commands.registerCommand(Command.review, () => review(h)),
		vscode.commands.registerCommand(Command.dismissFindings, () => dismissFindings(h)),
		vscode.commands.registerCommand(Command.openChat, async () => {
			await vscode.commands.executeCommand(`${ChatViewId}.focus`);
			chat.focusInput();
		}),
		vscode.commands.registerCommand(Command.answerApproval, (id?: string) => answerPending(h, id)),
		vscode.commands.registerCommand(Command.signIn, () => signIn(h)),
		vscode.commands.registerCommand(Command.nextChange, () => h.changes.go(true)),
		vscode.commands.registerCommand(Command.previousChange, () => h.changes.go(false)),
		vscode.commands.registerCommand(Command.keepChange, (id?: string) => h.changes.keep(id)),
		vscode.commands.registerCommand(Command.revertChange, (id?: string) => h.changes.revert(id)),
		vscode.commands.registerCommand(Command.showChanges, () => h.changes.showReview()),
		vscode.commands.registerCommand(Command.keepFile, (uri?: vscode.Uri) => h.changes.keepFile(uri)),
		vscode.commands.registerCommand(Command.revertFile, (uri?: vscode.Uri) => h.changes.revertFile(uri)),
		vscode.workspace.onDidChangeConfiguration((e) => h.client.onConfigurationChanged(e)),
		// The account (status bar, hermes.signedIn) follows events: the server started, a turn ended,
		// the window regained the focus (back from the browser's sign-in page) while not signed in.
		h.client.running.event(() => void refreshAccount(h)),
		h.ui.turnEnded.event(() => void refreshAccount(h)),
		vscode.window.onDidChangeWindowState((s) => {
			if (s.focused && !h.ui.tracker.contextKeys()['hermes.signedIn']) {
				void refreshAccount(h);
			}
		}),
		{ dispose: () => void h.client.stop() },
	);
	// Not awaited: activation never waits on the file system for codex.
	void h.codex.check();
	await h.client.ensure();
}

export async function deactivate(): Promise<void> {
	const h = active;
	active = undefined;
	await h?.client.stop();
}
