// The extension's shared UI: the Hermes view (an output channel streaming hermes/turnEvent), the
// status bar item, and what the turn events tell them.

import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';

import { Command } from './commands';
import { statusBarText, statusBarTooltip } from './format';
import { type TurnEventParams } from './protocol';
import { TurnRenderer, TurnTracker, type ContextKeys } from './turns';

export let view: vscode.OutputChannel;
let bar: vscode.StatusBarItem;
export const tracker = new TurnTracker();
const renderer = new TurnRenderer();
/** turnEnded fires on each turnCompleted event. */
export const turnEnded = new vscode.EventEmitter<TurnEventParams>();
/** approvalResolved fires with the approval's id on each approvalResolved event. */
export const approvalResolved = new vscode.EventEmitter<string>();
/** turnEvents fires on every hermes/turnEvent (the chat view follows them). */
export const turnEvents = new vscode.EventEmitter<TurnEventParams>();

/** The context keys as last set (setContext is called only on a change). */
const contextKeys: Partial<ContextKeys> = {};
/** Approval prompts open right now (a patch's notification, a command's dialog). */
let openPrompts = 0;

/** createUi makes the view and the status bar item, disposed with the extension. */
export function createUi(context: vscode.ExtensionContext): void {
	view = vscode.window.createOutputChannel('Hermes');
	bar = vscode.window.createStatusBarItem('hermes.status', vscode.StatusBarAlignment.Left, 50);
	bar.name = 'Hermes';
	bar.command = Command.status;
	updateBar();
	bar.show();
	context.subscriptions.push(view, bar, turnEnded, approvalResolved, turnEvents);
}

export function onTurnEvent(p: TurnEventParams): void {
	tracker.apply(p);
	turnEvents.fire(p);
	const text = renderer.render(p);
	if (text) {
		view.append(text);
	}
	if (p.event.kind === 'turnCompleted') {
		turnEnded.fire(p);
	} else if (p.event.kind === 'approvalResolved' && p.event.approval) {
		approvalResolved.fire(p.event.approval.approvalId);
	}
	updateBar();
}

export function updateBar(): void {
	const m = tracker.bar();
	bar.text = statusBarText(m);
	bar.tooltip = statusBarTooltip(m);
	bar.backgroundColor = m.state === 'approval' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
	updateContext();
}

/**
 * updateContext sets the context keys package.json's enablement and when clauses read, from what the
 * events told the tracker (and the prompts open): called with every update of the status bar, never
 * on a timer.
 */
function updateContext(): void {
	const keys = tracker.contextKeys();
	keys['hermes.approvalPending'] ||= openPrompts > 0;
	for (const [k, v] of Object.entries(keys) as [keyof ContextKeys, boolean][]) {
		if (contextKeys[k] !== v) {
			contextKeys[k] = v;
			void vscode.commands.executeCommand('setContext', k, v);
		}
	}
}

/** promptOpened counts an approval prompt until the returned function is called. */
export function promptOpened(): () => void {
	openPrompts++;
	updateContext();
	let closed = false;
	return () => {
		if (!closed) {
			closed = true;
			openPrompts--;
			updateContext();
		}
	};
}

/** errorText is what to show of an error: a server's answer as it is, else its message. */
export function errorText(err: unknown): string {
	if (err instanceof ResponseError) {
		return err.message;
	}
	return err instanceof Error ? err.message : String(err);
}
