import assert from 'node:assert/strict';
import { test } from 'node:test';

import { agentLacks, agentLine, AgentLacksKeys } from '../src/agent';
import { runsCodex } from '../src/codex';
import { statusBarTooltip } from '../src/format';
import type { AgentStatus } from '../src/protocol';
import { TurnTracker } from '../src/turns';

const every = ['threads', 'resume', 'history', 'steer', 'compact', 'forgetTurn', 'review', 'models', 'login', 'rateLimits', 'fallback'];

/** An agent that supports what is given, and lacks the rest of the features. */
function agent(kind: string, name: string, supports: string[], version?: string): AgentStatus {
	return { kind, name, supports, lacks: every.filter((f) => !supports.includes(f)), ...(version ? { version } : {}) };
}

const codex = agent('codex', 'codex', every, '0.171.0');
// What hermes.status says of gemini --acp once it has started: threads and their history, no more.
const gemini = agent('acp', 'gemini-cli', ['threads', 'resume', 'history'], '0.61.0');

const nothingHidden = {
	'hermes.agentLacksCompact': false,
	'hermes.agentLacksThreads': false,
	'hermes.agentLacksModels': false,
	'hermes.agentLacksLogin': false,
};

test('codex lacks nothing: no command is hidden', () => {
	assert.deepEqual(agentLacks(codex), nothingHidden);
});

test("an ACP agent's lacked features hide their commands: Compact, the thread picker, the model picker, Sign In", () => {
	assert.deepEqual(agentLacks(gemini), {
		'hermes.agentLacksCompact': true,
		'hermes.agentLacksThreads': false,
		'hermes.agentLacksModels': true,
		'hermes.agentLacksLogin': true,
	});
	// The thread picker lists and resumes: it needs both.
	assert.equal(agentLacks(agent('acp', 'a', ['threads']))['hermes.agentLacksThreads'], true);
	assert.equal(agentLacks(agent('acp', 'a', ['resume']))['hermes.agentLacksThreads'], true);
	assert.equal(agentLacks(agent('acp', 'a', ['threads', 'resume']))['hermes.agentLacksThreads'], false);
	assert.equal(agentLacks(agent('acp', 'a', ['compact']))['hermes.agentLacksCompact'], false);
	assert.equal(agentLacks(agent('acp', 'a', ['models']))['hermes.agentLacksModels'], false);
	assert.equal(agentLacks(agent('acp', 'a', ['login']))['hermes.agentLacksLogin'], false);
	// Each key is one of the features hermes.status names.
	for (const features of Object.values(AgentLacksKeys)) {
		for (const f of features) {
			assert.ok(every.includes(f), f);
		}
	}
});

test('nothing is hidden while nothing is known of the agent: no status, or an ACP agent not started yet', () => {
	assert.deepEqual(agentLacks(undefined), nothingHidden);
	// Before it starts, hermes.status names the program and lists every feature as lacking.
	assert.deepEqual(agentLacks(agent('acp', 'gemini', [])), nothingHidden);
	// A codex that lacked something would have it hidden (the rule is the same for every kind).
	assert.equal(
		agentLacks(
			agent(
				'codex',
				'codex',
				every.filter((f) => f !== 'login'),
			),
		)['hermes.agentLacksLogin'],
		true,
	);
});

test('agentLine names an agent other than codex, with its version and what it lacks', () => {
	assert.equal(agentLine(codex), undefined);
	assert.equal(agentLine(undefined), undefined);
	assert.equal(agentLine(gemini), 'agent: gemini-cli 0.61.0 (ACP; lacks steer, compact, forgetTurn, review, models, login, rateLimits, fallback)');
	assert.equal(agentLine({ kind: 'acp', name: 'claude-agent-acp', supports: every, lacks: [] }), 'agent: claude-agent-acp (ACP)');
	// What the agent says of itself is cleaned and cut.
	assert.equal(agentLine({ kind: 'acp', name: 'evil\u001b[31m\nname', version: '1\r', supports: [], lacks: [] }), 'agent: evil[31mname 1 (ACP)');
	const long = agentLine({ kind: 'acp', name: 'x'.repeat(500), supports: [], lacks: [] }) ?? '';
	assert.ok(long.length < 80, long);
});

test("the status bar's tooltip names the agent when it is not codex; the context keys follow it", () => {
	const t = new TurnTracker();
	t.setServerState('running');
	t.setAgent({ agent: codex });
	assert.ok(!statusBarTooltip(t.bar()).includes('agent:'));
	assert.equal(t.contextKeys()['hermes.agentLacksCompact'], false);
	t.setAgent({ agent: gemini });
	assert.match(statusBarTooltip(t.bar()), /^agent: gemini-cli 0\.61\.0 \(ACP; lacks .*compact/m);
	assert.equal(t.contextKeys()['hermes.agentLacksCompact'], true);
	assert.equal(t.contextKeys()['hermes.agentLacksThreads'], false);
	// A status without the agent (a server before it has a host) keeps what was known.
	t.setAgent({});
	assert.equal(t.contextKeys()['hermes.agentLacksCompact'], true);
	// The agent ends with the server: after a restart nothing is hidden until hermes.status says more.
	t.setServerState('stopped');
	t.setServerState('running');
	assert.deepEqual(Object.fromEntries(Object.entries(t.contextKeys()).filter(([k]) => k.startsWith('hermes.agentLacks'))), nothingHidden);
	assert.ok(!statusBarTooltip(t.bar()).includes('agent:'));
});

test('runsCodex: --agent in hermes.serverArgs, then HERMES_AGENT_KIND, then hermes.agent.kind', () => {
	assert.equal(runsCodex(undefined, {}, undefined), true);
	assert.equal(runsCodex([], {}, 'codex'), true);
	assert.equal(runsCodex([], {}, 'acp'), false);
	assert.equal(runsCodex([], { HERMES_AGENT_KIND: 'acp' }, 'codex'), false);
	assert.equal(runsCodex(['--agent', 'codex'], { HERMES_AGENT_KIND: 'acp' }, 'acp'), true);
	assert.equal(runsCodex(['--agent=acp', '--agent-command', 'gemini'], {}, 'codex'), false);
	assert.equal(runsCodex(['-agent', 'acp'], {}, undefined), false);
	// --agent-command is another flag, not --agent.
	assert.equal(runsCodex(['--agent-command', 'acp'], {}, 'codex'), true);
});
