// The agent's changes under review, inline: the lines a change added highlighted, a CodeLens row
// above it (Keep | Revert | the text it replaced), a count in the status bar, the commands to go to
// the next or previous change and keep or revert the one at the cursor, and one multi-file diff of
// every file's changes whose title bar keeps or reverts the file in view. It follows the server's
// diagnostics of code `change` (no polling): each time they change, hermes.changes says where every
// change is now and what it replaced.

import * as vscode from 'vscode';

import { changeAt, changeLines, countText, isChangeDiagnostic, nextChange, oldText, removedLens, removedTooltip, sortChanges, withOldTexts } from './changes';
import { Command } from './commands';
import type { Hermes } from './context';
import { ServerCommand, type ChangeInfo, type ChangesResult, type KeepChangeResult, type RevertChangeResult } from './protocol';

/** The scheme of the review diff's left side: a file with its changes' old text put back. */
const BEFORE_SCHEME = 'hermes-before';
/** The review diff's title (its tab's label). */
export const ReviewTitle = 'Hermes: changes under review';

/**
 * Changes shows the changes under review (see the top of this file). One is made at activation
 * (context.ts); what it registers is disposed with the extension.
 */
export class Changes {
	/** Every change under review, as hermes.changes last said (URIs as VS Code writes them). */
	private list: ChangeInfo[] = [];
	/** The files that had change diagnostics at the last look. */
	private readonly withDiagnostics = new Set<string>();
	private readonly lensesChanged = new vscode.EventEmitter<void>();
	private readonly beforeChanged = new vscode.EventEmitter<vscode.Uri>();
	private readonly bar: vscode.StatusBarItem;
	private readonly addedLines: vscode.TextEditorDecorationType;
	private readonly deletedLines: vscode.TextEditorDecorationType;
	/** The refresh under way, and whether another was asked for meanwhile. */
	private refreshing: Promise<void> | undefined;
	private refreshAgain = false;
	private readonly contextKeys = new Map<string, boolean>();

	constructor(
		context: vscode.ExtensionContext,
		private readonly h: Pick<Hermes, 'ui' | 'client'>,
	) {
		this.bar = vscode.window.createStatusBarItem('hermes.changes', vscode.StatusBarAlignment.Left, 48);
		this.bar.name = 'Hermes changes';
		this.bar.command = Command.showChanges;
		this.addedLines = vscode.window.createTextEditorDecorationType({
			isWholeLine: true,
			backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
			overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
			overviewRulerLane: vscode.OverviewRulerLane.Left,
		});
		// A change that only deleted lines: a line where they were, above the line after them.
		this.deletedLines = vscode.window.createTextEditorDecorationType({
			isWholeLine: true,
			borderColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
			borderStyle: 'solid',
			borderWidth: '2px 0 0 0',
			overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
			overviewRulerLane: vscode.OverviewRulerLane.Left,
		});
		context.subscriptions.push(
			this.bar,
			this.addedLines,
			this.deletedLines,
			this.lensesChanged,
			this.beforeChanged,
			vscode.languages.registerCodeLensProvider(
				{ scheme: 'file' },
				{ onDidChangeCodeLenses: this.lensesChanged.event, provideCodeLenses: (doc) => this.lenses(doc) },
			),
			vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, {
				onDidChange: this.beforeChanged.event,
				provideTextDocumentContent: (uri) => this.before(uri),
			}),
			vscode.languages.onDidChangeDiagnostics((e) => this.onDiagnostics(e.uris)),
			vscode.window.onDidChangeVisibleTextEditors(() => this.decorate()),
			vscode.window.tabGroups.onDidChangeTabs(() => this.setContext('hermes.changesReviewActive', this.reviewActive())),
			vscode.window.tabGroups.onDidChangeTabGroups(() => this.setContext('hermes.changesReviewActive', this.reviewActive())),
			h.client.running.event(() => this.refresh()),
		);
	}

	/**
	 * onDiagnostics refreshes when the change diagnostics of a file came, changed or went: they are
	 * published when a change is placed, moves, is kept or reverted, or dies with its lines.
	 */
	private onDiagnostics(uris: readonly vscode.Uri[]): void {
		let changed = false;
		for (const uri of uris) {
			const key = uri.toString();
			const has = vscode.languages.getDiagnostics(uri).some((d) => isChangeDiagnostic(d));
			if (has || this.withDiagnostics.has(key)) {
				changed = true;
			}
			if (has) {
				this.withDiagnostics.add(key);
			} else {
				this.withDiagnostics.delete(key);
			}
		}
		if (changed) {
			this.refresh();
		}
	}

	/** refresh asks hermes.changes where every change is now; one at a time, the last request kept. */
	refresh(): void {
		if (this.refreshing) {
			this.refreshAgain = true;
			return;
		}
		this.refreshing = this.load()
			.catch((err) => this.h.ui.view.appendLine(`(could not list the changes under review: ${String(err)})`))
			.finally(() => {
				this.refreshing = undefined;
				if (this.refreshAgain) {
					this.refreshAgain = false;
					this.refresh();
				}
			});
	}

	/** load reads the changes, with the text each replaced, then shows them. */
	private async load(): Promise<void> {
		const res = await this.h.client.request<ChangesResult>(ServerCommand.changes, {});
		this.list = (res?.changes ?? []).map((c) => ({ ...c, uri: vscode.Uri.parse(c.uri).toString() }));
		this.show();
	}

	/** show brings the decorations, CodeLens, count, context keys and review diff in line with the list. */
	private show(): void {
		this.decorate();
		this.lensesChanged.fire();
		const n = this.list.length;
		this.bar.text = countText(n);
		this.bar.tooltip = `Hermes: ${n} change(s) under review. Click for their diff; Hermes: Next Change goes to each, Keep Change or Revert Change decides.`;
		if (n > 0) {
			this.bar.show();
		} else {
			this.bar.hide();
		}
		this.setContext('hermes.hasChanges', n > 0);
		for (const doc of vscode.workspace.textDocuments) {
			if (doc.uri.scheme === BEFORE_SCHEME) {
				this.beforeChanged.fire(doc.uri);
			}
		}
	}

	private setContext(key: string, value: boolean): void {
		if (this.contextKeys.get(key) !== value) {
			this.contextKeys.set(key, value);
			void vscode.commands.executeCommand('setContext', key, value);
		}
	}

	/** of is the changes of the file at uri, by line. */
	private of(uri: vscode.Uri): ChangeInfo[] {
		const key = uri.toString();
		return sortChanges(this.list.filter((c) => c.uri === key));
	}

	/** decorate marks the changes' lines in every visible editor of a file. */
	private decorate(): void {
		for (const ed of vscode.window.visibleTextEditors) {
			if (ed.document.uri.scheme !== 'file') {
				continue;
			}
			const added: vscode.Range[] = [];
			const deleted: vscode.Range[] = [];
			for (const c of this.of(ed.document.uri)) {
				const { first, last } = changeLines(c);
				(c.added > 0 ? added : deleted).push(new vscode.Range(first, 0, c.added > 0 ? last : first, 0));
			}
			ed.setDecorations(this.addedLines, added);
			ed.setDecorations(this.deletedLines, deleted);
		}
	}

	/** lenses are the CodeLens row above each change: Keep | Revert | what it replaced. */
	private lenses(doc: vscode.TextDocument): vscode.CodeLens[] {
		const out: vscode.CodeLens[] = [];
		for (const c of this.of(doc.uri)) {
			const line = Math.min(c.range.start.line, Math.max(0, doc.lineCount - 1));
			const at = new vscode.Range(line, 0, line, 0);
			out.push(
				new vscode.CodeLens(at, { title: 'Keep', command: Command.keepChange, arguments: [c.changeId], tooltip: 'Hermes: keep this change' }),
				new vscode.CodeLens(at, { title: 'Revert', command: Command.revertChange, arguments: [c.changeId], tooltip: 'Hermes: revert this change' }),
			);
			const old = oldText(c);
			const removed = removedLens(old, c.removed);
			if (removed) {
				out.push(new vscode.CodeLens(at, { title: removed, command: '', tooltip: removedTooltip(old) }));
			}
		}
		return out;
	}

	/** atCursor is the change at the active editor's cursor. */
	private atCursor(): ChangeInfo | undefined {
		const ed = vscode.window.activeTextEditor;
		return ed ? changeAt(this.list, ed.document.uri.toString(), ed.selection.active.line) : undefined;
	}

	/** keep keeps the change with id, else the one at the cursor (Hermes: Keep Change, the Keep lens). */
	async keep(id?: string): Promise<void> {
		const changeId = typeof id === 'string' ? id : this.atCursor()?.changeId;
		if (!changeId) {
			return this.noChangeHere();
		}
		await this.h.client.execute<KeepChangeResult>(ServerCommand.keepChange, { changeId });
	}

	/**
	 * revert reverts the change with id, else the one at the cursor (Hermes: Revert Change, the Revert
	 * lens). The server says what it did, and why it left a change.
	 */
	async revert(id?: string): Promise<void> {
		const changeId = typeof id === 'string' ? id : this.atCursor()?.changeId;
		if (!changeId) {
			return this.noChangeHere();
		}
		await this.h.client.execute<RevertChangeResult>(ServerCommand.revertChange, { changeId });
	}

	private noChangeHere(): void {
		void vscode.window.showInformationMessage(
			this.list.length > 0
				? 'Hermes: no change under review at the cursor. Hermes: Next Change goes to one.'
				: 'Hermes: no change of the agent is under review.',
		);
	}

	/** go moves the cursor to the next (or previous) change, in this file and then the others. */
	async go(forward: boolean): Promise<void> {
		const ed = vscode.window.activeTextEditor;
		const uri = ed?.document.uri.scheme === 'file' ? ed.document.uri.toString() : '';
		const line = ed && uri ? ed.selection.active.line : -1;
		const c = nextChange(this.list, uri, line, forward);
		if (!c) {
			return this.noChangeHere();
		}
		const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(c.uri));
		const target = await vscode.window.showTextDocument(doc, { preserveFocus: false });
		const pos = new vscode.Position(c.range.start.line, 0);
		target.selection = new vscode.Selection(pos, pos);
		target.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
	}

	/**
	 * fileOf is the file a review command acts on: the one given (a title bar button's), else the one
	 * of the editor in view (in the review diff, the file whose side has the focus), else the one the
	 * person picks among the files with changes.
	 */
	private async fileOf(given?: vscode.Uri): Promise<vscode.Uri | undefined> {
		const files = [...new Set(this.list.map((c) => c.uri))];
		const known = (u: vscode.Uri | undefined) => {
			const f = u?.scheme === BEFORE_SCHEME ? vscode.Uri.file(u.path) : u;
			return f && files.includes(f.toString()) ? f : undefined;
		};
		const found = known(given instanceof vscode.Uri ? given : undefined) ?? known(vscode.window.activeTextEditor?.document.uri);
		if (found || files.length === 0) {
			return found;
		}
		const picked = await vscode.window.showQuickPick(
			files.map((f) => {
				const list = this.list.filter((c) => c.uri === f);
				return { label: vscode.workspace.asRelativePath(vscode.Uri.parse(f)), description: `${list.length} change(s)`, uri: f };
			}),
			{ placeHolder: 'Hermes: which file?' },
		);
		return picked ? vscode.Uri.parse(picked.uri) : undefined;
	}

	/** keepFile keeps every change of a file (Hermes: Keep Changes in File). */
	async keepFile(given?: vscode.Uri): Promise<void> {
		const file = await this.fileOf(given);
		if (!file) {
			return this.noChangeHere();
		}
		for (const c of this.of(file)) {
			await this.h.client.execute<KeepChangeResult>(ServerCommand.keepChange, { changeId: c.changeId });
		}
	}

	/** revertFile reverts every change of a file, in one edit (Hermes: Revert Changes in File). */
	async revertFile(given?: vscode.Uri): Promise<void> {
		const file = await this.fileOf(given);
		if (!file) {
			return this.noChangeHere();
		}
		await this.h.client.execute<RevertChangeResult>(ServerCommand.revertChange, { uri: file.toString() });
	}

	/**
	 * showReview opens one multi-file diff of the changes (Hermes: Show Agent Changes, the status bar
	 * count): each file with its changes' old text put back, against the file as it is.
	 */
	async showReview(): Promise<void> {
		const files = [...new Set(sortChanges(this.list).map((c) => c.uri))];
		if (files.length === 0) {
			return this.noChangeHere();
		}
		const resources = files.map((f) => {
			const file = vscode.Uri.parse(f);
			return [file, file.with({ scheme: BEFORE_SCHEME }), file];
		});
		await vscode.commands.executeCommand('vscode.changes', ReviewTitle, resources);
	}

	/** before is the review diff's left side: the file as the editor has it, its changes' old text put back. */
	private async before(uri: vscode.Uri): Promise<string> {
		const file = vscode.Uri.file(uri.path);
		const doc = await vscode.workspace.openTextDocument(file).then(
			(d) => d,
			() => undefined,
		);
		return doc ? withOldTexts(doc.getText(), this.of(file), oldText) : '';
	}

	/** reviewActive says whether the active tab is the review diff (VS Code adds "(N files)" to its label). */
	private reviewActive(): boolean {
		return vscode.window.tabGroups.activeTabGroup.activeTab?.label.startsWith(ReviewTitle) ?? false;
	}
}
