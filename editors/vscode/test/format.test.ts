import assert from 'node:assert/strict';
import { test } from 'node:test';

import { baseName, contextPercent, folderStatusLine, formatDuration, formatTokens, statusBarText, statusBarTooltip, statusText } from '../src/format';
import type { FolderStatus, StatusResult, Usage } from '../src/protocol';
import { loose } from './loose';

test('formatTokens', () => {
	assert.equal(formatTokens(undefined), '0');
	assert.equal(formatTokens(950), '950');
	assert.equal(formatTokens(1000), '1k');
	assert.equal(formatTokens(2500), '2.5k');
	assert.equal(formatTokens(1234), '1.2k');
	assert.equal(formatTokens(25_400), '25k');
	assert.equal(formatTokens(1_250_000), '1.3M');
	assert.equal(formatTokens(3_000_000), '3M');
});

test('formatDuration', () => {
	assert.equal(formatDuration(undefined), '');
	assert.equal(formatDuration(850), '850ms');
	assert.equal(formatDuration(3100), '3.1s');
	assert.equal(formatDuration(3000), '3s');
	assert.equal(formatDuration(125_000), '2m05s');
});

test('contextPercent computes like the server and is unknown without a window', () => {
	assert.equal(contextPercent(undefined), undefined);
	assert.equal(contextPercent(loose<Usage>({ totalTokens: 5 })), undefined);
	assert.equal(contextPercent(loose<Usage>({ contextWindow: 200_000, lastPromptTokens: 50_000 })), 25);
	assert.equal(contextPercent(loose<Usage>({ contextWindow: 100, lastPromptTokens: 150 })), 100);
});

test('statusBarText: state, tokens and context %', () => {
	assert.equal(statusBarText({ state: 'idle' }), '$(hubot) Hermes: idle');
	assert.equal(statusBarText({ state: 'starting' }), '$(loading~spin) Hermes: starting');
	assert.equal(statusBarText({ state: 'running', tokens: 2500, contextPercent: 12 }), '$(sync~spin) Hermes: running · 2.5k tok · 12% ctx');
	assert.equal(statusBarText({ state: 'approval', tokens: 0, contextPercent: 0, yolo: false }), '$(bell-dot) Hermes: approval needed · 0% ctx');
	assert.equal(statusBarText({ state: 'completed', tokens: 1234, yolo: true }), '$(check) Hermes: done · 1.2k tok · auto-approve');
	assert.equal(statusBarText({ state: 'stopped' }), '$(circle-slash) Hermes: server stopped');
});

test('statusBarTooltip says where, what, and what a click does', () => {
	const t = statusBarTooltip({ state: 'approval', folder: 'proj', activity: 'waiting for approval: go test', tokens: 2000, contextPercent: 3, pendingApprovals: 1 });
	assert.equal(
		t,
		'Hermes: approval needed in proj\nwaiting for approval: go test\n2k tokens this turn\ncontext 3% full\n1 approval(s) waiting\nauto-approve off\nClick for the status (Hermes: Show Status).',
	);
});

test('baseName', () => {
	assert.equal(baseName('/a/b/c'), 'c');
	assert.equal(baseName('/a/b/'), 'b');
	assert.equal(baseName('c'), 'c');
	assert.equal(baseName('C:\\x\\y'), 'y');
});

test('statusText for hermes.status', () => {
	assert.deepEqual(statusText({ folders: [] }), {
		headline: 'Hermes: no workspace folder has a session yet.',
		detail: 'Ask something (Hermes: Ask…) to start one.',
	});
	const r = loose<StatusResult>({
		folders: [
			{
				folder: '/w/api',
				threadId: 'th',
				turn: { id: 'u', state: 'running' },
				usage: { totalTokens: 12_000, contextWindow: 100_000, lastPromptTokens: 9000 },
				contextPercent: 9,
				pendingApprovals: [{ approvalId: 'a3', kind: 'exec', summary: 'make test' }],
				yolo: false,
				compactions: 1,
			},
			{ folder: '/w/web', threadId: '', turn: null, usage: {}, contextPercent: 0, pendingApprovals: [], yolo: true, compactions: 0 },
		],
	});
	assert.deepEqual(statusText(r), {
		headline: 'Hermes: 1 turn(s) running',
		detail: [
			'api (/w/api)',
			'  turn running · 12k tokens · 9% context · auto-approve off · 1 approval(s) waiting · 1 compaction(s)',
			'  thread th',
			'  waiting: exec make test (a3)',
			'web (/w/web)',
			'  no turn yet · 0 tokens · auto-approve on',
		].join('\n'),
	});
	assert.equal(folderStatusLine(loose<FolderStatus>({ folder: '/x', fallback: 'backup', turn: { id: 'u', state: 'completed' } })), 'turn completed · 0 tokens · auto-approve off · fallback backup');
});
