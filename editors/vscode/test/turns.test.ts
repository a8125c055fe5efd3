import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import type { Approval, TurnEvent, TurnEventParams } from '../src/protocol';
import { formatTokens } from '../src/format';
import { clip, decisionWords, indent, TurnRenderer, TurnTracker } from '../src/turns';
import { loose, type Loose } from './loose';

// A real turn's hermes/turnEvent notifications, captured from hermes-lsp running the pinned codex
// against the e2e's fake model script: a command and a patch, each allowed once, then the answer.
const recorded: TurnEventParams[] = readFileSync(join(__dirname, '..', '..', 'test', 'turn-events.jsonl'), 'utf8')
	.split('\n')
	.filter((l) => l.trim() !== '')
	.map((l) => JSON.parse(l) as TurnEventParams);

const base = { folder: '/w/project', threadId: 't1', turnId: 'u1' };
const ev = (event: Loose<TurnEvent>, over: Partial<TurnEventParams> = {}): TurnEventParams => ({ ...base, ...over, event: loose<TurnEvent>(event) });

test('the recorded turn renders as a readable stream', () => {
	const r = new TurnRenderer();
	const text = recorded.map((p) => r.render(p)).join('');
	const expected = [
		'━━ Hermes · work · turn 01a23800-b625-7c41-9f39-67d0771ec0ba ━━',
		'> Do the e2e thing',
		'> ',
		'> File: hello.txt',
		"▶ exec_command: /bin/bash -lc 'echo from-vscode > vscode_made.txt'",
		"⚠ approval a1: Hermes wants to run /bin/bash -lc 'echo from-vscode > vscode_made.txt' in /home/u/work",
		'✔ approval a1: allowed once',
		'✓ exec_command (192ms)',
		'▶ apply_patch: /home/u/work/hello.txt',
		'⚠ approval a2: Hermes wants to apply a patch: update /home/u/work/hello.txt',
		'✔ approval a2: allowed once',
		'✓ apply_patch (153ms)',
		'  │ apply_patch status=completed, 1 change(s)',
		'',
		'Done in VS Code.',
		`━━ completed · 2 tool call(s) · ${formatTokens(1234)} tokens · 1.5s ━━`,
		'Transcript: /home/u/state/transcripts/01a23800-b5ca-7f22-9638-3112a4b5e4aa.md',
		'',
		'',
	].join('\n');
	assert.equal(text, expected);
});

test('the recorded turn drives the status bar: running, approval, done with tokens and context', () => {
	const t = new TurnTracker();
	t.setServerState('running');
	assert.deepEqual(t.bar(), { state: 'idle' });
	const states: string[] = [];
	for (const p of recorded) {
		t.apply(p);
		const s = t.bar().state;
		if (states[states.length - 1] !== s) {
			states.push(s);
		}
	}
	assert.deepEqual(states, ['running', 'approval', 'running', 'approval', 'running', 'completed']);
	const bar = t.bar();
	assert.equal(bar.folder, 'work');
	assert.equal(bar.tokens, 1234);
	assert.equal(bar.contextPercent, 0); // 1200 of 258400
	assert.equal(bar.pendingApprovals, 0);
	assert.equal(t.running().length, 0);
	// The patch approval's changes are kept for the diff editor.
	assert.equal(t.approval('a2')?.changes?.[0].kind.type, 'update');
	assert.equal(t.approval('a1')?.decision, 'once');
});

test('the tracker shows a server that is not running', () => {
	const t = new TurnTracker();
	assert.equal(t.bar().state, 'starting');
	t.setServerState('stopped');
	assert.equal(t.bar().state, 'stopped');
});

test('a failed or interrupted turn ends in that state, with its error as the step', () => {
	const t = new TurnTracker();
	t.setServerState('running');
	t.apply(ev({ kind: 'turnStarted', text: 'go' }));
	t.apply(
		ev({
			kind: 'turnCompleted',
			result: { finalText: '', toolIterations: 0, status: 'failed', completed: false, error: 'quota\nmore', threadId: 't1', turnId: 'u1' },
		}),
	);
	assert.equal(t.bar().state, 'failed');
	assert.equal(t.bar().activity, 'quota');
	t.apply(ev({ kind: 'turnStarted', text: 'again' }, { turnId: 'u2' }));
	assert.equal(t.bar().state, 'running');
	t.apply(
		ev(
			{ kind: 'turnCompleted', result: { finalText: '', toolIterations: 0, status: 'interrupted', completed: false, threadId: 't1', turnId: 'u2' } },
			{ turnId: 'u2' },
		),
	);
	assert.equal(t.bar().state, 'interrupted');
});

test("the bar follows the folder with the latest event and keeps each folder's auto-approve", () => {
	const t = new TurnTracker();
	t.setServerState('running');
	t.setYolo('/w/a', true);
	assert.equal(t.bar().yolo, true);
	t.apply(ev({ kind: 'turnStarted' }, { folder: '/w/b', turnId: 'b1' }));
	assert.equal(t.bar().folder, 'b');
	assert.equal(t.bar().yolo, undefined);
	t.apply(ev({ kind: 'turnStarted' }, { folder: '/w/a', turnId: 'a1' }));
	assert.equal(t.bar().folder, 'a');
	assert.equal(t.bar().yolo, true, "a new turn keeps the folder's yolo");
	assert.equal(t.running().length, 2);
});

test('an answer streamed in pieces stays on its lines; tool output is indented', () => {
	const r = new TurnRenderer();
	let out = '';
	out += r.render(ev({ kind: 'answerDelta', text: 'Let me ' }));
	out += r.render(ev({ kind: 'answerDelta', text: 'look.' }));
	out += r.render(ev({ kind: 'toolStarted', tool: { itemId: 'i1', callId: 'c1', name: 'exec_command', preview: 'go test ./...' } }));
	out += r.render(ev({ kind: 'toolOutput', text: 'ok  \tpkg/a', tool: { itemId: 'i1', callId: 'c1', name: 'exec_command', preview: '' } }));
	out += r.render(ev({ kind: 'toolOutput', text: ' 0.1s\nFAIL pkg/b\n', tool: { itemId: 'i1', callId: 'c1', name: 'exec_command', preview: '' } }));
	out += r.render(
		ev({
			kind: 'toolCompleted',
			tool: { itemId: 'i1', callId: 'c1', name: 'exec_command', preview: '', isError: true, durationMs: 2500, result: 'not shown again' },
		}),
	);
	out += r.render(ev({ kind: 'answerDelta', text: 'Fixed.' }));
	out += r.render(
		ev({
			kind: 'turnCompleted',
			result: { finalText: 'Let me look.Fixed.', toolIterations: 1, status: 'completed', completed: true, threadId: 't1', turnId: 'u1' },
		}),
	);
	assert.equal(
		out,
		[
			'',
			'Let me look.',
			'▶ exec_command: go test ./...',
			'  │ ok  \tpkg/a 0.1s',
			'  │ FAIL pkg/b',
			'✗ exec_command failed (2.5s)',
			'',
			'Fixed.',
			'━━ completed · 1 tool call(s) ━━',
			'',
			'',
		].join('\n'),
	);
});

test('plans, compactions, fallbacks, errors, steering and approvals that were not allowed', () => {
	const r = new TurnRenderer();
	const a = { approvalId: 'a9', kind: 'exec' as const, folder: '/w', threadId: 't', turnId: 'u', itemId: 'i', summary: 'rm -rf x' };
	const out = [
		r.render(
			ev({
				kind: 'plan',
				plan: [
					{ step: 'read', status: 'completed' },
					{ step: 'fix', status: 'inProgress' },
					{ step: 'test', status: 'pending' },
				],
			}),
		),
		r.render(ev({ kind: 'compaction', compaction: { count: 2 } })),
		r.render(ev({ kind: 'fallback', text: 'retrying on backup' })),
		r.render(ev({ kind: 'error', text: 'boom' })),
		r.render(ev({ kind: 'steered', text: 'also this' })),
		r.render(ev({ kind: 'approvalResolved', approval: { ...a, decision: 'deny', decidedBy: 'timeout' } })),
		r.render(ev({ kind: 'approvalResolved', approval: { ...a, decision: 'stop', decidedBy: 'user' } })),
		r.render(ev({ kind: 'reasoningDelta', text: 'hidden' })),
		r.render(ev({ kind: 'usage', usage: { totalTokens: 5 } })),
	].join('');
	assert.equal(
		out,
		[
			'Plan:',
			'  [x] read',
			'  [~] fix',
			'  [ ] test',
			'⟳ context compacted (#2)',
			'↪ fallback: retrying on backup',
			'✗ error: boom',
			'(steered)',
			'> also this',
			'✘ approval a9: denied (timeout)',
			'✘ approval a9: denied, turn stopped',
			'',
		].join('\n'),
	);
});

test('a turn whose answer never streamed shows the final text; a failed one its error', () => {
	const r = new TurnRenderer();
	const out = r.render(
		ev({
			kind: 'turnCompleted',
			result: {
				finalText: 'Answer.\n',
				toolIterations: 0,
				status: 'failed',
				completed: false,
				error: 'usage limit',
				threadId: 't1',
				turnId: 'u1',
				durationMs: 61000,
			},
		}),
	);
	assert.equal(out, 'Answer.\n━━ failed · 0 tool call(s) · 1m01s ━━\nusage limit\n\n');
});

test('decisionWords, indent and clip', () => {
	const a = loose<Approval>({ approvalId: 'a', kind: 'patch', folder: '', threadId: '', turnId: '', itemId: '', summary: '' });
	assert.equal(decisionWords({ ...a, decision: 'session', decidedBy: 'user' }), 'allowed for the session');
	assert.equal(decisionWords({ ...a, decision: 'once', decidedBy: 'policy' }), 'allowed once (policy)');
	assert.equal(decisionWords(a), 'resolved');
	assert.equal(indent('a\nb', true), '  │ a\n  │ b');
	assert.equal(indent('a\n\nb\n', false), 'a\n\n  │ b\n');
	assert.equal(clip('1\n2\n3\n', 5), '1\n2\n3\n');
	assert.equal(clip('1\n2\n3\n4', 2), '1\n2\n… 2 more line(s)\n');
});

test('the context keys follow the recorded turn: running, an approval waiting, then neither', () => {
	const t = new TurnTracker();
	const keys: string[] = [];
	const seen = () => {
		const k = t.contextKeys();
		const s = `running=${k['hermes.turnRunning']} approval=${k['hermes.approvalPending']}`;
		if (keys[keys.length - 1] !== s) {
			keys.push(s);
		}
	};
	seen();
	t.setServerState('running');
	for (const p of recorded) {
		t.apply(p);
		seen();
	}
	assert.deepEqual(keys, [
		'running=false approval=false',
		'running=true approval=false',
		'running=true approval=true',
		'running=true approval=false',
		'running=true approval=true',
		'running=true approval=false',
		'running=false approval=false',
	]);
});

test('waiting lists the approvals waiting in every folder; none once the server stopped', () => {
	const t = new TurnTracker();
	t.setServerState('running');
	const a = (id: string, folder: string) => loose<Approval>({ approvalId: id, kind: 'exec', folder, summary: id });
	t.apply(ev({ kind: 'turnStarted' }, { folder: '/w/a', turnId: 'a1' }));
	t.apply(ev({ kind: 'approvalWaiting', approval: a('x1', '/w/a') }, { folder: '/w/a', turnId: 'a1' }));
	t.apply(ev({ kind: 'turnStarted' }, { folder: '/w/b', turnId: 'b1' }));
	t.apply(ev({ kind: 'approvalWaiting', approval: a('x2', '/w/b') }, { folder: '/w/b', turnId: 'b1' }));
	assert.deepEqual(
		t.waiting().map((w) => w.approvalId),
		['x1', 'x2'],
	);
	t.apply(ev({ kind: 'approvalResolved', approval: { ...a('x1', '/w/a'), decision: 'once' } }, { folder: '/w/a', turnId: 'a1' }));
	assert.deepEqual(
		t.waiting().map((w) => w.approvalId),
		['x2'],
	);
	assert.equal(t.contextKeys()['hermes.approvalPending'], true);
	// The server went away: its turns and approvals with it.
	t.setServerState('stopped');
	assert.deepEqual(t.waiting(), []);
	assert.deepEqual(t.contextKeys(), {
		'hermes.turnRunning': false,
		'hermes.approvalPending': false,
		'hermes.signedIn': false,
		'hermes.agentLacksCompact': false,
		'hermes.agentLacksThreads': false,
		'hermes.agentLacksModels': false,
		'hermes.agentLacksLogin': false,
	});
	// And a restarted server has none either.
	t.setServerState('running');
	assert.deepEqual(t.waiting(), []);
	assert.deepEqual(t.running(), []);
	assert.equal(t.bar().state, 'interrupted');
});

test('setAccount keeps what hermes.status says of the account; unknown leaves it as it was', () => {
	const t = new TurnTracker();
	t.setServerState('running');
	t.setAccount({});
	assert.deepEqual(t.bar(), { state: 'idle' });
	t.setAccount({ signedIn: false });
	assert.deepEqual(t.bar(), { state: 'idle', signedIn: false });
	assert.equal(t.contextKeys()['hermes.signedIn'], false);
	t.setAccount({ signedIn: true, account: { type: 'chatgpt', email: 'me@example.com' } });
	assert.deepEqual(t.bar(), { state: 'idle', signedIn: true, account: { type: 'chatgpt', email: 'me@example.com' } });
	assert.equal(t.contextKeys()['hermes.signedIn'], true);
	t.setAccount({}); // codex not running: unknown, keep
	assert.equal(t.contextKeys()['hermes.signedIn'], true);
	t.setAccount({ signedIn: false });
	assert.deepEqual(t.bar(), { state: 'idle', signedIn: false });
});
