import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { Command, Titles } from '../src/commands';
import { ServerCommand } from '../src/protocol';
import { LAUNCH_KEYS, SERVER_KEYS, TRUSTED_KEYS, TRUSTED_SCOPES, UNTRUSTED_SERVER_KEYS } from '../src/settings';

// package.json, checked against the code that uses it.
const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
const contributed: { command: string; title: string; category: string }[] = manifest.contributes.commands;

test('every command is contributed with its palette title, under ids that are not the server\'s', () => {
	for (const [key, id] of Object.entries(Command)) {
		const c = contributed.find((x) => x.command === id);
		assert.ok(c, `${id} is not contributed`);
		assert.equal(`${c.category}: ${c.title}`, `Hermes: ${Titles[key as keyof typeof Command]}`);
	}
	assert.equal(contributed.length, Object.keys(Command).length);
	const serverIds = new Set<string>(Object.values(ServerCommand));
	for (const c of contributed) {
		assert.ok(!serverIds.has(c.command) && !c.command.startsWith('hermes.'), `${c.command} would collide with the server's commands`);
	}
	assert.deepEqual(
		Object.values(Titles).map((t) => `Hermes: ${t}`),
		['Hermes: Ask…', 'Hermes: Ask About Selection', 'Hermes: Stop Turn', 'Hermes: New Thread', 'Hermes: Show Transcript', 'Hermes: Toggle Auto-approve', 'Hermes: Show Status', 'Hermes: Restart Server', 'Hermes: Undo Last Turn', 'Hermes: Review Changes', 'Hermes: Dismiss Review Findings', 'Hermes: Open Chat'],
	);
});

test('Ask has a keybinding', () => {
	const kb = manifest.contributes.keybindings.find((k: { command: string }) => k.command === Command.ask);
	assert.equal(kb.key, 'ctrl+alt+h');
	assert.equal(kb.mac, 'cmd+alt+h');
});

test('every setting the extension reads is contributed, and nothing else', () => {
	const props = Object.keys(manifest.contributes.configuration.properties).sort();
	const want = [...SERVER_KEYS, ...LAUNCH_KEYS].map((k) => `hermes.${k}`).sort();
	assert.deepEqual(props, want);
});

test('every trusted setting has machine or application scope, so a workspace cannot set it, and says so', () => {
	const props: Record<string, { scope?: string; markdownDescription?: string; description?: string }> = manifest.contributes.configuration.properties;
	for (const key of TRUSTED_KEYS) {
		const p = props[`hermes.${key}`];
		assert.ok(p, `hermes.${key} is not contributed`);
		assert.ok(p.scope === 'machine' || p.scope === 'application', `hermes.${key} has scope ${p.scope}`);
		assert.equal(p.scope, TRUSTED_SCOPES[key], `hermes.${key}`);
		assert.match(p.markdownDescription ?? p.description ?? '', /cannot be set per workspace/, `hermes.${key}`);
	}
	assert.deepEqual(
		Object.entries(props)
			.filter(([, p]) => p.scope === 'machine' || p.scope === 'application')
			.map(([k]) => k.slice('hermes.'.length))
			.sort(),
		[...TRUSTED_KEYS].sort(),
	);
	for (const key of UNTRUSTED_SERVER_KEYS) {
		assert.doesNotMatch(props[`hermes.${key}`].markdownDescription ?? '', /cannot be set per workspace/, `hermes.${key}`);
	}
});

test('disabled in untrusted workspaces; bundled; activates on startup', () => {
	assert.equal(manifest.capabilities.untrustedWorkspaces.supported, false);
	assert.equal(manifest.main, './dist/extension.js');
	assert.deepEqual(manifest.activationEvents, ['onStartupFinished']);
	assert.ok(manifest.engines.vscode.startsWith('^1.'));
	assert.deepEqual(Object.keys(manifest.dependencies), ['markdown-it', 'vscode-languageclient']);
});
