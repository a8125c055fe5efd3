// The VS Code extension: starts hermes-lsp with vscode-languageclient (client.ts), adds the Hermes
// commands (actions.ts), a status bar item and the Hermes view (ui.ts), and approvals (prompts.ts):
// a modal dialog for a command, a notification and a status bar item for a patch, whose changes open
// in one multi-file diff editor. The logic without vscode lives in the other modules.

import * as vscode from 'vscode';

import { ask, dismissFindings, newThread, review, showStatus, showTranscript, stop, toggleYolo, undoTurn } from './actions';
import { ensureClient, onConfigurationChanged, restart, stopClient } from './client';
import { Command } from './commands';
import { registerProposed } from './prompts';
import { ChatView, ChatViewId } from './chat';
import { createUi } from './ui';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
	createUi(context);
	registerProposed(context);
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
		vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
		{ dispose: () => void stopClient() },
	);
	await ensureClient();
}

export async function deactivate(): Promise<void> {
	await stopClient();
}
