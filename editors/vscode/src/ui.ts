// The extension's shared UI: the Hermes view (an output channel streaming hermes/turnEvent), the
// status bar item, and what the turn events tell them.

import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';

import { Command } from './commands';
import { statusBarText, statusBarTooltip } from './format';
import { type Approval, type TurnEventParams } from './protocol';
import { TurnRenderer, TurnTracker, type ContextKeys } from './turns';

/**
 * Ui is the Hermes view, the status bar item and the turn tracker behind them, with the events the
 * other parts follow. One is made at activation (context.ts); it is disposed with the extension.
 */
export class Ui {
	readonly view: vscode.OutputChannel;
	private readonly bar: vscode.StatusBarItem;
	readonly tracker = new TurnTracker();
	private readonly renderer = new TurnRenderer();
	/** turnEnded fires on each turnCompleted event. */
	readonly turnEnded = new vscode.EventEmitter<TurnEventParams>();
	/** approvalResolved fires with the approval's id on each approvalResolved event. */
	readonly approvalResolved = new vscode.EventEmitter<string>();
	/** turnEvents fires on every hermes/turnEvent (the chat view follows them). */
	readonly turnEvents = new vscode.EventEmitter<TurnEventParams>();
	/** threadReset fires with a folder whose next prompt starts a new thread (Hermes: New Thread). */
	readonly threadReset = new vscode.EventEmitter<string>();
	/** turnUndone fires with the id of a turn Hermes: Undo Last Turn undid. */
	readonly turnUndone = new vscode.EventEmitter<string>();
	/** askQuestion fires with a question approval to answer in the chat view (Hermes: Answer Approval…). */
	readonly askQuestion = new vscode.EventEmitter<Approval>();
	/** The context keys as last set (setContext is called only on a change). */
	private readonly contextKeys: Partial<ContextKeys> = {};
	/** Approval prompts open right now (a patch's notification, a command's dialog). */
	private openPrompts = 0;
	/** Settles once the focus stops moving (the chat view opened by a turn's start gives it back). */
	private focusMoving: Promise<unknown> = Promise.resolve();

	/** The view and the status bar item are made here, and disposed with the extension. */
	constructor(context: vscode.ExtensionContext) {
		this.view = vscode.window.createOutputChannel('Hermes');
		this.bar = vscode.window.createStatusBarItem('hermes.status', vscode.StatusBarAlignment.Left, 50);
		this.bar.name = 'Hermes';
		this.bar.command = Command.status;
		this.updateBar();
		this.bar.show();
		context.subscriptions.push(
			this.view,
			this.bar,
			this.turnEnded,
			this.approvalResolved,
			this.turnEvents,
			this.threadReset,
			this.turnUndone,
			this.askQuestion,
		);
	}

	onTurnEvent(p: TurnEventParams): void {
		this.tracker.apply(p);
		this.turnEvents.fire(p);
		const text = this.renderer.render(p);
		if (text) {
			this.view.append(text);
		}
		if (p.event.kind === 'turnCompleted') {
			this.turnEnded.fire(p);
		} else if (p.event.kind === 'approvalResolved' && p.event.approval) {
			this.approvalResolved.fire(p.event.approval.approvalId);
		}
		this.updateBar();
	}

	updateBar(): void {
		const m = this.tracker.bar();
		this.bar.text = statusBarText(m);
		this.bar.tooltip = statusBarTooltip(m);
		this.bar.backgroundColor = m.state === 'approval' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
		this.updateContext();
	}

	/**
	 * updateContext sets the context keys package.json's enablement and when clauses read, from what the
	 * events told the tracker (and the prompts open): called with every update of the status bar, never
	 * on a timer.
	 */
	private updateContext(): void {
		const keys = this.tracker.contextKeys();
		keys['hermes.approvalPending'] ||= this.openPrompts > 0;
		for (const [k, v] of Object.entries(keys) as [keyof ContextKeys, boolean][]) {
			if (this.contextKeys[k] !== v) {
				this.contextKeys[k] = v;
				void vscode.commands.executeCommand('setContext', k, v);
			}
		}
	}

	/** whileFocusMoves notes that moving lasts until the focus is where it ends up. */
	whileFocusMoves(moving: Promise<unknown>): void {
		this.focusMoving = Promise.all([this.focusMoving, moving.catch(() => undefined)]);
	}

	/**
	 * focusSettled resolves once the focus has stopped moving: a modal dialog shown before would lose
	 * its focused button (Deny) to the view being opened.
	 */
	async focusSettled(): Promise<void> {
		await this.focusMoving;
	}

	/** promptOpened counts an approval prompt until the returned function is called. */
	promptOpened(): () => void {
		this.openPrompts++;
		this.updateContext();
		let closed = false;
		return () => {
			if (!closed) {
				closed = true;
				this.openPrompts--;
				this.updateContext();
			}
		};
	}
}

/** errorText is what to show of an error: a server's answer as it is, else its message. */
export function errorText(err: unknown): string {
	if (err instanceof ResponseError) {
		return err.message;
	}
	return err instanceof Error ? err.message : String(err);
}
