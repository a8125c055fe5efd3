// Approval prompts: the server's window/showMessageRequest as a modal dialog (Escape is Deny), with
// a diff editor per change of a patch, its proposed content served under the hermes-proposed scheme.

import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { type MessageActionItem, type ShowMessageRequestParams } from 'vscode-languageclient/node';

import { approvalDialog, approvalId, chosenAction, isApproval, proposedChange } from './approvals';
import { baseName } from './format';
import { type Approval } from './protocol';
import { errorText, tracker, view } from './ui';

const PROPOSED_SCHEME = 'hermes-proposed';
const proposed = new Map<string, string>(); // hermes-proposed URI -> content
const proposedChanged = new vscode.EventEmitter<vscode.Uri>();
const diffsShown = new Set<string>(); // approval ids whose diff editors were opened

/** registerProposed serves the proposed contents the diff editors show. */
export function registerProposed(context: vscode.ExtensionContext): void {
	context.subscriptions.push(
		proposedChanged,
		vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, {
			onDidChange: proposedChanged.event,
			provideTextDocumentContent: (uri) => proposed.get(uri.toString()) ?? '',
		}),
	);
}

/**
 * showMessageRequest answers the server's prompts. An approval becomes a modal dialog (Escape is
 * Deny); a patch first opens a diff editor per change. Other prompts keep VS Code's usual message.
 */
export async function showMessageRequest(params: ShowMessageRequestParams): Promise<MessageActionItem | null> {
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
