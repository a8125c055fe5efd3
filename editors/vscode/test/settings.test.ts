import assert from 'node:assert/strict';
import { test } from 'node:test';

import { expandPath, launchChanged, serverLaunch, serverSettings, SERVER_KEYS } from '../src/settings';

const getter = (values: Record<string, unknown>) => (key: string) => values[key];

test('serverSettings nests the dotted keys and always asks for turn events', () => {
	const got = serverSettings(
		getter({
			'codex.path': '/opt/codex',
			'codex.args': ['-c', 'model="x"'],
			'codex.env': { HOME: '/h' },
			'codex.approvalPolicy': 'untrusted',
			'approvals.mode': 'manual',
			'approvals.timeoutSeconds': 30,
			yolo: false,
			turnTimeoutSeconds: 600,
			fallbackProviders: [{ name: 'f', kind: 'chat', baseUrl: 'http://127.0.0.1:1', model: 'm' }],
			prewarm: true,
			stateDir: '/tmp/state',
		}),
	);
	assert.deepEqual(got, {
		codex: { path: '/opt/codex', args: ['-c', 'model="x"'], env: { HOME: '/h' }, approvalPolicy: 'untrusted' },
		approvals: { mode: 'manual', timeoutSeconds: 30 },
		yolo: false,
		turnTimeoutSeconds: 600,
		fallbackProviders: [{ name: 'f', kind: 'chat', baseUrl: 'http://127.0.0.1:1', model: 'm' }],
		prewarm: true,
		stateDir: '/tmp/state',
		turnEvents: true,
	});
});

test('serverSettings leaves out unset, null and empty values so the server keeps its defaults', () => {
	const got = serverSettings(getter({ 'codex.path': '', 'codex.model': '', openTranscript: null, stateDir: undefined, 'codex.home': '' }));
	assert.deepEqual(got, { turnEvents: true });
});

test('serverSettings never sends the client-only keys nor commandPrefix', () => {
	const got = serverSettings(getter({ serverPath: '/bin/hermes-lsp', serverArgs: ['-x'], commandPrefix: 'x.', turnEvents: false }));
	assert.deepEqual(got, { turnEvents: true });
});

test('serverSettings copies values rather than sharing them', () => {
	const args = ['a'];
	const got = serverSettings(getter({ 'codex.args': args })) as { codex: { args: string[] } };
	got.codex.args.push('b');
	assert.deepEqual(args, ['a']);
});

test('serverSettings expands ~ and ${workspaceFolder} in paths only', () => {
	const got = serverSettings(
		getter({ 'codex.path': '~/bin/codex', 'codex.home': '${workspaceFolder}/.codex', stateDir: '~', 'codex.model': '~model' }),
		{ home: '/home/u', workspaceFolder: '/w' },
	);
	assert.deepEqual(got, { codex: { path: '/home/u/bin/codex', home: '/w/.codex', model: '~model' }, stateDir: '/home/u', turnEvents: true });
});

test('every server key is one the server knows (docs/protocol.md)', () => {
	const known = new Set(['codex', 'approvals', 'yolo', 'turnTimeoutSeconds', 'fallbackProviders', 'prewarm', 'openTranscript', 'turnEvents', 'commandPrefix', 'stateDir']);
	for (const k of SERVER_KEYS) {
		assert.ok(known.has(k.split('.')[0]), k);
	}
	assert.equal(SERVER_KEYS.length, 15);
});

test('serverLaunch defaults to hermes-lsp on PATH over stdio', () => {
	assert.deepEqual(serverLaunch(getter({})), { command: 'hermes-lsp', args: ['--stdio'] });
	assert.deepEqual(serverLaunch(getter({ serverPath: '  ' })), { command: 'hermes-lsp', args: ['--stdio'] });
});

test('serverLaunch takes hermes.serverPath and hermes.serverArgs', () => {
	assert.deepEqual(
		serverLaunch(getter({ serverPath: '~/go/bin/hermes-lsp', serverArgs: ['--log-level', 'debug', '--stdio', 7, '--log-file', '${workspaceFolder}/h.log'] }), {
			home: '/home/u',
			workspaceFolder: '/w',
		}),
		{ command: '/home/u/go/bin/hermes-lsp', args: ['--stdio', '--log-level', 'debug', '--log-file', '/w/h.log'] },
	);
});

test('launchChanged: only serverPath and serverArgs need a restart', () => {
	assert.equal(launchChanged((s) => s === 'hermes.serverPath'), true);
	assert.equal(launchChanged((s) => s === 'hermes.serverArgs'), true);
	assert.equal(launchChanged((s) => s === 'hermes.codex.path' || s === 'hermes'), false);
});

test('expandPath leaves other text alone', () => {
	assert.equal(expandPath('a~/b', { home: '/h' }), 'a~/b');
	assert.equal(expandPath('~user/x', { home: '/h' }), '~user/x');
	assert.equal(expandPath('${workspaceFolder}', {}), '${workspaceFolder}');
});
