import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
	Actions,
	applyUnifiedDiff,
	approvalDialog,
	approvalNotice,
	chosenAction,
	isApproval,
	isPatchApproval,
	isReviewTab,
	noticeItems,
	promptApprovalId,
	promptedApproval,
	proposedChange,
	reviewItems,
	reviewTitle,
} from '../src/approvals';
import type { Approval, FileChange } from '../src/protocol';
import { loose, type Loose } from './loose';

// Some cases leave out the rename target, as older servers did.
const change = (c: Loose<FileChange>): FileChange => loose<FileChange>(c);

const actions = [{ title: 'Allow once' }, { title: 'Allow for session' }, { title: 'Deny' }, { title: 'Stop turn' }];
const execMessage = "Hermes wants to run a command (approval a1):\n/bin/bash -lc 'echo from-vscode > vscode_made.txt'\nin /w/project";
const patchMessage =
	'Hermes wants to apply a patch (approval a2): update hello.txt, add docs/new.md\nIt asks for write access under /w/project\nReason: tidy up';

test("isApproval reads the prompt's action items, not its text", () => {
	assert.equal(isApproval(actions), true);
	assert.equal(isApproval([{ title: 'OK' }]), false);
	assert.equal(isApproval(undefined), false);
	// The server's question about a trusted setting is not an approval.
	assert.equal(isApproval([{ title: 'Keep asking' }, { title: 'Allow' }]), false);
});

const waiting = (id: string, asked: string, kind: Approval['kind'] = 'exec'): Approval =>
	loose<Approval>({ approvalId: id, kind, asked, summary: id, folder: '/w' });

test('promptedApproval: the prompt is about the oldest waiting approval no open prompt has taken', () => {
	const a1 = waiting('a1', '2026-12-04T10:00:00.100Z');
	const a2 = waiting('a2', '2026-12-04T10:00:00.050Z', 'patch'); // asked first, reported second (another folder)
	const a3 = waiting('a3', '2026-12-04T10:00:01Z');
	assert.equal(promptedApproval([], new Set()), undefined);
	assert.equal(promptedApproval([a1, a2, a3], new Set())?.approvalId, 'a2');
	assert.equal(promptedApproval([a1, a2, a3], new Set(['a2']))?.approvalId, 'a1');
	assert.equal(promptedApproval([a1, a2, a3], new Set(['a1', 'a2']))?.approvalId, 'a3');
	assert.equal(promptedApproval([a1], new Set(['a1'])), undefined);
	// Same or unreadable times keep the order of the events.
	const b1 = waiting('b1', 'x');
	const b2 = waiting('b2', 'y');
	assert.equal(promptedApproval([b1, b2], new Set())?.approvalId, 'b1');
	// Questions waiting in the chat view are never what a prompt is about.
	const q = waiting('q1', '2026-12-04T09:00:00Z', 'userInput');
	const p = waiting('p1', '2026-12-04T11:00:00Z', 'permissions');
	assert.equal(promptedApproval([q, p], new Set())?.approvalId, 'p1');
	assert.equal(promptedApproval([q, waiting('e1', '2026-12-04T09:00:00Z', 'elicitation')], new Set()), undefined);
});

test("promptedApproval: the approvalId in the prompt's action items decides when the server sends it", () => {
	const a1 = { approvalId: 'a1', asked: '2026-01-01T00:00:02Z' } as never;
	const a2 = { approvalId: 'a2', asked: '2026-01-01T00:00:01Z' } as never;
	const named = [
		{ title: 'Deny', approvalId: 'a1' },
		{ title: 'Allow once', approvalId: 'a1' },
	];
	assert.equal(promptedApproval([a1, a2], new Set(), named)?.approvalId, 'a1');
	assert.equal(promptedApproval([a2], new Set(), named), undefined, 'a named approval not reported yet is waited for');
	assert.equal(promptedApproval([a1, a2], new Set(), [{ title: 'Deny' }])?.approvalId, 'a2', 'bare titles: the oldest');
	assert.equal(promptApprovalId([{ title: 'Deny', approvalId: '' }]), undefined);
});

test('an exec approval becomes a dialog: headline, the command and its folder, one button per action, Deny first (the one Enter presses)', () => {
	assert.deepEqual(approvalDialog(execMessage, actions), {
		message: 'Hermes wants to run a command (approval a1)',
		detail: "/bin/bash -lc 'echo from-vscode > vscode_made.txt'\nin /w/project",
		items: [{ title: 'Deny' }, { title: 'Allow once' }, { title: 'Allow for session' }, { title: 'Stop turn', isCloseAffordance: true }],
	});
});

test("the command's modal has exactly its four buttons: Stop turn is its close button, Deny the first other", () => {
	// VS Code adds a Cancel button to a modal with no close button, and focuses the first button that
	// is not the close one: that must be Deny, so Enter denies, and Escape must never grant.
	const d = approvalDialog(execMessage, actions);
	const close = d.items.filter((i) => i.isCloseAffordance);
	assert.deepEqual(
		close.map((i) => i.title),
		['Stop turn'],
	);
	assert.equal(d.items.find((i) => !i.isCloseAffordance)?.title, 'Deny');
	assert.equal(d.items.length, 4);
	assert.equal(chosenAction(close[0], actions)?.title, 'Stop turn');
});

test('a patch approval lists each change on its own line, and keeps Show diff', () => {
	const d = approvalDialog(patchMessage, [...actions, { title: Actions.showDiff }]);
	assert.equal(d.message, 'Hermes wants to apply a patch (approval a2)');
	assert.equal(d.detail, 'update hello.txt\nadd docs/new.md\nIt asks for write access under /w/project\nReason: tidy up');
	assert.deepEqual(
		d.items.map((i) => i.title),
		['Deny', 'Allow once', 'Allow for session', 'Stop turn', 'Show diff'],
	);
});

test('a patch approval becomes a one-line notification with the same buttons, Deny first', () => {
	// The kind reported by the turn events decides; without it, a prompt offering Show diff is a patch's.
	assert.equal(isPatchApproval(waiting('a2', '', 'patch'), actions), true);
	assert.equal(isPatchApproval(waiting('a1', '', 'exec'), [...actions, { title: Actions.showDiff }]), false);
	assert.equal(isPatchApproval(undefined, [...actions, { title: Actions.showDiff }]), true);
	assert.equal(isPatchApproval(undefined, actions), false);
	const d = approvalDialog(patchMessage, actions);
	assert.equal(
		approvalNotice(d),
		'Hermes wants to apply a patch (approval a2): update hello.txt · add docs/new.md · It asks for write access under /w/project · Reason: tidy up',
	);
	assert.deepEqual(
		noticeItems(approvalDialog(patchMessage, [...actions, { title: Actions.showDiff }])).map((i) => i.title),
		['Deny', 'Allow once', 'Allow for session'],
	);
	assert.equal(
		approvalNotice({ message: 'Hermes wants to apply a patch (approval a3)', detail: '', items: [] }),
		'Hermes wants to apply a patch (approval a3)',
	);
	// The server's warning about unsaved editor changes stays in the notification.
	const warned = approvalDialog(`${patchMessage}\nhello.txt has unsaved changes in your editor: applying this patch will conflict with them`, actions);
	assert.match(approvalNotice(warned), / · hello\.txt has unsaved changes in your editor: applying this patch will conflict with them$/);
});

test('reviewTitle names the approval, so its tab can be found and closed', () => {
	assert.equal(reviewTitle('a2'), 'Hermes: patch a2');
	// VS Code adds the number of files to the multi-diff editor's name.
	assert.equal(isReviewTab('Hermes: patch a2 (1 file)', reviewTitle('a2')), true);
	assert.equal(isReviewTab('Hermes: patch a2', reviewTitle('a2')), true);
	assert.equal(isReviewTab('Hermes: patch a21 (1 file)', reviewTitle('a2')), false);
	assert.equal(isReviewTab('hello.txt', reviewTitle('a2')), false);
});

test('reviewItems: each change of a patch as the file now against what the patch leaves', () => {
	const changes = [
		change({ path: '/w/hello.txt', kind: { type: 'update' }, diff: '@@ -1 +1 @@\n-old\n+new\n' }),
		change({ path: '/w/n.txt', kind: { type: 'add' }, diff: 'added\n' }),
		change({ path: '/w/o.txt', kind: { type: 'delete' }, diff: 'gone\n' }),
		change({ path: '/w/stale.txt', kind: { type: 'update' }, diff: '@@ -1 +1 @@\n-was\n+is\n' }),
	];
	assert.deepEqual(reviewItems('a2', changes, ['old\n', undefined, 'gone\n', 'moved on\n']), [
		{ resource: '/w/hello.txt', left: { file: '/w/hello.txt' }, right: { proposed: 'new\n', path: '/w/hello.txt', key: 'a2-0' } },
		{ resource: '/w/n.txt', left: { proposed: '', path: '/w/n.txt', key: 'a2-1-before' }, right: { proposed: 'added\n', path: '/w/n.txt', key: 'a2-1' } },
		{ resource: '/w/o.txt', left: { file: '/w/o.txt' }, right: { proposed: '', path: '/w/o.txt', key: 'a2-2' } },
		// The diff no longer applies: codex's diff itself on the right.
		{ resource: '/w/stale.txt', left: { file: '/w/stale.txt' }, right: { proposed: '@@ -1 +1 @@\n-was\n+is\n', path: '/w/stale.txt', key: 'a2-3' } },
	]);
	// A renamed file is labelled with its new path; an update of a file that cannot be read shows codex's diff against nothing.
	const moved = reviewItems('a4', [change({ path: '/w/a.txt', kind: { type: 'update', move_path: '/w/b.txt' }, diff: '@@ -1 +1 @@\n-a\n+b\n' })], ['a\n']);
	assert.deepEqual(moved[0], { resource: '/w/b.txt', left: { file: '/w/a.txt' }, right: { proposed: 'b\n', path: '/w/b.txt', key: 'a4-0' } });
	const unread = reviewItems('a5', [change({ path: '/w/x.txt', kind: { type: 'update' }, diff: '@@ -1 +1 @@\n-a\n+b\n' })], [undefined]);
	assert.deepEqual(unread[0].left, { proposed: '', path: '/w/x.txt', key: 'a5-0-before' });
});

test("chosenAction: the server's own item, or null when dismissed (the server takes it as Deny)", () => {
	const items = [...actions];
	assert.equal(chosenAction({ title: 'Allow once' }, items), items[0]);
	assert.equal(chosenAction({ title: 'Stop turn' }, items), items[3]);
	assert.equal(chosenAction(undefined, items), null);
	assert.equal(chosenAction({ title: 'Cancel' }, items), null);
});

test('applyUnifiedDiff: the diff codex sends for an update', () => {
	const before = 'Hello from the workspace.\nThis line is old.\nEnd.\n';
	const diff = '@@ -1,3 +1,3 @@\n Hello from the workspace.\n-This line is old.\n+This line was patched in VS Code.\n End.\n';
	assert.equal(applyUnifiedDiff(before, diff), 'Hello from the workspace.\nThis line was patched in VS Code.\nEnd.\n');
});

test('applyUnifiedDiff: several hunks, file headers, insertions, a moved file, and no final newline', () => {
	const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n') + '\n';
	const diff = [
		'--- a/x.txt',
		'+++ b/x.txt',
		'@@ -1,2 +1,3 @@',
		' a',
		'+a2',
		' b',
		'@@ -7,2 +8,2 @@',
		' g',
		'-h',
		'+H',
		'\\ No newline at end of file',
		'',
	].join('\n');
	assert.equal(applyUnifiedDiff(before, diff), 'a\na2\nb\nc\nd\ne\nf\ng\nH');
	// The file moved on since codex read it: the hunk is found further down.
	assert.equal(applyUnifiedDiff('new first line\n' + before, diff), 'new first line\na\na2\nb\nc\nd\ne\nf\ng\nH');
	// An empty file, and CRLF line ends kept.
	assert.equal(applyUnifiedDiff('', '@@ -0,0 +1,2 @@\n+x\n+y\n'), 'x\ny\n');
	assert.equal(applyUnifiedDiff('a\r\nb\r\n', '@@ -1,2 +1,2 @@\n a\n-b\n+c\n'), 'a\r\nc\r\n');
	// An insertion after line 2 with no context.
	assert.equal(applyUnifiedDiff('1\n2\n3\n', '@@ -2,0 +3 @@\n+2.5\n'), '1\n2\n2.5\n3\n');
});

test('applyUnifiedDiff refuses what does not apply', () => {
	assert.equal(applyUnifiedDiff('x\n', '@@ -1 +1 @@\n-y\n+z\n'), undefined);
	assert.equal(applyUnifiedDiff('x\n', 'not a diff'), undefined);
	assert.equal(applyUnifiedDiff('x\n', '@@ -1 +1 @@\n?x\n'), undefined);
	// Two files' diffs are not one file's.
	assert.equal(applyUnifiedDiff('x\n', '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-x\n+y\n--- a/z\n+++ b/z\n@@ -1 +1 @@\n-z\n+w\n'), undefined);
	// An empty context line whose leading space was trimmed still counts as context.
	assert.equal(applyUnifiedDiff('a\n\nb\n', '@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n'), 'a\n\nc\n');
});

test('proposedChange: add, delete, update, rename, and an update that does not apply', () => {
	assert.deepEqual(proposedChange(change({ path: '/w/n.txt', kind: { type: 'add' }, diff: 'new\n' }), undefined), {
		originalPath: null,
		targetPath: '/w/n.txt',
		proposed: 'new\n',
		kind: 'add',
	});
	assert.deepEqual(proposedChange(change({ path: '/w/n.txt', kind: { type: 'add' }, diff: '@@ -0,0 +1 @@\n+new\n' }), undefined).proposed, 'new\n');
	assert.deepEqual(proposedChange(change({ path: '/w/o.txt', kind: { type: 'delete' }, diff: 'old\n' }), 'old\n'), {
		originalPath: '/w/o.txt',
		targetPath: '/w/o.txt',
		proposed: '',
		kind: 'delete',
	});
	assert.deepEqual(proposedChange(change({ path: '/w/a.txt', kind: { type: 'update', move_path: '/w/b.txt' }, diff: '@@ -1 +1 @@\n-a\n+b\n' }), 'a\n'), {
		originalPath: '/w/a.txt',
		targetPath: '/w/b.txt',
		proposed: 'b\n',
		kind: 'update',
	});
	assert.equal(
		proposedChange(change({ path: '/w/a.txt', kind: { type: 'update', move_path: '' }, diff: '@@ -1 +1 @@\n-a\n+b\n' }), 'zzz\n').proposed,
		undefined,
	);
	assert.equal(proposedChange(change({ path: '/w/a.txt', kind: { type: 'update' }, diff: '@@ -1 +1 @@\n-a\n+b\n' }), undefined).proposed, undefined);
});
