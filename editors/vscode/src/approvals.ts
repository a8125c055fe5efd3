// Approval prompts (window/showMessageRequest) -> a modal dialog (commands) or a notification
// (patches), and patches -> the proposed file contents for a multi-file diff editor. No vscode import.

import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import type { MessageActionItem } from 'vscode-languageclient';

import { Actions, type Approval, type FileChange } from './protocol';
import { asksQuestions, permissionsWords } from './questions';

export { Actions };

/**
 * isApproval says whether a prompt is an approval, from its action items (the structured part of a
 * window/showMessageRequest): it offers Deny and Allow once (docs/protocol.md, "Approvals"). The
 * server's other question, about a trusted setting, offers Keep asking and Allow.
 */
export function isApproval(actions: readonly MessageActionItem[] | undefined): boolean {
	const titles = (actions ?? []).map((a) => a.title);
	return titles.includes(Actions.deny) && titles.includes(Actions.allowOnce);
}

/**
 * promptedApproval says which approval a prompt asks about: the one its action items name
 * (approvalId, when the server sends it), else from the approvals the turn events reported waiting
 * (approvalWaiting, with their structured approvalId); never from the prompt's text. The server asks one prompt at a time per editor, in the order the approvals came: the prompt
 * is about the oldest waiting approval that no open prompt has taken yet (claimed). A "Show diff"
 * answer releases its claim, since the server then asks about the same approval again.
 */
export function promptedApproval(waiting: readonly Approval[], claimed: ReadonlySet<string>, actions?: readonly MessageActionItem[]): Approval | undefined {
	// The server names the approval in the prompt's action items (approvalId) for a client, like this
	// one, that keeps an item's own properties: that id decides when it is there.
	const named = promptApprovalId(actions);
	if (named) {
		return waiting.find((a) => a.approvalId === named);
	}
	let best: Approval | undefined;
	for (const a of waiting) {
		// Questions are asked in the chat view (experimental.hermes.asksQuestions), never by a prompt.
		if (claimed.has(a.approvalId) || asksQuestions(a)) {
			continue;
		}
		// Ties (and unparsable times) keep the event order.
		if (!best || askedAt(a) < askedAt(best)) {
			best = a;
		}
	}
	return best;
}

/** promptApprovalId is the approvalId the server put in a prompt's action items, if any. */
export function promptApprovalId(actions: readonly MessageActionItem[] | undefined): string | undefined {
	for (const a of actions ?? []) {
		const id = (a as { approvalId?: unknown }).approvalId;
		if (typeof id === 'string' && id !== '') {
			return id;
		}
	}
	return undefined;
}

function askedAt(a: Approval): number {
	const t = Date.parse(String(a.asked ?? ''));
	return Number.isNaN(t) ? Number.MAX_SAFE_INTEGER : t;
}

export interface DialogItem {
	title: string;
	/** The button Escape (and closing the dialog) picks: Stop turn, never a grant (see approvalDialog). */
	isCloseAffordance?: boolean;
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
		const changes = first
			.slice(colon + 3)
			.split(', ')
			.join('\n');
		rest = rest ? `${changes}\n${rest}` : changes;
	} else if (first.endsWith(':')) {
		headline = first.slice(0, -1);
	}
	// Deny goes first, whatever the server's order: VS Code makes the first button of a modal dialog
	// that is not its close button the primary one, which has the focus and which Enter presses, and an
	// accidental Enter must never grant (a notification shows its first button as the primary one too).
	// A modal adds a Cancel button of its own unless one button takes the close role (Escape): that
	// is Stop turn, never a grant. Giving it to Deny would make Allow once the first other button,
	// and so the focused one.
	const ordered = [...(actions ?? [])].sort((a, b) => Number(b.title === Actions.deny) - Number(a.title === Actions.deny));
	const items: DialogItem[] = ordered.map((a) => (a.title === Actions.stop ? { title: a.title, isCloseAffordance: true } : { title: a.title }));
	return { message: headline, detail: rest, items };
}

/**
 * withAccess adds a permissions approval's access in words (network, each path to read or write)
 * to its dialog's detail, unless the server's prompt already names all of it: the person decides on
 * what is asked, whatever the prompt's wording.
 */
export function withAccess(d: Dialog, approval: Approval | undefined): Dialog {
	const p = approval?.kind === 'permissions' ? approval.permissions : undefined;
	if (!p) {
		return d;
	}
	const text = `${d.message}\n${d.detail}`;
	const named = (!p.network || /network/i.test(text)) && [...(p.read ?? []), ...(p.write ?? [])].every((path) => text.includes(path));
	if (named) {
		return d;
	}
	const access = `Asks for: ${permissionsWords(p).join('; ')}`;
	return { ...d, detail: d.detail ? `${access}\n${d.detail}` : access };
}

/**
 * isPatchApproval says whether an approval asks to apply a patch (else: to run a command): its kind
 * when the turn events reported it, else whether the prompt offers Show diff (patches only).
 */
export function isPatchApproval(approval: Approval | undefined, actions: readonly MessageActionItem[] | undefined): boolean {
	if (approval) {
		return approval.kind === 'patch';
	}
	return (actions ?? []).some((a) => a.title === Actions.showDiff);
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
	const rest = d.detail
		.split('\n')
		.map((l) => l.trim())
		.filter(Boolean);
	return rest.length > 0 ? `${d.message}: ${rest.join(' · ')}` : d.message;
}

/**
 * chosenAction maps the dialog's answer back to the server's action item: the item whose title was
 * picked (Escape on a modal picks Stop turn, its close button), or null when a prompt was dismissed
 * without an answer (the server keeps the approval pending).
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

/**
 * singlePatch parses a unified diff with jsdiff: the one file patch with hunks it holds, or undefined
 * (not a diff, a malformed one, or several files).
 */
function singlePatch(diff: string): StructuredPatch | undefined {
	try {
		const patches = parsePatch(diff).filter((p) => p.hunks.length > 0);
		return patches.length === 1 ? patches[0] : undefined;
	} catch {
		return undefined; // jsdiff throws on a line that is neither context, removal nor addition
	}
}

function isUnifiedDiff(d: string): boolean {
	return singlePatch(d) !== undefined;
}

/**
 * applyUnifiedDiff applies a unified diff to text with jsdiff and returns the result, or undefined
 * when a hunk does not match. jsdiff looks for a hunk at its line number first, then nearby (the file
 * may have moved on since codex read it), and keeps the text's CRLF line ends.
 */
export function applyUnifiedDiff(text: string, diff: string): string | undefined {
	const patch = singlePatch(diff);
	if (!patch) {
		return undefined;
	}
	const out = applyPatch(text, patch);
	return out === false ? undefined : out;
}
