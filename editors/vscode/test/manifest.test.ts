import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { AgentLacksKeys } from '../src/agent';
import { Command, Titles } from '../src/commands';
import { ServerCommand } from '../src/protocol';
import { LAUNCH_KEYS, SERVER_KEYS, TRUSTED_KEYS, TRUSTED_SCOPES, UNTRUSTED_SERVER_KEYS } from '../src/settings';

// package.json, checked against the code that uses it.
const root = join(__dirname, '..', '..');

/** The parts of package.json the tests read. */
interface Manifest {
	license: string;
	icon: string;
	version: string;
	main: string;
	categories: string[];
	activationEvents: string[];
	engines: { vscode: string };
	scripts: Record<string, string>;
	dependencies: Record<string, string>;
	devDependencies: Record<string, string>;
	capabilities: { untrustedWorkspaces: { supported: boolean } };
	contributes: {
		commands: { command: string; title: string; category: string }[];
		keybindings: Keybinding[];
		configuration: { properties: Record<string, Prop> };
		menus: Record<string, { command: string; when?: string }[]>;
		walkthroughs: {
			id: string;
			steps: { id: string; description: string; media: { markdown?: string }; completionEvents: string[] }[];
		}[];
	};
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
const contributed = manifest.contributes.commands;

test("every command is contributed with its palette title, under ids that are not the server's", () => {
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
		[
			'Hermes: Ask…',
			'Hermes: Ask About Selection',
			'Hermes: Stop Turn',
			'Hermes: New Thread',
			'Hermes: Compact',
			'Hermes: Show Transcript',
			'Hermes: Toggle Auto-approve',
			'Hermes: Show Status',
			'Hermes: Restart Server',
			'Hermes: Undo Last Turn',
			'Hermes: Review Changes',
			'Hermes: Dismiss Review Findings',
			'Hermes: Open Chat',
			'Hermes: Answer Approval…',
			'Hermes: Sign In',
			'Hermes: Install Codex',
			'Hermes: Threads…',
			'Hermes: Model…',
			'Hermes: Next Change',
			'Hermes: Previous Change',
			'Hermes: Keep Change',
			'Hermes: Revert Change',
			'Hermes: Show Agent Changes',
			'Hermes: Keep Changes in File',
			'Hermes: Revert Changes in File',
		],
	);
});

type Keybinding = { command: string; key: string; mac?: string; when?: string };
const keybindings: Keybinding[] = manifest.contributes.keybindings;

test('Ask and Ask About Selection have keybindings; on macOS none shadows Hide Others (cmd+alt+h)', () => {
	const ask = keybindings.find((k) => k.command === Command.ask);
	const sel = keybindings.find((k) => k.command === Command.askSelection);
	assert.ok(ask && sel);
	assert.equal(ask.key, 'ctrl+alt+h');
	assert.equal(ask.mac, 'ctrl+cmd+h');
	assert.equal(sel.key, 'ctrl+alt+shift+h');
	assert.equal(sel.mac, 'ctrl+shift+cmd+h');
	for (const k of keybindings) {
		const mac = (k.mac ?? k.key).split(' ');
		// macOS's Hide (cmd+h) and Hide Others (cmd+alt+h), and VS Code's Toggle Output chord (cmd+k cmd+h).
		for (const taken of [['cmd+h'], ['cmd+alt+h'], ['alt+cmd+h'], ['cmd+k', 'cmd+h']]) {
			assert.notDeepEqual(mac, taken, `${k.command}'s mac key ${k.mac}`);
		}
	}
	// The README tells the keys as package.json binds them.
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	for (const k of [ask, sel]) {
		assert.ok(readme.includes(`\`${k.key}\``) && readme.includes(`\`${k.mac}\``), `README names ${k.key} and ${k.mac}`);
	}
});

test('the change commands have keys while changes are under review, named in the README', () => {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	for (const id of [Command.nextChange, Command.previousChange, Command.keepChange, Command.revertChange]) {
		const k = keybindings.find((x) => x.command === id);
		assert.ok(k, `${id} has a keybinding`);
		assert.equal(k.when, 'editorTextFocus && hermes.hasChanges', id);
		assert.ok(readme.includes(`\`${k.key}\``) && readme.includes(`\`${k.mac}\``), `README names ${k.key} and ${k.mac}`);
	}
	// The file buttons show in the review diff's title bar only.
	const title = manifest.contributes.menus['editor/title'].map((m) => m.command);
	assert.deepEqual(title, [Command.keepFile, Command.revertFile]);
});

/** The settings vscode-languageclient reads itself (not the extension): the client id's trace. */
const CLIENT_SETTINGS = ['hermes-lsp.trace.server'];

test('every setting the extension reads is contributed, and nothing else', () => {
	const props = Object.keys(manifest.contributes.configuration.properties).sort();
	const want = [...SERVER_KEYS, ...LAUNCH_KEYS]
		.map((k) => `hermes.${k}`)
		.concat(CLIENT_SETTINGS)
		.sort();
	assert.deepEqual(props, want);
});

type Prop = {
	type?: string | string[];
	enum?: unknown[];
	enumDescriptions?: string[];
	default?: unknown;
	scope?: string;
	markdownDescription?: string;
	description?: string;
};
const props: Record<string, Prop> = manifest.contributes.configuration.properties;

test('every enum setting describes each of its values', () => {
	for (const key of [
		'hermes.codex.sandbox',
		'hermes.codex.approvalPolicy',
		'hermes.openTranscript',
		'hermes.approvals.mode',
		'hermes.agent.kind',
		'hermes-lsp.trace.server',
	]) {
		const p = props[key];
		assert.ok(p.enum && p.enumDescriptions, `${key} has enum and enumDescriptions`);
		assert.equal(p.enumDescriptions.length, p.enum.length, key);
		assert.ok(p.enum.includes(p.default), `${key}'s default is one of its values`);
	}
	for (const [key, p] of Object.entries(props)) {
		if (p.enum && p.type !== 'object') {
			assert.equal(p.enumDescriptions?.length, p.enum.length, `${key}: one description per value`);
		}
	}
});

test("openTranscript is an enum (auto, always, never); the trace setting is the client id's, window-scoped", () => {
	assert.deepEqual(props['hermes.openTranscript'].enum, ['auto', 'always', 'never']);
	assert.equal(props['hermes.openTranscript'].default, 'auto');
	assert.equal(props['hermes.openTranscript'].type, 'string');
	const trace = props['hermes-lsp.trace.server'];
	assert.deepEqual(trace.enum, ['off', 'messages', 'verbose']);
	assert.equal(trace.default, 'off');
	assert.equal(trace.scope, 'window');
	// vscode-languageclient reads `<client id>.trace.server`: the id client.ts gives the LanguageClient.
	const client = readFileSync(join(root, 'src', 'client.ts'), 'utf8');
	assert.match(client, /new LanguageClient\('hermes-lsp',/);
});

test('context keys: Stop Turn only while a turn runs, Answer Approval only while one waits', () => {
	const byId = (id: string) => contributed.find((c) => c.command === id) as { enablement?: string; icon?: string } | undefined;
	assert.equal(byId(Command.stop)?.enablement, 'hermes.turnRunning');
	assert.equal(byId(Command.answerApproval)?.enablement, 'hermes.approvalPending');
	const menus: Record<string, { command: string; when?: string }[]> = manifest.contributes.menus;
	const palette = (id: string) => menus.commandPalette.find((m) => m.command === id)?.when;
	assert.equal(palette(Command.stop), 'hermes.turnRunning');
	assert.equal(palette(Command.answerApproval), 'hermes.approvalPending');
	for (const m of menus['view/title'].filter((x) => x.command === Command.stop || x.command === Command.answerApproval)) {
		assert.match(m.when ?? '', /^view == hermes-vscode\.chat && hermes\.(turnRunning|approvalPending)$/);
		assert.ok(byId(m.command)?.icon, `${m.command} in a view title has an icon`);
	}
	// The keys the extension sets are the ones package.json reads.
	const turns = readFileSync(join(root, 'src', 'turns.ts'), 'utf8');
	for (const key of ['hermes.turnRunning', 'hermes.approvalPending', 'hermes.signedIn']) {
		assert.ok(turns.includes(`'${key}'`), key);
	}
});

test('the walkthrough: install codex, sign in, first ask; each step with its media and a completion event', () => {
	const [w] = manifest.contributes.walkthroughs;
	assert.deepEqual(
		w.steps.map((s) => s.id),
		['installCodex', 'signIn', 'firstAsk'],
	);
	const ids = new Set<string>(Object.values(Command));
	for (const s of w.steps) {
		assert.ok(s.media.markdown && existsSync(join(root, s.media.markdown)), `${s.id}'s media ${s.media.markdown}`);
		assert.match(s.media.markdown, /^media\/walkthrough\/[\w-]+\.md$/);
		assert.ok(s.completionEvents.length > 0, s.id);
		for (const e of s.completionEvents) {
			assert.match(e, /^(onCommand:hermes-vscode\.\w+|onContext:hermes\.\w+)$/, `${s.id}: ${e}`);
			if (e.startsWith('onCommand:')) {
				assert.ok(ids.has(e.slice('onCommand:'.length)), e);
			}
		}
		// Each step has a button: a command link on a line of its own.
		const buttons = [...s.description.matchAll(/^\[[^\]]+\]\(command:([\w.-]+)/gm)].map((m) => m[1]);
		assert.ok(buttons.length > 0, `${s.id} has a button`);
		for (const b of buttons) {
			assert.ok(ids.has(b) || b.startsWith('workbench.'), `${s.id}'s button runs ${b}`);
		}
	}
	assert.deepEqual(w.steps[0].completionEvents, ['onContext:hermes.codexFound']);
	assert.ok(w.steps[1].description.includes(`command:${Command.signIn}`));
	assert.ok(w.steps[2].completionEvents.includes(`onCommand:${Command.ask}`));
});

test('packaging: license, icon, changelog, categories, and a README whose links work from the Marketplace', () => {
	assert.equal(manifest.license, 'MIT');
	assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /^MIT License/);
	assert.equal(manifest.icon, 'media/icon.png');
	const png = readFileSync(join(root, manifest.icon));
	assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
	assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
	assert.match(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), new RegExp(`^## \\[${manifest.version.replace(/\./g, '\\.')}\\]`, 'm'));
	// Valid Marketplace categories that fit.
	const valid = [
		'Programming Languages',
		'Snippets',
		'Linters',
		'Themes',
		'Debuggers',
		'Formatters',
		'Keymaps',
		'SCM Providers',
		'Other',
		'Extension Packs',
		'Language Packs',
		'Data Science',
		'Machine Learning',
		'Visualization',
		'Notebooks',
		'Education',
		'Testing',
		'AI',
		'Chat',
	];
	for (const c of manifest.categories) {
		assert.ok(valid.includes(c), c);
	}
	assert.ok(manifest.categories.includes('AI'));
	assert.doesNotMatch(manifest.scripts.package, /--skip-license/);
	// The packaged README is shown without the repository around it: links are absolute (or in-page).
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	for (const m of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
		assert.match(m[1], /^(https:\/\/|#)/, `README link ${m[1]}`);
	}
	// What the .vsix needs is not ignored (.vscodeignore lists what goes in).
	const ignore = readFileSync(join(root, '.vscodeignore'), 'utf8').split('\n');
	for (const f of ['LICENSE', 'CHANGELOG.md', 'media/icon.png', 'media/walkthrough/*.md', 'server/hermes-lsp', 'server/hermes-lsp.exe']) {
		assert.ok(ignore.includes(`!${f}`), `.vscodeignore keeps ${f}`);
	}
	assert.ok(readFileSync(join(root, '.gitignore'), 'utf8').split('\n').includes('/server/'));
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

test('disabled in untrusted workspaces; bundled; activates on its commands, view and walkthrough, not at every startup', () => {
	assert.equal(manifest.capabilities.untrustedWorkspaces.supported, false);
	assert.equal(manifest.main, './dist/extension.js');
	// Commands activate by themselves (VS Code 1.74+); the chat view and the walkthrough are listed.
	assert.deepEqual(manifest.activationEvents, ['onView:hermes-vscode.chat', 'onWalkthrough:hermes.gettingStarted']);
	assert.ok(!manifest.activationEvents.some((e) => e === '*' || e === 'onStartupFinished'));
	assert.ok(manifest.engines.vscode.startsWith('^1.'));
	assert.ok(Number(/^\^1\.(\d+)/.exec(manifest.engines.vscode)?.[1]) >= 74, 'implicit onCommand activation needs VS Code 1.74');
	assert.deepEqual(Object.keys(manifest.dependencies), ['diff', 'highlight.js', 'markdown-it', 'vscode-languageclient']);
	// Exact versions: the lock file and package.json say the same.
	for (const v of Object.values({ ...manifest.dependencies, ...manifest.devDependencies })) {
		assert.match(v, /^\d+\.\d+\.\d+$/);
	}
});

test("the chat view's title bar has Threads, Model and New Thread, with icons", () => {
	const menus = (manifest.contributes as unknown as { menus: Record<string, { command: string; when?: string }[]> }).menus;
	const inView = menus['view/title'].filter((m) => m.when?.includes('view == hermes-vscode.chat')).map((m) => m.command);
	for (const c of [Command.threads, Command.model, Command.newThread]) {
		assert.ok(inView.includes(c), `${c} in the chat view's title bar`);
		const contributed = (manifest.contributes.commands as { command: string; icon?: string }[]).find((x) => x.command === c);
		assert.match(contributed?.icon ?? '', /^\$\([a-z-]+\)$/, `${c}'s icon`);
	}
});

test('the agent settings: codex by default or acp, each described as codex.path is, with example agents', () => {
	const kind = props['hermes.agent.kind'];
	assert.deepEqual(kind.enum, ['codex', 'acp']);
	assert.equal(kind.default, 'codex');
	assert.equal(kind.type, 'string');
	for (const key of ['hermes.agent.kind', 'hermes.agent.command', 'hermes.agent.args', 'hermes.agent.env']) {
		assert.equal(props[key].scope, 'machine', key);
		assert.match(props[key].markdownDescription ?? '', /Applies when the server restarts \(you are offered a restart\)/, key);
	}
	assert.equal(props['hermes.agent.args'].type, 'array');
	assert.equal(props['hermes.agent.env'].type, 'object');
	const command = props['hermes.agent.command'].markdownDescription ?? '';
	for (const example of [
		'`gemini`',
		'`["--acp"]`',
		'`claude-agent-acp`',
		'@agentclientprotocol/claude-agent-acp',
		'`codex-acp`',
		'@zed-industries/codex-acp',
	]) {
		assert.ok(command.includes(example), `hermes.agent.command names ${example}`);
	}
});

test("the commands of features an agent may lack are hidden by the agent's context keys", () => {
	const menus = manifest.contributes.menus;
	const palette = (id: string) => menus.commandPalette.find((m) => m.command === id)?.when;
	const viewTitle = (id: string) => menus['view/title'].find((m) => m.command === id)?.when;
	assert.equal(palette(Command.compact), '!hermes.agentLacksCompact');
	assert.equal(palette(Command.threads), '!hermes.agentLacksThreads');
	assert.equal(palette(Command.model), '!hermes.agentLacksModels');
	assert.equal(palette(Command.signIn), '!hermes.agentLacksLogin');
	assert.equal(viewTitle(Command.threads), 'view == hermes-vscode.chat && !hermes.agentLacksThreads');
	assert.equal(viewTitle(Command.model), 'view == hermes-vscode.chat && !hermes.agentLacksModels');
	// Every agent key package.json reads is one the extension sets, and each it sets is read.
	const read = new Set([...JSON.stringify(manifest.contributes).matchAll(/hermes\.agentLacks\w+/g)].map((m) => m[0]));
	assert.deepEqual([...read].sort(), Object.keys(AgentLacksKeys).sort());
});
