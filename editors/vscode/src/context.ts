// The extension's state, in one object: activate makes it (createHermes) and hands it to each part.
// No module holds state of its own (no mutable binding, map, client or status item at module scope:
// eslint.config.mjs enforces it), so what a part may touch is what it is given.

import type * as vscode from 'vscode';

import { Changes } from './changesView';
import { Client } from './client';
import { CodexSetup } from './codexSetup';
import { Prompts } from './prompts';
import { Ui } from './ui';

/** Hermes is the running extension: its parts, each holding its own state. */
export interface Hermes {
	/** The Hermes view, the status bar item, the turn tracker and the turn events. */
	readonly ui: Ui;
	/** The approval prompts, their diff editors and the proposed contents those show. */
	readonly prompts: Prompts;
	/** The lookup of codex and its installation. */
	readonly codex: CodexSetup;
	/** The language client: starting, restarting and reaching hermes-lsp, and running its commands. */
	readonly client: Client;
	/** The agent's changes under review: their decorations, CodeLens, count and commands. */
	readonly changes: Changes;
}

/** createHermes makes the extension's parts, each registering what it disposes in context.subscriptions. */
export function createHermes(context: vscode.ExtensionContext): Hermes {
	const ui = new Ui(context);
	const prompts = new Prompts(context, { ui });
	const codex = new CodexSetup(context);
	const client = new Client(context, { ui, prompts, codex });
	const changes = new Changes(context, { ui, client });
	return { ui, prompts, codex, client, changes };
}
