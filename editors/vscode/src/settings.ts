// Settings: VS Code's `hermes.*` configuration -> how to start hermes-lsp, and the server's `hermes`
// settings object (docs/protocol.md, "Settings"). No vscode import: unit-tested with node --test.

/** The server's settings keys, as VS Code names them under `hermes.` (nested keys with a dot). */
export const SERVER_KEYS = [
	'codex.path',
	'codex.args',
	'codex.home',
	'codex.env',
	'codex.model',
	'codex.approvalPolicy',
	'codex.sandbox',
	'approvals.mode',
	'approvals.timeoutSeconds',
	'yolo',
	'turnTimeoutSeconds',
	'fallbackProviders',
	'prewarm',
	'openTranscript',
	'stateDir',
] as const;

/** Settings read by the extension alone: changing one restarts the server. */
export const LAUNCH_KEYS = ['serverPath', 'serverArgs'] as const;

/** Keys whose string value is a path: `~` and `${workspaceFolder}` are expanded in them. */
const PATH_KEYS = new Set<string>(['serverPath', 'codex.path', 'codex.home', 'stateDir']);

/** Reads one `hermes.` setting by its key below `hermes` (e.g. `codex.path`). */
export type Getter = (key: string) => unknown;

export interface PathContext {
	home?: string;
	workspaceFolder?: string;
}

/** expandPath turns a leading `~` into the home folder and `${workspaceFolder}` into the folder. */
export function expandPath(p: string, ctx: PathContext = {}): string {
	let out = p;
	if (ctx.home && (out === '~' || out.startsWith('~/'))) {
		out = ctx.home + out.slice(1);
	}
	if (ctx.workspaceFolder) {
		out = out.split('${workspaceFolder}').join(ctx.workspaceFolder);
	}
	return out;
}

/**
 * serverSettings builds the server's `hermes` settings object. A setting that is unset, null or an
 * empty string is left out, so the server keeps its own default (codex on PATH, codex's own home and
 * model, the XDG state folder, openTranscript following showDocument support). turnEvents is always
 * on: the extension streams the turn from `hermes/turnEvent`. commandPrefix is never sent: the
 * extension calls the server's `hermes.*` commands by those names.
 */
export function serverSettings(get: Getter, ctx: PathContext = {}): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const key of SERVER_KEYS) {
		let value = get(key);
		if (value === undefined || value === null || value === '') {
			continue;
		}
		if (typeof value === 'string' && PATH_KEYS.has(key)) {
			value = expandPath(value, ctx);
		}
		setPath(out, key, clone(value));
	}
	out.turnEvents = true;
	return out;
}

export interface Launch {
	command: string;
	args: string[];
}

/** serverLaunch says how to start the server: `hermes.serverPath` (default `hermes-lsp` on PATH) and its arguments. */
export function serverLaunch(get: Getter, ctx: PathContext = {}): Launch {
	const path = get('serverPath');
	const command = typeof path === 'string' && path.trim() !== '' ? expandPath(path.trim(), ctx) : 'hermes-lsp';
	const extra = get('serverArgs');
	const args = ['--stdio'];
	if (Array.isArray(extra)) {
		for (const a of extra) {
			if (typeof a === 'string' && a !== '--stdio') {
				args.push(expandPath(a, ctx));
			}
		}
	}
	return { command, args };
}

/** launchChanged says whether a configuration change needs a server restart. */
export function launchChanged(affects: (section: string) => boolean): boolean {
	return LAUNCH_KEYS.some((k) => affects('hermes.' + k));
}

function setPath(obj: Record<string, unknown>, dotted: string, value: unknown): void {
	const parts = dotted.split('.');
	let cur = obj;
	for (const p of parts.slice(0, -1)) {
		const next = cur[p];
		if (typeof next !== 'object' || next === null || Array.isArray(next)) {
			cur[p] = {};
		}
		cur = cur[p] as Record<string, unknown>;
	}
	cur[parts[parts.length - 1]] = value;
}

function clone<T>(v: T): T {
	return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
