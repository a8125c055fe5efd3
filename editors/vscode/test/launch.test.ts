// How the extension starts or reaches the server, and when a settings change restarts it.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
	changedKeys,
	launchChanged,
	parseSocket,
	restartMessage,
	serverLaunch,
	SettingError,
	TRUSTED_KEYS,
	trustedAffected,
	trustedSnapshot,
	untrustedAffected,
} from '../src/settings';

const getter = (values: Record<string, unknown>) => (key: string) => values[key];
const none = getter({});

test('serverLaunch defaults to hermes-lsp on PATH over stdio', () => {
	assert.deepEqual(serverLaunch(none), { kind: 'spawn', command: 'hermes-lsp', args: ['--stdio'] });
	assert.deepEqual(serverLaunch(getter({ serverPath: '  ', 'server.socket': ' ' })), { kind: 'spawn', command: 'hermes-lsp', args: ['--stdio'] });
});

test('serverLaunch takes hermes.serverPath and hermes.serverArgs', () => {
	assert.deepEqual(
		serverLaunch(getter({ serverPath: '~/go/bin/hermes-lsp', serverArgs: ['--log-level', 'debug', '--stdio', 7, '--log-file', '~/h.log'] }), {
			home: '/home/u',
		}),
		{
			kind: 'spawn',
			command: '/home/u/go/bin/hermes-lsp',
			args: ['--stdio', '--log-level', 'debug', '--log-file', '/home/u/h.log'],
		},
	);
});

test('serverLaunch connects to hermes.server.socket instead, with hermes.server.tokenFile', () => {
	assert.deepEqual(serverLaunch(getter({ 'server.socket': 'unix:/run/user/1/hermes.sock', serverPath: '/bin/x' })), {
		kind: 'socket',
		address: { path: '/run/user/1/hermes.sock' },
		label: 'unix:/run/user/1/hermes.sock',
	});
	assert.deepEqual(serverLaunch(getter({ 'server.socket': 'tcp:127.0.0.1:7777', 'server.tokenFile': '~/.config/hermes-lsp/token' }), { home: '/home/u' }), {
		kind: 'socket',
		address: { host: '127.0.0.1', port: 7777 },
		label: 'tcp:127.0.0.1:7777',
		tokenFile: '/home/u/.config/hermes-lsp/token',
	});
	assert.throws(
		() => serverLaunch(getter({ 'server.socket': 'tcp:127.0.0.1:7777', 'server.tokenFile': '${workspaceFolder}/token' })),
		/server\.tokenFile.*not expanded/,
	);
});

test('parseSocket reads unix:/path and tcp:HOST:PORT and refuses the rest', () => {
	assert.deepEqual(parseSocket('unix:/tmp/h.sock'), { path: '/tmp/h.sock' });
	assert.deepEqual(parseSocket('unix:~/h.sock', { home: '/home/u' }), { path: '/home/u/h.sock' });
	assert.deepEqual(parseSocket('tcp:localhost:1'), { host: 'localhost', port: 1 });
	assert.deepEqual(parseSocket('tcp:[::1]:65535'), { host: '::1', port: 65535 });
	for (const bad of [
		'unix:',
		'unix:rel.sock',
		'unix:${workspaceFolder}/s',
		'tcp:127.0.0.1',
		'tcp::7777',
		'tcp:127.0.0.1:0',
		'tcp:127.0.0.1:70000',
		'tcp:h:p',
		'127.0.0.1:7777',
		'/tmp/h.sock',
	]) {
		assert.throws(
			() => parseSocket(bad),
			(err: unknown) => err instanceof SettingError && err.key === 'server.socket',
			bad,
		);
	}
	assert.throws(() => parseSocket('127.0.0.1:7777'), /use unix:\/absolute\/path or tcp:127\.0\.0\.1:PORT/);
});

// --- configuration changes --------------------------------------------------------------------------

test('launchChanged: serverPath, serverArgs and the socket settings restart the server', () => {
	assert.equal(
		launchChanged((s) => s === 'hermes.serverPath'),
		true,
	);
	assert.equal(
		launchChanged((s) => s === 'hermes.serverArgs'),
		true,
	);
	assert.equal(
		launchChanged((s) => s === 'hermes.server.socket'),
		true,
	);
	assert.equal(
		launchChanged((s) => s === 'hermes.server.tokenFile'),
		true,
	);
	assert.equal(
		launchChanged((s) => s === 'hermes.codex.path' || s === 'hermes'),
		false,
	);
});

test('a trusted change offers a restart; an untrusted one is pushed', () => {
	assert.deepEqual(
		trustedAffected((s) => s === 'hermes.codex.path' || s === 'hermes'),
		['codex.path'],
	);
	assert.deepEqual(
		trustedAffected((s) => s === 'hermes.turnTimeoutSeconds'),
		[],
	);
	assert.equal(
		untrustedAffected((s) => s === 'hermes.turnTimeoutSeconds'),
		true,
	);
	assert.equal(
		untrustedAffected((s) => s === 'hermes.yolo' || s === 'hermes'),
		false,
	);
	assert.equal(restartMessage(['codex.path']), 'Hermes: restart the server to apply hermes.codex.path');
	assert.equal(restartMessage(['yolo', 'stateDir']), 'Hermes: restart the server to apply hermes.yolo, hermes.stateDir');
});

test('trustedSnapshot and changedKeys tell which trusted values really changed', () => {
	const before = trustedSnapshot(getter({ 'codex.path': '/a', yolo: false, 'codex.env': { A: '1' } }));
	assert.deepEqual(changedKeys(before, trustedSnapshot(getter({ 'codex.path': '/a', yolo: false, 'codex.env': { A: '1' } }))), []);
	assert.deepEqual(changedKeys(before, trustedSnapshot(getter({ 'codex.path': '/b', yolo: false, 'codex.env': { A: '2' }, serverPath: '/s' }))), [
		'serverPath',
		'codex.path',
		'codex.env',
	]);
	assert.deepEqual(Object.keys(before).sort(), [...TRUSTED_KEYS].sort());
});
