// Approval prompts (window/showMessageRequest) -> a modal dialog (commands) or a notification
// (patches), and patches -> the proposed file contents for a multi-file diff editor. No vscode import.

import type { MessageActionItem } from 'vscode-languageclient';

import { Actions, type FileChange } from './protocol';

export { Actions };

/** approvalId reads the approval's id from the prompt's message ("… (approval ID): …"), if it is one. */
export function approvalId(message: string): string | undefined {
	const m = /\(approval ([^\s()]+)\)/.exec(message);
	return m ? m[1] : undefined;
}

/** isApproval says whether a prompt is an approval: it names one and offers to allow it. */
export function isApproval(message: string, actions: readonly MessageActionItem[] | undefined): boolean {
	return approvalId(message) !== undefined && (actions ?? []).some((a) => a.title === Actions.allowOnce);
}

export interface DialogItem {
	title: string;
}

export interface Dialog {
	/** The dialog's headline: the prompt's first line. */
	message: string;
	/** The rest of the prompt: the command and its folder, or the changes; the reason. */
	detail: string;
	items: DialogItem[];
}

/**
 * approvalDialog lays an approval prompt out as a modal dialog with one button per action (a patch's
 * notification shows the same, on one line: approvalNotice).
 */
export function approvalDialog(message: string, actions: readonly MessageActionItem[] | undefined): Dialog {
	const lines = message.split('\n');
	const first = lines[0] ?? '';
	let rest = lines.slice(1).join('\n');
	// A patch prompt lists its changes on the first line after a colon: give them their own lines.
	let headline = first;
	const colon = first.indexOf('): ');
	if (colon >= 0) {
		headline = first.slice(0, colon + 1);
		const changes = first.slice(colon + 3).split(', ').join('\n');
		rest = rest ? `${changes}\n${rest}` : changes;
	} else if (first.endsWith(':')) {
		headline = first.slice(0, -1);
	}
	// Deny goes first, whatever the server's order: VS Code makes the first button of a modal dialog
	// the primary one, which Enter presses, and an accidental Enter must never grant (a notification
	// shows its first button as the primary one too). Escape (VS Code's own Cancel button) dismisses
	// the dialog, which the server also takes as Deny.
	const ordered = [...(actions ?? [])].sort((a, b) => Number(b.title === Actions.deny) - Number(a.title === Actions.deny));
	const items: DialogItem[] = ordered.map((a) => ({ title: a.title }));
	return { message: headline, detail: rest, items };
}

/** isPatchApproval says whether an approval prompt asks to apply a patch (else: to run a command). */
export function isPatchApproval(message: string): boolean {
	return message.includes('apply a patch');
}

/**
 * noticeItems are the buttons of a patch's notification: Deny, Allow once and Allow for session, in
 * the dialog's order (Deny first). A toast has no room for more; the status bar item's quick pick
 * offers every action.
 */
export function noticeItems(d: Dialog): DialogItem[] {
	const titles: string[] = [Actions.deny, Actions.allowOnce, Actions.allowSession];
	return d.items.filter((i) => titles.includes(i.title));
}

/**
 * approvalNotice is a dialog's text on one line, for a notification (which has no detail): the
 * headline, then the changes, the write grant, the reason and any warning.
 */
export function approvalNotice(d: Dialog): string {
	const rest = d.detail.split('\n').map((l) => l.trim()).filter(Boolean);
	return rest.length > 0 ? `${d.message}: ${rest.join(' · ')}` : d.message;
}

/**
 * chosenAction maps the dialog's answer back to the server's action item: the item whose title was
 * picked, or null (which the server takes as Deny) when the dialog was dismissed.
 */
export function chosenAction<T extends MessageActionItem>(picked: { title: string } | undefined, actions: readonly T[] | undefined): T | null {
	if (!picked) {
		return null;
	}
	return (actions ?? []).find((a) => a.title === picked.title) ?? null;
}

/** What a diff editor shows for one change of a patch. */
export interface ProposedChange {
	/** The file now (its path, to read from disk, or null when the patch adds it). */
	originalPath: string | null;
	/** The path the file has after the patch (the move target of a rename). */
	targetPath: string;
	/** The file's content after the patch, or undefined when the diff could not be applied (show the diff text). */
	proposed: string | undefined;
	kind: string;
}

/**
 * proposedChange works out the content a change leaves: an added file's content, nothing for a
 * deleted one, and for an update the current content with the unified diff applied. original is the
 * file's current content (undefined when it cannot be read).
 */
export function proposedChange(change: FileChange, original: string | undefined): ProposedChange {
	const kind = change.kind?.type ?? 'update';
	const target = change.kind?.move_path || change.path;
	switch (kind) {
		case 'add':
			return {
				originalPath: null,
				targetPath: target,
				proposed: isUnifiedDiff(change.diff) ? applyUnifiedDiff('', change.diff) : change.diff,
				kind,
			};
		case 'delete':
			return { originalPath: change.path, targetPath: change.path, proposed: '', kind };
		default:
			return {
				originalPath: change.path,
				targetPath: target,
				proposed: original === undefined ? undefined : applyUnifiedDiff(original, change.diff),
				kind,
			};
	}
}

/** One side of a file in the review: a file on disk, or content served under the proposed scheme. */
export type ReviewSide = { file: string } | { proposed: string; path: string; key: string };

/** One file of a patch's review: its label (the path it has after the patch) and the two sides. */
export interface ReviewItem {
	resource: string;
	left: ReviewSide;
	right: ReviewSide;
}

/**
 * reviewTitle is the title of the multi-file diff editor that shows an approval's patch: unique per
 * approval, so its tab can be found and closed after the decision.
 */
export function reviewTitle(id: string): string {
	return `Hermes: patch ${id}`;
}

/** isReviewTab says whether a tab's label is that of the review titled title (VS Code adds " (N files)"). */
export function isReviewTab(label: string, title: string): boolean {
	return label === title || (label.startsWith(`${title} (`) && label.endsWith(')'));
}

/**
 * reviewItems lays a patch out for the multi-file diff editor: for each change, the file now (on
 * disk, or empty when the patch adds it) against the content the patch leaves; when the diff does
 * not apply to the file as it is now, codex's diff text itself on the right. originals are the
 * changes' current contents (undefined: absent or unreadable). Proposed contents are keyed by the
 * approval id and the change's index.
 */
export function reviewItems(id: string, changes: readonly FileChange[], originals: readonly (string | undefined)[]): ReviewItem[] {
	return changes.map((change, i) => {
		const original = originals[i];
		const p = proposedChange(change, original);
		const right: ReviewSide = { proposed: p.proposed ?? change.diff, path: p.targetPath, key: `${id}-${i}` };
		const left: ReviewSide =
			p.originalPath && original !== undefined ? { file: p.originalPath } : { proposed: original ?? '', path: p.targetPath, key: `${id}-${i}-before` };
		return { resource: p.targetPath, left, right };
	});
}

function isUnifiedDiff(d: string): boolean {
	return /^(--- |\+\+\+ |@@ )/m.test(d) && /^@@ /m.test(d);
}

interface Hunk {
	oldStart: number; // 1-based; 0 for an empty file
	lines: string[]; // each starts with ' ', '-', '+' (or '\' for "No newline at end of file")
}

function parseHunks(diff: string): Hunk[] | undefined {
	const hunks: Hunk[] = [];
	let cur: Hunk | undefined;
	const lines = diff.split('\n');
	if (lines.length > 0 && lines[lines.length - 1] === '') {
		lines.pop();
	}
	for (const line of lines) {
		const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
		if (h) {
			cur = { oldStart: Number(h[1]), lines: [] };
			hunks.push(cur);
			continue;
		}
		if (!cur) {
			continue; // file headers (---, +++, diff --git) before the first hunk
		}
		if (line === '' ) {
			cur.lines.push(' '); // an empty context line whose space was trimmed
		} else if (line[0] === ' ' || line[0] === '-' || line[0] === '+' || line[0] === '\\') {
			cur.lines.push(line);
		} else {
			return undefined;
		}
	}
	return hunks.length > 0 ? hunks : undefined;
}

/**
 * applyUnifiedDiff applies a unified diff to text and returns the result, or undefined when a hunk
 * does not match. A hunk is looked for at its line number first, then anywhere after the previous
 * hunk (the file may have moved on since codex read it).
 */
export function applyUnifiedDiff(text: string, diff: string): string | undefined {
	const hunks = parseHunks(diff);
	if (!hunks) {
		return undefined;
	}
	const eol = text.includes('\r\n') ? '\r\n' : '\n';
	const hadFinalNewline = text === '' || text.endsWith('\n');
	const src = text === '' ? [] : text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
	const out: string[] = [];
	let pos = 0; // next line of src to copy
	let finalNewline = hadFinalNewline;
	for (const h of hunks) {
		const old: string[] = [];
		const neu: string[] = [];
		let last: '-' | '+' | ' ' = ' ';
		let noNewlineOld = false;
		let noNewlineNew = false;
		for (const l of h.lines) {
			const tag = l[0];
			const body = l.slice(1);
			if (tag === '\\') {
				if (last === '-' ) {
					noNewlineOld = true;
				} else if (last === '+') {
					noNewlineNew = true;
				} else {
					noNewlineOld = noNewlineNew = true;
				}
				continue;
			}
			if (tag === ' ' || tag === '-') {
				old.push(body);
			}
			if (tag === ' ' || tag === '+') {
				neu.push(body);
			}
			last = tag as '-' | '+' | ' ';
		}
		void noNewlineOld;
		let at = Math.max(h.oldStart - 1, 0);
		if (old.length === 0) {
			at = h.oldStart; // a pure insertion after line oldStart
		}
		if (!matches(src, at, old) || at < pos) {
			at = -1;
			for (let i = pos; i + old.length <= src.length; i++) {
				if (matches(src, i, old)) {
					at = i;
					break;
				}
			}
			if (at < 0) {
				return undefined;
			}
		}
		out.push(...src.slice(pos, at), ...neu);
		pos = at + old.length;
		if (pos >= src.length) {
			finalNewline = !noNewlineNew;
		}
	}
	out.push(...src.slice(pos));
	if (out.length === 0) {
		return '';
	}
	return out.join(eol) + (finalNewline ? eol : '');
}

function matches(src: string[], at: number, old: string[]): boolean {
	if (at < 0 || at + old.length > src.length) {
		return false;
	}
	for (let i = 0; i < old.length; i++) {
		if (src[at + i] !== old[i]) {
			return false;
		}
	}
	return true;
}
