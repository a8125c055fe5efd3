// The changes under review (docs/protocol.md, "Changes under review"): which change is where, the
// text a change replaced, the next and previous change, what the status bar and the CodeLens say.
// No vscode import: unit-tested
// with node --test; changesView.ts shows them.

import type { ChangeInfo } from './protocol';

/** The diagnostics of the changes under review: source `hermes`, this code. */
export const ChangeDiagnosticCode = 'change';

/** The most characters of removed text a CodeLens shows. */
const LENS_MAX = 100;

/** isChangeDiagnostic says whether a diagnostic is a change under review's. */
export function isChangeDiagnostic(d: { source?: string; code?: unknown }): boolean {
	const code = typeof d.code === 'object' && d.code !== null && 'value' in d.code ? d.code.value : d.code;
	return d.source === 'hermes' && code === ChangeDiagnosticCode;
}

/** VS Code's DiagnosticSeverity values for Information and Hint. */
const SEVERITY_INFORMATION = 2;
const SEVERITY_HINT = 3;

/**
 * listedInProblems raises a change's diagnostic from Hint to Information: VS Code's Problems panel
 * leaves hints out, and the changes under review belong there (listed, and F8 goes from one to the
 * next). Other diagnostics pass as they are.
 */
export function listedInProblems<D extends { source?: string; code?: unknown; severity: number }>(d: D): D {
	if (isChangeDiagnostic(d) && d.severity === SEVERITY_HINT) {
		d.severity = SEVERITY_INFORMATION;
	}
	return d;
}

/** The text a change replaced: its lines, and whether the server cut it (too long to keep or show). */
export interface OldText {
	lines: string[];
	cut: boolean;
}

/** Ellipsis ends a text the server cut (safetext.Ellipsis). */
const ELLIPSIS = '…';

/**
 * oldText is the text a change replaced, from hermes.changes' `old`: undefined when the change only
 * added lines. A change's old text is whole lines, so it ends with a line break (but at a file's
 * last line without one); the server cuts a long one to end in "…" instead.
 */
export function oldText(c: Pick<ChangeInfo, 'old'>): OldText | undefined {
	const old = c.old;
	if (old === undefined || old === '') {
		return undefined;
	}
	const cut = !old.endsWith('\n') && old.endsWith(ELLIPSIS);
	const lines = old.split('\n').map((l) => l.replace(/\r$/, ''));
	if (lines[lines.length - 1] === '') {
		lines.pop();
	}
	if (cut) {
		lines[lines.length - 1] = lines[lines.length - 1].slice(0, -ELLIPSIS.length);
		if (lines[lines.length - 1] === '') {
			lines.pop();
		}
	}
	return { lines, cut };
}

/** removedLens is what the CodeLens above a change says of the text it replaced, in one line. */
export function removedLens(old: OldText | undefined, removed: number): string | undefined {
	if (removed === 0) {
		return undefined;
	}
	if (!old || old.lines.length === 0) {
		return `− ${removed} line(s) removed`;
	}
	let text = `− ${old.lines[0].trim() === '' ? '(blank line)' : old.lines[0]}`;
	if (text.length > LENS_MAX) {
		text = text.slice(0, LENS_MAX - 1) + '…';
	}
	const more = removed - 1;
	return more > 0 ? `${text}  (+${more} more line(s))` : text;
}

/** removedTooltip is every removed line, for the CodeLens's tooltip. */
export function removedTooltip(old: OldText | undefined): string | undefined {
	if (!old || old.lines.length === 0) {
		return undefined;
	}
	return 'Hermes replaced:\n' + old.lines.join('\n') + (old.cut ? '\n…' : '');
}

/** countText is the status bar's count of changes under review ('' when none). */
export function countText(n: number): string {
	return n === 0 ? '' : `$(diff) ${n} change${n === 1 ? '' : 's'}`;
}

/** Where a change's lines are: the first and the last (a change without lines: the line after what it deleted). */
export function changeLines(c: ChangeInfo): { first: number; last: number } {
	const first = c.range.start.line;
	const last = Math.max(first, c.range.end.line);
	return { first, last };
}

/** sortChanges orders changes by file, then line. */
export function sortChanges(changes: readonly ChangeInfo[]): ChangeInfo[] {
	return [...changes].sort((a, b) => (a.uri === b.uri ? a.range.start.line - b.range.start.line : a.uri < b.uri ? -1 : 1));
}

/** changeAt is the change whose lines hold line of the file at uri, if one does. */
export function changeAt(changes: readonly ChangeInfo[], uri: string, line: number): ChangeInfo | undefined {
	return changes.find((c) => {
		const { first, last } = changeLines(c);
		return c.uri === uri && first <= line && line <= last;
	});
}

/**
 * nextChange is the change after line of the file at uri (forward) or before it, in file then line
 * order, going on to the next (or previous) file and around: undefined only when there is none.
 */
export function nextChange(changes: readonly ChangeInfo[], uri: string, line: number, forward: boolean): ChangeInfo | undefined {
	const all = sortChanges(changes);
	if (all.length === 0) {
		return undefined;
	}
	const after = (c: ChangeInfo) => c.uri > uri || (c.uri === uri && c.range.start.line > line);
	const before = (c: ChangeInfo) => c.uri < uri || (c.uri === uri && changeLines(c).last < line);
	if (forward) {
		return all.find(after) ?? all[0];
	}
	return [...all].reverse().find(before) ?? all[all.length - 1];
}

/**
 * withOldTexts is text (a file as it is now) with each change's lines replaced by the text it
 * replaced: the file before the changes, the left side of the review's diff. A change whose old
 * text is unknown or was cut stays as it is.
 */
export function withOldTexts(text: string, changes: readonly ChangeInfo[], old: (c: ChangeInfo) => OldText | undefined): string {
	const eol = text.includes('\r\n') ? '\r\n' : '\n';
	const lines = text.split(eol);
	for (const c of sortChanges(changes).reverse()) {
		const o = old(c);
		if (!o || o.cut) {
			continue;
		}
		const start = c.range.start.line;
		lines.splice(start, c.added, ...o.lines);
	}
	return lines.join(eol);
}
