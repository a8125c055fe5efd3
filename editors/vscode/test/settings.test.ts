import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
	bundledServerPath,
	changedKeys,
	configurationAnswer,
	initializationOptions,
	isTrusted,
	launchChanged,
	literalPath,
	openTranscriptValue,
	programPath,
	serverCommand,
	serverLaunch,
	SERVER_KEYS,
	SettingError,
	TRUSTED_KEYS,
	TRUSTED_SERVER_KEYS,
	trustedAffected,
	trustedGetter,
	trustedSnapshot,
	untrustedAffected,
	untrustedSettings,
	withHermesFlag,
	HermesFlags,
	UNTRUSTED_SERVER_KEYS,
	type Inspected,
} from '../src/settings';

const getter = (values: Record<string, unknown>) => (key: string) => values[key];
const none = getter({});

/** Every server setting set to a value that differs from its default. */
const everything: Record<string, unknown> = {
	'codex.path': '/opt/codex',
	'codex.args': ['-c', 'model="x"'],
	'codex.home': '/h/.codex',
	'codex.env': { HOME: '/h' },
	'codex.model': 'gpt-x',
	'codex.approvalPolicy': 'never',
	'codex.sandbox': 'danger-full-access',
	'agent.kind': 'acp',
	'agent.command': 'gemini',
	'agent.args': ['--acp'],
	'agent.env': { GEMINI_API_KEY: 'k' },
	'approvals.mode': 'off',
	'approvals.timeoutSeconds': 30,
	yolo: true,
	turnTimeoutSeconds: 60,
	fallbackProviders: [{ name: 'f', kind: 'chat', baseUrl: 'http://127.0.0.1:1', model: 'm' }],
	prewarm: true,
	openTranscript: false,
	stateDir: '/tmp/state',
	serverPath: '/bin/hermes-lsp',
	serverArgs: ['-x'],
	'server.socket': 'unix:/run/h.sock',
	'server.tokenFile': '/t',
};

/** The dotted keys of a server settings object (`codex.path`, `approvals.mode`, `yolo`, …). */
function keysOf(obj: Record<string, unknown>): string[] {
	return Object.entries(obj).flatMap(([k, v]) =>
		(k === 'codex' || k === 'agent' || k === 'approvals') && typeof v === 'object' && v !== null ? Object.keys(v).map((sub) => `${k}.${sub}`) : [k],
	);
}

// --- the trusted keys -------------------------------------------------------------------------------

test("the trusted keys are the server's trusted settings plus how to start or reach the server", () => {
	assert.deepEqual([...TRUSTED_SERVER_KEYS].sort(), [
		'agent.args',
		'agent.command',
		'agent.env',
		'agent.kind',
		'approvals.mode',
		'codex.approvalPolicy',
		'codex.args',
		'codex.env',
		'codex.home',
		'codex.path',
		'codex.sandbox',
		'fallbackProviders',
		'stateDir',
		'yolo',
	]);
	assert.deepEqual([...UNTRUSTED_SERVER_KEYS].sort(), [
		'approvals.timeoutSeconds',
		'codex.model',
		'edits.review',
		'inlineStatus',
		'instructionHints',
		'openTranscript',
		'prewarm',
		'review.afterTurn.minToolCalls',
		'review.enabled',
		'turnTimeoutSeconds',
	]);
	for (const k of ['serverPath', 'serverArgs', 'server.socket', 'server.tokenFile', ...TRUSTED_SERVER_KEYS]) {
		assert.ok(isTrusted(k), k);
	}
	for (const k of UNTRUSTED_SERVER_KEYS) {
		assert.ok(!isTrusted(k), k);
	}
	assert.equal(TRUSTED_KEYS.length, 18);
});

// --- workspace/configuration and didChangeConfiguration: untrusted settings only ---------------------

test('untrustedSettings never carries a trusted key, even when every setting is set', () => {
	const got = untrustedSettings(getter(everything));
	assert.deepEqual(got, {
		codex: { model: 'gpt-x' },
		approvals: { timeoutSeconds: 30 },
		turnTimeoutSeconds: 60,
		prewarm: true,
		openTranscript: false,
		turnEvents: true,
	});
	for (const k of keysOf(got)) {
		assert.ok(!isTrusted(k), `${k} is trusted`);
	}
});

test('the workspace/configuration answer never carries a trusted key, whatever section is asked', () => {
	const untrusted = untrustedSettings(getter(everything));
	// What VS Code itself would answer (a workspace's values included).
	const editorHermes = {
		yolo: true,
		codex: { path: '${workspaceFolder}/evil', model: 'gpt-x', approvalPolicy: 'never' },
		approvals: { mode: 'off', timeoutSeconds: 30 },
		serverPath: '/evil',
	};
	const hermes = configurationAnswer('hermes', editorHermes, untrusted) as Record<string, unknown>;
	assert.deepEqual(hermes, untrusted);
	for (const k of keysOf(hermes)) {
		assert.ok(!isTrusted(k), `${k} is trusted`);
	}
	assert.deepEqual(configurationAnswer('hermes.codex', editorHermes.codex, untrusted), { model: 'gpt-x' });
	assert.equal(configurationAnswer('hermes.codex.path', '/evil', untrusted), null);
	assert.equal(configurationAnswer('hermes.yolo', true, untrusted), null);
	assert.equal(configurationAnswer('hermes.approvals.mode', 'off', untrusted), null);
	assert.equal(configurationAnswer('hermes.serverPath', '/evil', untrusted), null);
	assert.equal(configurationAnswer('hermes.turnTimeoutSeconds', 60, untrusted), 60);
	// No section: the whole configuration, with hermes replaced.
	assert.deepEqual(configurationAnswer(undefined, { editor: { tabSize: 4 }, hermes: editorHermes }, untrusted), {
		editor: { tabSize: 4 },
		hermes: untrusted,
	});
	assert.deepEqual(configurationAnswer(null, { editor: { tabSize: 4 } }, untrusted), { editor: { tabSize: 4 } });
	// Other sections: the editor's answer.
	assert.deepEqual(configurationAnswer('editor', { tabSize: 4 }, untrusted), { tabSize: 4 });
	assert.deepEqual(configurationAnswer('hermesX', 1, untrusted), 1);
});

test('untrustedSettings leaves out unset, null and empty values so the server keeps what it has', () => {
	assert.deepEqual(untrustedSettings(getter({ 'codex.model': '', openTranscript: null, prewarm: undefined })), { turnEvents: true });
});

// --- initializationOptions: everything, trusted keys from user settings only -------------------------

test('initializationOptions nests the dotted keys under hermes and always asks for turn events', () => {
	const got = initializationOptions(getter(everything), getter(everything));
	assert.deepEqual(got, {
		hermes: {
			codex: {
				model: 'gpt-x',
				path: '/opt/codex',
				args: ['-c', 'model="x"'],
				home: '/h/.codex',
				env: { HOME: '/h' },
				approvalPolicy: 'never',
				sandbox: 'danger-full-access',
			},
			agent: { kind: 'acp', command: 'gemini', args: ['--acp'], env: { GEMINI_API_KEY: 'k' } },
			approvals: { timeoutSeconds: 30, mode: 'off' },
			turnTimeoutSeconds: 60,
			prewarm: true,
			openTranscript: false,
			turnEvents: true,
			yolo: true,
			fallbackProviders: [{ name: 'f', kind: 'chat', baseUrl: 'http://127.0.0.1:1', model: 'm' }],
			stateDir: '/tmp/state',
		},
	});
});

test('initializationOptions takes trusted keys only through the trusted getter', () => {
	// The untrusted getter (VS Code's resolved value, workspace included) says yolo; it is not read for trusted keys.
	assert.deepEqual(initializationOptions(getter(everything), none), { hermes: untrustedSettings(getter(everything)) });
});

test('initializationOptions ignores a workspace value of a trusted key (inspect stub)', () => {
	const inspected: Record<string, Inspected> = {
		yolo: { defaultValue: false, workspaceValue: true },
		'approvals.mode': { defaultValue: 'manual', workspaceFolderValue: 'off' },
		'codex.approvalPolicy': { defaultValue: 'untrusted', globalValue: 'on-request', workspaceValue: 'never' },
		'codex.sandbox': { defaultValue: 'workspace-write', workspaceValue: 'danger-full-access' },
		'codex.path': { defaultValue: '', workspaceValue: '/tmp/evil/codex' },
		'codex.args': { defaultValue: [], workspaceValue: ['-c', 'x=1'] },
		'codex.env': { defaultValue: {}, workspaceFolderValue: { LD_PRELOAD: '/evil.so' } },
		'codex.home': { defaultValue: '', globalValue: '/home/u/.codex', workspaceValue: '/evil' },
		fallbackProviders: { defaultValue: [], workspaceValue: [{ name: 'e', kind: 'chat', baseUrl: 'http://evil', model: 'm' }] },
		stateDir: { defaultValue: '', workspaceValue: '/evil/state' },
		'agent.kind': { defaultValue: 'codex', workspaceValue: 'acp' },
		'agent.command': { defaultValue: '', workspaceFolderValue: '/tmp/evil/agent' },
		'agent.args': { defaultValue: [], workspaceValue: ['--evil'] },
		'agent.env': { defaultValue: {}, workspaceValue: { LD_PRELOAD: '/evil.so' } },
	};
	const trusted = trustedGetter((k) => inspected[k]);
	// A VS Code that resolves workspace values anyway (the untrusted getter) must not matter.
	const resolved = getter({ yolo: true, 'approvals.mode': 'off', 'codex.path': '/tmp/evil/codex', 'codex.model': 'm1' });
	assert.deepEqual(initializationOptions(resolved, trusted), {
		hermes: {
			codex: { model: 'm1', home: '/home/u/.codex', approvalPolicy: 'on-request', sandbox: 'workspace-write', args: [], env: {} },
			agent: { kind: 'codex' },
			approvals: { mode: 'manual' },
			yolo: false,
			fallbackProviders: [],
			turnEvents: true,
		},
	});
});

test('trustedGetter: the user value, else the default, never a workspace value', () => {
	const get = trustedGetter(
		(k) =>
			(
				({
					a: { defaultValue: 1, globalValue: 2, workspaceValue: 3, workspaceFolderValue: 4 },
					b: { defaultValue: 1, workspaceValue: 3 },
					c: { workspaceValue: 3, workspaceFolderValue: 4 },
					d: { defaultValue: true, globalValue: false },
				}) as Record<string, Inspected>
			)[k],
	);
	assert.equal(get('a'), 2);
	assert.equal(get('b'), 1);
	assert.equal(get('c'), undefined);
	assert.equal(get('d'), false);
	assert.equal(get('missing'), undefined);
});

test('initializationOptions sends the token as hermes.token, and never the client-only keys nor commandPrefix', () => {
	const odd = getter({ serverPath: '/bin/hermes-lsp', serverArgs: ['-x'], 'server.socket': 'unix:/s', commandPrefix: 'x.', turnEvents: false });
	assert.deepEqual(initializationOptions(odd, odd), { hermes: { turnEvents: true } });
	assert.deepEqual(initializationOptions(none, none, {}, 's3cret'), { hermes: { turnEvents: true, token: 's3cret' } });
});

test('initializationOptions copies values rather than sharing them', () => {
	const args = ['a'];
	const got = initializationOptions(none, getter({ 'codex.args': args })) as { hermes: { codex: { args: string[] } } };
	got.hermes.codex.args.push('b');
	assert.deepEqual(args, ['a']);
});

// --- paths are literal ---------------------------------------------------------------------------------

test('${workspaceFolder} in a path is not expanded: it is refused', () => {
	for (const key of ['codex.path', 'codex.home', 'stateDir', 'agent.command']) {
		assert.throws(
			() => initializationOptions(none, getter({ [key]: '${workspaceFolder}/bin/codex' }), { home: '/home/u' }),
			(err: unknown) => err instanceof SettingError && err.key === key && /not expanded/.test(err.message) && /Use an absolute path/.test(err.message),
			key,
		);
	}
	assert.throws(
		() => serverLaunch(getter({ serverPath: '${workspaceFolder}/bin/hermes-lsp' }), { home: '/home/u' }),
		(err: unknown) =>
			err instanceof SettingError &&
			err.key === 'serverPath' &&
			err.message.includes('"${workspaceFolder}/bin/hermes-lsp"') &&
			/Use an absolute path/.test(err.message),
	);
	assert.throws(() => serverLaunch(getter({ serverArgs: ['--log-file', '${workspaceFolder}/h.log'] })), /hermes\.serverArgs.*not expanded/);
	assert.throws(() => literalPath('codex.path', '/opt/${env:HOME}/codex'), /not expanded/);
});

test('a relative path is refused', () => {
	assert.throws(
		() => initializationOptions(none, getter({ 'codex.path': 'bin/codex' })),
		(err: unknown) =>
			err instanceof SettingError &&
			err.key === 'codex.path' &&
			err.message === 'hermes.codex.path is "bin/codex", a relative path. Use an absolute path.',
	);
	assert.throws(
		() => serverLaunch(getter({ serverPath: './hermes-lsp' })),
		/hermes\.serverPath is "\.\/hermes-lsp", a relative path\. Use an absolute path\./,
	);
	assert.throws(() => literalPath('stateDir', '~/x'), /relative path/); // no home known: ~ stays, and is relative
});

test('a path is used literally; only a leading ~/ is your home folder', () => {
	const got = initializationOptions(
		getter({ 'codex.model': '~model' }),
		getter({ 'codex.path': '~/bin/codex', stateDir: '~', 'codex.home': '/a/$HOME/~/b' }),
		{
			home: '/home/u',
		},
	);
	assert.deepEqual(got, { hermes: { codex: { model: '~model', path: '/home/u/bin/codex', home: '/a/$HOME/~/b' }, stateDir: '/home/u', turnEvents: true } });
	assert.throws(() => literalPath('codex.path', '~user/x', { home: '/h' }), /relative path/);
});

// --- how to start or reach the server -----------------------------------------------------------------

test('every server key is one the server knows (docs/protocol.md)', () => {
	const known = new Set([
		'codex',
		'agent',
		'approvals',
		'yolo',
		'turnTimeoutSeconds',
		'fallbackProviders',
		'prewarm',
		'openTranscript',
		'turnEvents',
		'commandPrefix',
		'stateDir',
		'inlineStatus',
		'instructionHints',
		'review',
		'edits',
	]);
	for (const k of SERVER_KEYS) {
		assert.ok(known.has(k.split('.')[0]), k);
	}
	assert.equal(SERVER_KEYS.length, 24);
});

// --- the agent ------------------------------------------------------------------------------------------

test('agent.command is a program: a bare name for the server to find on PATH, else an absolute path', () => {
	const trusted = (command: string) => initializationOptions(none, getter({ 'agent.kind': 'acp', 'agent.command': command }), { home: '/home/u' });
	assert.deepEqual(trusted('gemini').hermes.agent, { kind: 'acp', command: 'gemini' });
	assert.deepEqual(trusted(' claude-agent-acp ').hermes.agent, { kind: 'acp', command: 'claude-agent-acp' });
	assert.deepEqual(trusted('/opt/bin/codex-acp').hermes.agent, { kind: 'acp', command: '/opt/bin/codex-acp' });
	assert.deepEqual(trusted('~/.npm-global/bin/gemini').hermes.agent, { kind: 'acp', command: '/home/u/.npm-global/bin/gemini' });
	for (const bad of ['bin/gemini', './gemini', '~user/gemini', '${env:HOME}', '${workspaceFolder}/gemini', 'bin\\gemini']) {
		assert.throws(
			() => trusted(bad),
			(err: unknown) => err instanceof SettingError && err.key === 'agent.command' && /Use an absolute path/.test(err.message),
			bad,
		);
	}
	assert.equal(programPath('agent.command', 'gemini'), 'gemini');
});

test('agent.command, agent.args and agent.env go to the server with agent.kind acp only', () => {
	const acp = { 'agent.command': 'gemini', 'agent.args': ['--acp'], 'agent.env': { GEMINI_API_KEY: 'k' } };
	assert.deepEqual(initializationOptions(none, getter({ ...acp, 'agent.kind': 'acp' })).hermes.agent, {
		kind: 'acp',
		command: 'gemini',
		args: ['--acp'],
		env: { GEMINI_API_KEY: 'k' },
	});
	// codex (the default) runs from codex.path: switching agent.kind back is all it takes.
	assert.deepEqual(initializationOptions(none, getter({ ...acp, 'agent.kind': 'codex' })).hermes.agent, { kind: 'codex' });
	assert.ok(!('agent' in initializationOptions(none, getter(acp)).hermes));
	// A kind the server does not know goes to it as it is, and the server refuses it.
	assert.deepEqual(initializationOptions(none, getter({ ...acp, 'agent.kind': 'other' })).hermes.agent, { kind: 'other' });
	// The defaults: an ACP agent with no arguments and no environment of its own.
	assert.deepEqual(initializationOptions(none, getter({ 'agent.kind': 'acp', 'agent.command': 'x', 'agent.args': [], 'agent.env': {} })).hermes.agent, {
		kind: 'acp',
		command: 'x',
		args: [],
		env: {},
	});
});

test('the agent settings never answer workspace/configuration, and a change offers a restart', () => {
	const untrusted = untrustedSettings(getter(everything));
	assert.ok(!('agent' in untrusted));
	assert.equal(configurationAnswer('hermes.agent.command', 'gemini', untrusted), null);
	assert.equal(configurationAnswer('hermes.agent', { kind: 'acp' }, untrusted), null);
	for (const key of ['agent.kind', 'agent.command', 'agent.args', 'agent.env']) {
		assert.deepEqual(
			trustedAffected((s) => s === 'hermes.' + key || s === 'hermes'),
			[key],
		);
		assert.equal(
			launchChanged((s) => s === 'hermes.' + key),
			false,
			key,
		);
		assert.equal(
			untrustedAffected((s) => s === 'hermes.' + key),
			false,
			key,
		);
	}
	assert.deepEqual(changedKeys(trustedSnapshot(getter({ 'agent.kind': 'codex' })), trustedSnapshot(getter({ 'agent.kind': 'acp' }))), ['agent.kind']);
});

test('edits.review travels nested, as the server reads it', () => {
	assert.deepEqual(untrustedSettings((k) => (k === 'edits.review' ? false : undefined)).edits, { review: false });
});

test('review settings travel nested, as the server reads them', () => {
	const values: Record<string, unknown> = { 'review.enabled': false, 'review.afterTurn.minToolCalls': 5, inlineStatus: false };
	const out = untrustedSettings((k) => values[k]);
	assert.deepEqual(out.review, { enabled: false, afterTurn: { minToolCalls: 5 } });
	assert.equal(out.inlineStatus, false);
});

// --- hermes.openTranscript: an enum, the former booleans still read -----------------------------------

test('openTranscript: always and never reach the server as true and false; auto is left to the server', () => {
	assert.equal(openTranscriptValue('always'), true);
	assert.equal(openTranscriptValue('never'), false);
	assert.equal(openTranscriptValue('auto'), undefined);
	// The former values: true, false, and null (unset).
	assert.equal(openTranscriptValue(true), true);
	assert.equal(openTranscriptValue(false), false);
	assert.equal(openTranscriptValue(null), undefined);
	assert.equal(openTranscriptValue('sometimes'), undefined);
	assert.equal(untrustedSettings(getter({ openTranscript: 'always' })).openTranscript, true);
	assert.equal(untrustedSettings(getter({ openTranscript: 'never' })).openTranscript, false);
	assert.equal(untrustedSettings(getter({ openTranscript: false })).openTranscript, false);
	assert.ok(!('openTranscript' in untrustedSettings(getter({ openTranscript: 'auto' }))));
	assert.ok(!('openTranscript' in initializationOptions(getter({ openTranscript: 'auto' }), none).hermes));
	assert.equal(initializationOptions(getter({ openTranscript: 'always' }), none).hermes.openTranscript, true);
});

// --- the bundled server -------------------------------------------------------------------------------

test('serverCommand: hermes.serverPath, else the bundled server, else hermes-lsp on PATH', () => {
	const bundled = '/ext/server/hermes-lsp';
	assert.equal(serverCommand('/opt/hermes-lsp', { bundledServer: bundled }), '/opt/hermes-lsp');
	assert.equal(serverCommand('~/bin/hermes-lsp', { home: '/home/u', bundledServer: bundled }), '/home/u/bin/hermes-lsp');
	assert.equal(serverCommand('', { bundledServer: bundled }), bundled);
	assert.equal(serverCommand('  ', { bundledServer: bundled }), bundled);
	assert.equal(serverCommand(undefined, { bundledServer: bundled }), bundled);
	assert.equal(serverCommand(undefined, {}), 'hermes-lsp');
	assert.throws(() => serverCommand('bin/hermes-lsp', { bundledServer: bundled }), /relative path/);
	assert.deepEqual(serverLaunch(none, { bundledServer: bundled }), { kind: 'spawn', command: bundled, args: ['--stdio'] });
	// A socket still wins over both.
	assert.equal(serverLaunch(getter({ 'server.socket': 'unix:/run/h.sock' }), { bundledServer: bundled }).kind, 'socket');
});

test('bundledServerPath: server/hermes-lsp in the extension, hermes-lsp.exe on Windows', () => {
	assert.equal(
		bundledServerPath('/home/u/.vscode/extensions/hermes-lsp.hermes-lsp-0.1.0-linux-x64', 'linux'),
		'/home/u/.vscode/extensions/hermes-lsp.hermes-lsp-0.1.0-linux-x64/server/hermes-lsp',
	);
	assert.equal(bundledServerPath('/Users/u/.vscode/extensions/x', 'darwin'), '/Users/u/.vscode/extensions/x/server/hermes-lsp');
	assert.equal(bundledServerPath('C:\\Users\\u\\.vscode\\extensions\\x', 'win32'), 'C:\\Users\\u\\.vscode\\extensions\\x\\server\\hermes-lsp.exe');
});

test('the client says it shows turns and asks questions itself in experimental.hermes, keeping what is there', () => {
	assert.deepEqual(withHermesFlag(undefined, ...HermesFlags), { hermes: { showsTurns: true, asksQuestions: true } });
	assert.deepEqual(withHermesFlag(undefined, 'showsTurns'), { hermes: { showsTurns: true } });
	assert.deepEqual(withHermesFlag({ other: 1, hermes: { reloadsBuffers: true } }, 'showsTurns'), {
		other: 1,
		hermes: { reloadsBuffers: true, showsTurns: true },
	});
});
