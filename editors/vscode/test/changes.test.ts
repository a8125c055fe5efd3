import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
	changeAt,
	countText,
	isChangeDiagnostic,
	listedInProblems,
	nextChange,
	oldText,
	removedLens,
	removedTooltip,
	withOldTexts,
	type OldText,
} from '../src/changes';
import type { ChangeInfo } from '../src/protocol';

/** change is a change under review of uri over lines first to last. */
function change(id: string, uri: string, first: number, last: number, added = last - first + 1, removed = 1): ChangeInfo {
	return {
		changeId: id,
		uri,
		range: { start: { line: first, character: 0 }, end: { line: last, character: added > 0 ? 5 : 0 } },
		turnId: 't1',
		added,
		removed,
	};
}

test('oldText: the lines hermes.changes says a change replaced, and whether the server cut them', () => {
	assert.deepEqual(oldText({ old: 'This line is old.\n\n' }), { lines: ['This line is old.', ''], cut: false });
	assert.deepEqual(oldText({ old: 'a\r\nb\r\n' }), { lines: ['a', 'b'], cut: false });
	// The file's last line, without a line break.
	assert.deepEqual(oldText({ old: 'last' }), { lines: ['last'], cut: false });
	// Cut: it ends in "…" instead of a line break; not kept at all: "…" alone.
	assert.deepEqual(oldText({ old: 'a\nb and mo…' }), { lines: ['a', 'b and mo'], cut: true });
	assert.deepEqual(oldText({ old: '…' }), { lines: [], cut: true });
	// A line of the file that ends in "…" is no cut.
	assert.deepEqual(oldText({ old: 'wait…\n' }), { lines: ['wait…'], cut: false });
	assert.equal(oldText({}), undefined);
	assert.equal(oldText({ old: '' }), undefined);
});

test('the CodeLens says what a change replaced in one line, and its tooltip all of it', () => {
	const old: OldText = { lines: ['This line is old.', 'And this one.'], cut: false };
	assert.equal(removedLens(old, 2), '− This line is old.  (+1 more line(s))');
	assert.equal(removedLens({ lines: ['x'], cut: false }, 1), '− x');
	assert.equal(removedLens({ lines: ['   '], cut: false }, 1), '− (blank line)');
	assert.equal(removedLens(undefined, 3), '− 3 line(s) removed');
	assert.equal(removedLens(old, 0), undefined);
	const long = removedLens({ lines: ['y'.repeat(300)], cut: false }, 1) ?? '';
	assert.equal(long.length, 100);
	assert.ok(long.endsWith('…'));
	assert.equal(removedTooltip(old), 'Hermes replaced:\nThis line is old.\nAnd this one.');
	assert.equal(removedTooltip({ lines: ['a'], cut: true }), 'Hermes replaced:\na\n…');
	assert.equal(removedTooltip(undefined), undefined);
});

test('countText counts the changes for the status bar, nothing when none', () => {
	assert.equal(countText(0), '');
	assert.equal(countText(1), '$(diff) 1 change');
	assert.equal(countText(3), '$(diff) 3 changes');
});

test('isChangeDiagnostic: source hermes and code change, as VS Code gives a code (plain or {value})', () => {
	assert.ok(isChangeDiagnostic({ source: 'hermes', code: 'change' }));
	assert.ok(isChangeDiagnostic({ source: 'hermes', code: { value: 'change' } }));
	assert.ok(!isChangeDiagnostic({ source: 'hermes', code: 'finding' }));
	assert.ok(!isChangeDiagnostic({ source: 'eslint', code: 'change' }));
	assert.ok(!isChangeDiagnostic({ source: 'hermes' }));
});

const a = 'file:///w/a.txt';
const b = 'file:///w/b.txt';
const changes = [change('b1', b, 3, 3), change('a2', a, 10, 12), change('a1', a, 2, 2), change('d', a, 20, 20, 0)];

test("listedInProblems: a change's Hint becomes Information (the Problems panel lists it); others stay", () => {
	assert.equal(listedInProblems({ source: 'hermes', code: 'change', severity: 3 }).severity, 2);
	assert.equal(listedInProblems({ source: 'hermes', code: { value: 'change' }, severity: 3 }).severity, 2);
	assert.equal(listedInProblems({ source: 'hermes', code: 'instruction', severity: 3 }).severity, 3);
	assert.equal(listedInProblems({ source: 'gopls', code: 'change', severity: 3 }).severity, 3);
	assert.equal(listedInProblems({ source: 'hermes', code: 'change', severity: 0 }).severity, 0);
});

test('changeAt finds the change whose lines hold the line, one without lines at the line after what it deleted', () => {
	assert.equal(changeAt(changes, a, 11)?.changeId, 'a2');
	assert.equal(changeAt(changes, a, 12)?.changeId, 'a2');
	assert.equal(changeAt(changes, a, 13), undefined);
	assert.equal(changeAt(changes, a, 20)?.changeId, 'd');
	assert.equal(changeAt(changes, b, 2), undefined);
});

test('nextChange goes by line, then to the next file, and around; previous the other way', () => {
	const next = (uri: string, line: number) => nextChange(changes, uri, line, true)?.changeId;
	const prev = (uri: string, line: number) => nextChange(changes, uri, line, false)?.changeId;
	assert.equal(next(a, 0), 'a1');
	assert.equal(next(a, 2), 'a2');
	assert.equal(next(a, 11), 'd');
	assert.equal(next(a, 20), 'b1');
	assert.equal(next(b, 3), 'a1'); // around
	assert.equal(next('', -1), 'a1'); // from no file: the first
	assert.equal(prev(a, 11), 'a1'); // from inside a2: the one before it
	assert.equal(prev(a, 2), 'b1'); // around
	assert.equal(prev(b, 3), 'd');
	assert.equal(prev(b, 9), 'b1');
	assert.equal(nextChange([], a, 0, true), undefined);
});

test("withOldTexts puts back each change's old text: the file before the changes", () => {
	const text = 'one\nTWO\nthree\nfour\nSIX\nSEVEN\n';
	const list = [change('c1', a, 1, 1), change('c2', a, 4, 5, 2, 1), change('c3', a, 3, 3, 0, 1)];
	const old: Record<string, OldText> = {
		c1: { lines: ['two'], cut: false },
		c2: { lines: ['five'], cut: false },
		c3: { lines: ['deleted'], cut: false },
	};
	assert.equal(
		withOldTexts(text, list, (c) => old[c.changeId]),
		'one\ntwo\nthree\ndeleted\nfour\nfive\n',
	);
	// Unknown or cut old text: that change stays.
	assert.equal(
		withOldTexts(text, list, (c) => (c.changeId === 'c1' ? { lines: ['two'], cut: true } : undefined)),
		text,
	);
	assert.equal(
		withOldTexts('x\r\nY\r\n', [change('c', a, 1, 1)], () => ({ lines: ['y'], cut: false })),
		'x\r\ny\r\n',
	);
});
