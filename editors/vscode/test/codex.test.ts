import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { CODEX_VERSION, codexFromArgs, findCodex, findOnPath, installCommand, isExecutable, missingCodexMessage, pathCandidates } from '../src/codex';

test('the install command pins the version hermes-lsp is tested with', () => {
	assert.equal(CODEX_VERSION, '0.171.0');
	assert.equal(installCommand(), 'npm install -g @openai/codex@0.171.0');
});

test('pathCandidates: each PATH entry, in order; on Windows with each PATHEXT extension', () => {
	assert.deepEqual(pathCandidates('codex', { PATH: '/usr/local/bin::/usr/bin' }, 'linux'), ['/usr/local/bin/codex', '/usr/bin/codex']);
	assert.deepEqual(pathCandidates('codex', {}, 'darwin'), []);
	// Windows: Path in any case, quoted entries, PATHEXT's extensions (lower-cased), npm's codex.cmd found.
	assert.deepEqual(pathCandidates('codex', { Path: 'C:\\nodejs;"C:\\Program Files\\x"', PATHEXT: '.EXE;.CMD' }, 'win32'), [
		'C:\\nodejs\\codex.exe',
		'C:\\nodejs\\codex.cmd',
		'C:\\Program Files\\x\\codex.exe',
		'C:\\Program Files\\x\\codex.cmd',
	]);
	// Without PATHEXT, Windows' default list; a name with an extension is taken as it is.
	assert.deepEqual(pathCandidates('codex', { PATH: 'C:\\bin' }, 'win32'), [
		'C:\\bin\\codex.com',
		'C:\\bin\\codex.exe',
		'C:\\bin\\codex.bat',
		'C:\\bin\\codex.cmd',
	]);
	assert.deepEqual(pathCandidates('codex.CMD', { PATH: 'C:\\bin', PATHEXT: '.EXE;.CMD' }, 'win32'), ['C:\\bin\\codex.CMD']);
});

test('findCodex: hermes.codex.path when set, else the first codex on PATH', async () => {
	const files = new Set(['/opt/codex', '/usr/bin/codex', 'C:\\npm\\codex.cmd']);
	const exists = (p: string) => Promise.resolve(files.has(p));
	const env = { PATH: '/usr/local/bin:/usr/bin' };
	assert.deepEqual(await findCodex('/opt/codex', env, 'linux', {}, exists), { found: true, path: '/opt/codex', from: 'setting' });
	assert.deepEqual(await findCodex('~/codex', env, 'linux', { home: '/home/u' }, exists), { found: false, from: 'setting', path: '/home/u/codex' });
	assert.deepEqual(await findCodex('', env, 'linux', {}, exists), { found: true, path: '/usr/bin/codex', from: 'path' });
	assert.deepEqual(await findCodex(undefined, { PATH: '/nowhere' }, 'linux', {}, exists), { found: false, from: 'path' });
	assert.deepEqual(await findCodex(undefined, { PATH: 'C:\\npm', PATHEXT: '.EXE;.CMD' }, 'win32', {}, exists), {
		found: true,
		path: 'C:\\npm\\codex.cmd',
		from: 'path',
	});
	// A path the server would refuse is reported as such.
	const bad = await findCodex('${workspaceFolder}/codex', env, 'linux', {}, exists);
	assert.equal(bad.found, false);
	assert.equal(bad.from, 'invalid');
});

test('missingCodexMessage says where codex was looked for and what to do', () => {
	assert.match(missingCodexMessage({ found: false, from: 'path' }), /not found on PATH.*codex 0\.171\.0.*hermes\.codex\.path/);
	assert.match(missingCodexMessage({ found: false, from: 'setting', path: '/opt/codex' }), /not found at \/opt\/codex \(hermes\.codex\.path\)/);
	assert.equal(
		missingCodexMessage({ found: false, from: 'invalid', message: 'hermes.codex.path is "x", a relative path.' }),
		'Hermes: hermes.codex.path is "x", a relative path.',
	);
});

test('isExecutable and findOnPath on real files: an executable file, not a folder nor a plain file', { skip: process.platform === 'win32' }, async () => {
	const dir = mkdtempSync(join(tmpdir(), 'hermes-codex-'));
	try {
		mkdirSync(join(dir, 'a'));
		mkdirSync(join(dir, 'b'));
		mkdirSync(join(dir, 'a', 'codex')); // a folder named codex
		writeFileSync(join(dir, 'b', 'codex'), '#!/bin/sh\n');
		assert.equal(await isExecutable(join(dir, 'b', 'codex')), false, 'not executable yet');
		assert.equal(await findOnPath('codex', { PATH: `${join(dir, 'a')}:${join(dir, 'b')}` }, process.platform), undefined);
		chmodSync(join(dir, 'b', 'codex'), 0o755);
		assert.equal(await findOnPath('codex', { PATH: `${join(dir, 'a')}:${join(dir, 'b')}` }, process.platform), join(dir, 'b', 'codex'));
		assert.equal(await isExecutable(join(dir, 'missing')), false);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("codexFromArgs: the server's --codex flag in hermes.serverArgs, which wins over hermes.codex.path", () => {
	assert.equal(codexFromArgs(undefined), undefined);
	assert.equal(codexFromArgs(['--log-level', 'debug']), undefined);
	assert.equal(codexFromArgs(['--codex', '/opt/codex', '--log-level', 'debug']), '/opt/codex');
	assert.equal(codexFromArgs(['--codex=/opt/codex']), '/opt/codex');
	assert.equal(codexFromArgs(['-codex', '/a', '--codex=/b']), '/b'); // the last one counts, as with Go's flag package
	assert.equal(codexFromArgs(['--codex']), undefined);
});
