// The VS Code extension: starts hermes-lsp with vscode-languageclient (client.ts), adds the Hermes
// commands (actions.ts), a status bar item and the Hermes view (ui.ts), and approvals (prompts.ts):
// a modal dialog for a command, a notification and a status bar item for a patch, whose changes open
// in one multi-file diff editor. codexSetup.ts looks for codex and offers to install it. The logic
// without vscode lives in the other modules.

import * as vscode from 'vscode';

import {
	answerPending,
	ask,
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
import { clientRunning, ensureClient, initClient, onConfigurationChanged, restart, stopClient } from './client';
import { checkCodex, registerCodexSetup } from './codexSetup';
import { Command } from './commands';
import { registerProposed } from './prompts';
import { ChatView, ChatViewId } from './chat';
import { createUi, tracker, turnEnded } from './ui';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
	createUi(context);
	initClient(context);
	registerProposed(context);
	registerCodexSetup(context);
	ChatView.register(context);
	context.subscriptions.push(
		vscode.commands.registerCommand(Command.ask, () => ask(false)),
		vscode.commands.registerCommand(Command.askSelection, () => ask(true)),
		vscode.commands.registerCommand(Command.stop, stop),
		vscode.commands.registerCommand(Command.newThread, newThread),
		vscode.commands.registerCommand(Command.showTranscript, showTranscript),
		vscode.commands.registerCommand(Command.toggleYolo, toggleYolo),
		vscode.commands.registerCommand(Command.status, showStatus),
		vscode.commands.registerCommand(Command.restart, restart),
		vscode.commands.registerCommand(Command.undoTurn, undoTurn),
		vscode.commands.registerCommand(Command.review, review),
		vscode.commands.registerCommand(Command.dismissFindings, dismissFindings),
		vscode.commands.registerCommand(Command.openChat, () => vscode.commands.executeCommand(`${ChatViewId}.focus`)),
		vscode.commands.registerCommand(Command.answerApproval, answerPending),
		vscode.commands.registerCommand(Command.signIn, signIn),
		vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
		// The account (status bar, hermes.signedIn) follows events: the server started, a turn ended,
		// the window regained the focus (back from the browser's sign-in page) while not signed in.
		clientRunning.event(() => void refreshAccount()),
		turnEnded.event(() => void refreshAccount()),
		vscode.window.onDidChangeWindowState((s) => {
			if (s.focused && !tracker.contextKeys()['hermes.signedIn']) {
				void refreshAccount();
			}
		}),
		{ dispose: () => void stopClient() },
	);
	// Not awaited: activation never waits on the file system for codex.
	void checkCodex();
	await ensureClient();
}

export async function deactivate(): Promise<void> {
	await stopClient();
}
