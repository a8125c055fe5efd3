import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
	accountLine,
	conversations,
	accountName,
	baseName,
	contextPercent,
	folderStatusLine,
	formatDuration,
	formatTokens,
	loginMethod,
	loginOutcome,
	statusBarText,
	statusBarTooltip,
	statusText,
} from '../src/format';
import type { FolderStatus, LoginResult, StatusResult, Usage } from '../src/protocol';
import { loose } from './loose';

// The user's locale decides how tokens read (Intl's compact notation); the tests that do not name a
// locale compare with formatTokens itself.
const tok = (n: number) => formatTokens(n);

test("formatTokens: Intl's compact notation, in the given locale", () => {
	assert.equal(formatTokens(undefined, 'en-US'), '0');
	assert.equal(formatTokens(-5, 'en-US'), '0');
	assert.equal(formatTokens(Number.NaN, 'en-US'), '0');
	assert.equal(formatTokens(950, 'en-US'), '950');
	assert.equal(formatTokens(1000, 'en-US'), '1K');
	assert.equal(formatTokens(2500, 'en-US'), '2.5K');
	assert.equal(formatTokens(1234, 'en-US'), '1.2K');
	assert.equal(formatTokens(25_400, 'en-US'), '25K');
	assert.equal(formatTokens(1_250_000, 'en-US'), '1.3M');
	assert.equal(formatTokens(3_000_000, 'en-US'), '3M');
	assert.equal(formatTokens(2500, 'de-DE'), '2500');
	assert.equal(formatTokens(25_400, 'de-DE'), '25.400');
	assert.equal(formatTokens(1_250_000, 'de-DE'), '1,3\u00a0Mio.');
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
	assert.equal(statusBarText({ state: 'running', tokens: 2500, contextPercent: 12 }), `$(sync~spin) Hermes: running · ${tok(2500)} tok · 12% ctx`);
	assert.equal(statusBarText({ state: 'approval', tokens: 0, contextPercent: 0, yolo: false }), '$(bell-dot) Hermes: approval needed · 0% ctx');
	assert.equal(statusBarText({ state: 'completed', tokens: 1234, yolo: true }), `$(check) Hermes: done · ${tok(1234)} tok · auto-approve`);
	assert.equal(statusBarText({ state: 'idle', signedIn: false }), '$(hubot) Hermes: idle · not signed in');
	assert.equal(statusBarText({ state: 'stopped' }), '$(circle-slash) Hermes: server stopped');
});

test('statusBarTooltip says where, what, and what a click does', () => {
	const t = statusBarTooltip({
		state: 'approval',
		folder: 'proj',
		activity: 'waiting for approval: go test',
		tokens: 2000,
		contextPercent: 3,
		pendingApprovals: 1,
	});
	assert.equal(
		t,
		`Hermes: approval needed in proj\nwaiting for approval: go test\n${tok(2000)} tokens this turn\ncontext 3% full\n1 approval(s) waiting\nauto-approve off\nClick for the status (Hermes: Show Status).`,
	);
	assert.equal(
		statusBarTooltip({ state: 'idle', account: { type: 'chatgpt', email: 'me@example.com', planType: 'plus' }, signedIn: true }),
		'Hermes: idle\nauto-approve off\ncodex is signed in as me@example.com (plus)\nClick for the status (Hermes: Show Status).',
	);
	assert.equal(
		statusBarTooltip({ state: 'idle', signedIn: false }),
		'Hermes: idle\nauto-approve off\ncodex is not signed in\nClick for the status and to sign in (Hermes: Show Status).',
	);
});

test('accountName and accountLine say who codex is signed in as', () => {
	assert.equal(accountName({ type: 'chatgpt', email: 'me@example.com' }), 'me@example.com');
	assert.equal(accountName({ type: 'chatgpt', email: 'me@example.com', planType: 'pro' }), 'me@example.com (pro)');
	assert.equal(accountName({ type: 'apiKey' }), 'an API key');
	assert.equal(accountName({ type: 'other' }), 'other');
	assert.equal(accountLine({}), undefined);
	assert.equal(accountLine({ signedIn: false }), 'codex is not signed in');
	assert.equal(accountLine({ signedIn: true }), 'codex is signed in');
	assert.equal(accountLine({ signedIn: true, account: { type: 'apiKey' } }), 'codex is signed in as an API key');
});

test('loginMethod: a device code in a remote window, the browser sign-in otherwise', () => {
	assert.equal(loginMethod(undefined), 'chatgpt');
	assert.equal(loginMethod('ssh-remote'), 'deviceCode');
});

test("loginOutcome reads hermes.login's answer", () => {
	assert.deepEqual(loginOutcome(undefined), { kind: 'none' });
	assert.deepEqual(loginOutcome(loose<LoginResult>({ opened: false, alreadySignedIn: { type: 'chatgpt', email: 'me@example.com' } })), {
		kind: 'already',
		message: 'Signed in to codex as me@example.com.',
	});
	assert.deepEqual(loginOutcome(loose<LoginResult>({ opened: false, alreadySignedIn: { type: 'apiKey' } })), {
		kind: 'already',
		message: 'Signed in to codex as an API key.',
	});
	// The server opened the page (showDocument, external): nothing more to open.
	assert.deepEqual(loginOutcome({ method: 'chatgpt', loginId: 'l1', url: 'https://auth.example/x', opened: true }), {
		kind: 'browser',
		message: 'Hermes: finish signing in to codex in your browser.',
		url: 'https://auth.example/x',
		open: false,
	});
	assert.deepEqual(loginOutcome({ method: 'chatgpt', loginId: 'l1', url: 'https://auth.example/x', opened: false }), {
		kind: 'browser',
		message: 'Hermes: finish signing in to codex in your browser (https://auth.example/x).',
		url: 'https://auth.example/x',
		open: true,
	});
	assert.deepEqual(loginOutcome({ method: 'deviceCode', url: 'https://auth.example/device', userCode: 'ABCD-1234', opened: false }), {
		kind: 'deviceCode',
		message: 'Hermes: to sign in to codex, enter the code ABCD-1234 at https://auth.example/device.',
		url: 'https://auth.example/device',
		userCode: 'ABCD-1234',
		open: true,
	});
	assert.deepEqual(loginOutcome({ opened: false }), { kind: 'none' });
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
				compactions: 3,
				ineffectiveCompactions: 2,
			},
			{ folder: '/w/web', threadId: '', turn: null, usage: {}, contextPercent: 0, pendingApprovals: [], yolo: true, compactions: 0 },
		],
	});
	assert.deepEqual(statusText(r), {
		headline: 'Hermes: 1 turn(s) running',
		detail: [
			'api (/w/api)',
			`  turn running · ${tok(12_000)} tokens · 9% context · auto-approve off · 1 approval(s) waiting · 3 compaction(s) (last 2 ineffective)`,
			'  thread th',
			'  waiting: exec make test (a3)',
			'web (/w/web)',
			'  no turn yet · 0 tokens · auto-approve on',
		].join('\n'),
	});
	assert.equal(
		folderStatusLine(loose<FolderStatus>({ folder: '/x', fallback: 'backup', turn: { id: 'u', state: 'completed' } })),
		'turn completed · 0 tokens · auto-approve off · fallback backup',
	);
});

test('conversations leave out the threads of code reviews', () => {
	const t = (threadId: string, review?: boolean) => ({ threadId, title: threadId, updatedAt: '2026-12-04T10:00:00Z', turns: 1, current: false, review });
	assert.deepEqual(
		conversations([t('a'), t('r', true), t('b', false)]).map((x) => x.threadId),
		['a', 'b'],
	);
});
