// The agent that runs the turns (hermes.status's agent): how to name it, and which of the
// extension's commands to hide because the agent lacks their feature. No vscode import.
//
// codex has every feature. An agent of the Agent Client Protocol (hermes.agent.kind acp) may lack
// some: the server refuses their commands with a message that says what to do instead, and the
// extension hides the commands it can (the command palette, the chat view's title bar) through the
// context keys below. What cannot be hidden (the walkthrough's Sign In button, the chat's "Switch
// model" button) runs the command, and the server's refusal is shown as it is.

import { AgentFeatureCompact, AgentFeatureLogin, AgentFeatureModels, AgentFeatureResume, AgentFeatureThreads, type AgentStatus } from './hermesproto';

/**
 * The context keys package.json's when clauses read, each true while the agent lacks what its
 * commands need: Hermes: Compact (compact), the thread picker Hermes: Threads… (threads and resume),
 * the model picker Hermes: Model… (models), Hermes: Sign In (login). They say "lacks" so that a key
 * VS Code has not been told yet (before the extension activates) hides nothing.
 */
export const AgentLacksKeys = {
	'hermes.agentLacksCompact': [AgentFeatureCompact],
	'hermes.agentLacksThreads': [AgentFeatureThreads, AgentFeatureResume],
	'hermes.agentLacksModels': [AgentFeatureModels],
	'hermes.agentLacksLogin': [AgentFeatureLogin],
} as const;

export type AgentLacksKey = keyof typeof AgentLacksKeys;

/**
 * agentLacks is the value of each AgentLacksKeys key for agent: true when the agent lacks one of the
 * key's features. Nothing is hidden while nothing is known: no agent (a server before it has a host,
 * or one older than the agent field), or an agent of another kind than codex that lists no feature it
 * supports (before it has started, hermes.status knows only its program, and lists every feature as
 * lacking). Such a command then runs, and the server's answer says whether the agent has it.
 */
export function agentLacks(agent: AgentStatus | undefined): Record<AgentLacksKey, boolean> {
	const known = agent !== undefined && (agent.kind === 'codex' || (agent.supports ?? []).length > 0);
	const lacks = new Set<string>(known ? (agent.lacks ?? []) : []);
	const out = {} as Record<AgentLacksKey, boolean>;
	for (const [key, features] of Object.entries(AgentLacksKeys) as [AgentLacksKey, readonly string[]][]) {
		out[key] = features.some((f) => lacks.has(f));
	}
	return out;
}

/**
 * agentLine names the agent for the status bar's tooltip and the status command: "agent: gemini-cli
 * 0.9.0 (ACP; lacks compact, login)". undefined for codex, which is named elsewhere (its sign-in, its
 * release), and when the server said nothing of the agent.
 */
export function agentLine(agent: AgentStatus | undefined): string | undefined {
	if (!agent || agent.kind === 'codex') {
		return undefined;
	}
	const name =
		[agent.name, agent.version]
			.map(said)
			.filter((s) => s)
			.join(' ') || 'unnamed';
	const lacks = agent.lacks ?? [];
	return `agent: ${name} (${said(agent.kind).toUpperCase()}${lacks.length > 0 ? `; lacks ${lacks.map(said).join(', ')}` : ''})`;
}

/**
 * said is a word the agent chose (its name, its version) fit for one line: control characters
 * removed, at most 60 characters.
 */
function said(s: string | undefined): string {
	// eslint-disable-next-line no-control-regex -- control characters are what is removed
	const clean = (s ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
	return clean.length > 60 ? `${clean.slice(0, 59)}…` : clean;
}
