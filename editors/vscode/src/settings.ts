// Settings: VS Code's `hermes.*` configuration -> how to start (or reach) hermes-lsp, and the server's
// `hermes` settings object (docs/protocol.md, "Settings"). No vscode import: unit-tested with node --test.
//
// Trust: the settings that can run code or lower approvals ("trusted" settings: TRUSTED_KEYS) come
// only from a source the user controls. package.json gives them `machine` or `application` scope, so
// VS Code ignores them in a repository's `.vscode/settings.json`; the extension reads them with
// `inspect` and takes only the user (global) value or the default (trustedGetter), in case an older
// VS Code honours a workspace value anyway; and they go to the server only in initializationOptions,
// never in the answer to workspace/configuration nor in a didChangeConfiguration push.

import { isAbsolute, posix, win32 } from 'node:path';

/** Server settings that can run code or lower approvals: sent only in initializationOptions. */
export const TRUSTED_SERVER_KEYS = [
	'codex.path',
	'codex.args',
	'codex.home',
	'codex.env',
	'codex.approvalPolicy',
	'codex.sandbox',
	'agent.kind',
	'agent.command',
	'agent.args',
	'agent.env',
	'approvals.mode',
	'yolo',
	'fallbackProviders',
	'stateDir',
] as const;

/** Server settings a workspace may set: they also answer workspace/configuration and travel in didChangeConfiguration. */
export const UNTRUSTED_SERVER_KEYS = [
	'codex.model',
	'approvals.timeoutSeconds',
	'turnTimeoutSeconds',
	'prewarm',
	'openTranscript',
	'inlineStatus',
	'instructionHints',
	'review.enabled',
	'review.afterTurn.minToolCalls',
	'edits.review',
] as const;

/** The server's settings keys, as VS Code names them under `hermes.` (nested keys with a dot). */
export const SERVER_KEYS = [...TRUSTED_SERVER_KEYS, ...UNTRUSTED_SERVER_KEYS] as const;

/** Settings read by the extension alone, to start or reach the server: changing one restarts it. All trusted. */
export const LAUNCH_KEYS = ['serverPath', 'serverArgs', 'server.socket', 'server.tokenFile'] as const;

export type TrustedKey = (typeof TRUSTED_SERVER_KEYS)[number] | (typeof LAUNCH_KEYS)[number];

/**
 * TRUSTED_SCOPES is every trusted key with the scope package.json gives it: `machine` for what is
 * specific to this machine (binaries, arguments, environment, folders, the socket), `application` for
 * what lowers approvals or sends the work elsewhere. Neither can be set in workspace settings.
 */
export const TRUSTED_SCOPES: Record<TrustedKey, 'machine' | 'application'> = {
	serverPath: 'machine',
	serverArgs: 'machine',
	'server.socket': 'machine',
	'server.tokenFile': 'machine',
	'codex.path': 'machine',
	'codex.args': 'machine',
	'codex.home': 'machine',
	'codex.env': 'machine',
	'agent.kind': 'machine',
	'agent.command': 'machine',
	'agent.args': 'machine',
	'agent.env': 'machine',
	stateDir: 'machine',
	'codex.approvalPolicy': 'application',
	'codex.sandbox': 'application',
	'approvals.mode': 'application',
	yolo: 'application',
	fallbackProviders: 'application',
};

export const TRUSTED_KEYS = Object.keys(TRUSTED_SCOPES) as TrustedKey[];

/** isTrusted says whether a key below `hermes.` is a trusted setting. */
export function isTrusted(key: string): boolean {
	return (TRUSTED_KEYS as readonly string[]).includes(key);
}

/** Keys whose value is a path: used literally (only a leading `~/` is expanded) and it must be absolute. */
const PATH_KEYS: readonly string[] = ['serverPath', 'codex.path', 'codex.home', 'stateDir', 'server.tokenFile'];

/**
 * Keys whose value is a program: a bare name (`gemini`), which the server looks up on its PATH, or a
 * path, checked as PATH_KEYS' are (absolute; only a leading `~/` expanded).
 */
const PROGRAM_KEYS: readonly string[] = ['agent.command'];

/** Reads one `hermes.` setting by its key below `hermes` (e.g. `codex.path`). */
export type Getter = (key: string) => unknown;

/** What `WorkspaceConfiguration.inspect` answers (the parts read here). */
export interface Inspected {
	defaultValue?: unknown;
	globalValue?: unknown;
	workspaceValue?: unknown;
	workspaceFolderValue?: unknown;
}

export type Inspector = (key: string) => Inspected | undefined;

/**
 * trustedGetter reads a setting from the user's own settings or the default, never from the
 * workspace or a workspace folder (a repository's `.vscode/settings.json`, a .code-workspace file).
 */
export function trustedGetter(inspect: Inspector): Getter {
	return (key) => {
		const i = inspect(key);
		if (!i) {
			return undefined;
		}
		return i.globalValue !== undefined ? i.globalValue : i.defaultValue;
	};
}

export interface PathContext {
	home?: string;
	/** The server binary bundled with the extension (server/hermes-lsp[.exe]), when it exists. */
	bundledServer?: string;
}

/** A setting whose value cannot be used; key is below `hermes.` (for "Open Settings"). */
export class SettingError extends Error {
	constructor(
		readonly key: string,
		message: string,
	) {
		super(message);
		this.name = 'SettingError';
	}
}

/**
 * literalPath checks a path setting. Nothing is expanded but a leading `~/` (your home folder):
 * `${workspaceFolder}` and other variables are refused, and so is a relative path, since either
 * would make the binary or folder depend on what folder is open.
 */
export function literalPath(key: string, value: string, ctx: PathContext = {}): string {
	if (value.includes('${')) {
		throw new SettingError(key, `hermes.${key} is "${value}": variables such as \${workspaceFolder} are not expanded. Use an absolute path.`);
	}
	let out = value;
	if (ctx.home && (out === '~' || out.startsWith('~/'))) {
		out = ctx.home + out.slice(1);
	}
	if (!isAbsolute(out)) {
		throw new SettingError(key, `hermes.${key} is "${value}", a relative path. Use an absolute path.`);
	}
	return out;
}

/**
 * programPath checks a program setting: a bare name is the server's to find on its PATH; anything
 * with a path separator (or a leading `~`) is a path and must be absolute, as literalPath says.
 * Variables are refused in either.
 */
export function programPath(key: string, value: string, ctx: PathContext = {}): string {
	if (value.includes('${') || /[\\/]/.test(value) || value.startsWith('~')) {
		return literalPath(key, value, ctx);
	}
	return value;
}

/**
 * openTranscriptValue maps hermes.openTranscript to the server's boolean: `always` (or the former
 * true) is true, `never` (or false) is false, and `auto` (or the former null, or anything else) is
 * left out, so the server opens it when the editor can show documents.
 */
export function openTranscriptValue(v: unknown): boolean | undefined {
	if (v === true || v === 'always') {
		return true;
	}
	if (v === false || v === 'never') {
		return false;
	}
	return undefined;
}

function buildSettings(keys: readonly string[], get: Getter, ctx: PathContext, into: Record<string, unknown> = {}): Record<string, unknown> {
	for (const key of keys) {
		let value = get(key);
		if (key === 'openTranscript') {
			value = openTranscriptValue(value);
		}
		if (value === undefined || value === null || value === '') {
			continue;
		}
		if (typeof value === 'string' && PATH_KEYS.includes(key)) {
			value = literalPath(key, value.trim(), ctx);
		}
		if (typeof value === 'string' && PROGRAM_KEYS.includes(key)) {
			value = programPath(key, value.trim(), ctx);
		}
		setPath(into, key, clone(value));
	}
	return into;
}

/**
 * untrustedSettings is the server's `hermes` settings object without the trusted keys: the answer
 * to workspace/configuration and the didChangeConfiguration push. A setting that is unset, null or
 * an empty string is left out, so the server keeps what it has. turnEvents is always on: the
 * extension streams the turn from `hermes/turnEvent`. commandPrefix is never sent: the extension
 * calls the server's `hermes.*` commands by those names.
 */
export function untrustedSettings(get: Getter): Record<string, unknown> {
	const out = buildSettings(UNTRUSTED_SERVER_KEYS, get, {});
	out.turnEvents = true;
	return out;
}

/**
 * initializationOptions is what the server gets at start: `{hermes: settings}` with every server
 * setting, the trusted ones read through `trusted` (user settings or default only, see
 * trustedGetter), and the token for a server reached on a socket. Unset values are left out so the
 * server keeps its own defaults (codex on PATH, codex's own home and model, the XDG state folder,
 * openTranscript following showDocument support); agent.command, agent.args and agent.env go with
 * agent.kind acp only (onlyAcpProgram). A bad path throws a SettingError.
 */
export function initializationOptions(get: Getter, trusted: Getter, ctx: PathContext = {}, token?: string): { hermes: Record<string, unknown> } {
	const hermes = untrustedSettings(get);
	buildSettings(TRUSTED_SERVER_KEYS, trusted, ctx, hermes);
	onlyAcpProgram(hermes);
	if (token) {
		hermes.token = token;
	}
	return { hermes };
}

/**
 * onlyAcpProgram keeps agent.command, agent.args and agent.env for an ACP agent only: with any other
 * agent.kind (codex, the default) they are left out, so that switching hermes.agent.kind between
 * codex and acp is all it takes (the server refuses them beside codex, whose program is codex.path).
 * A kind the server does not know still goes to it, and is refused there.
 */
function onlyAcpProgram(hermes: Record<string, unknown>): void {
	const agent = hermes.agent as Record<string, unknown> | undefined;
	if (agent === undefined || agent.kind === 'acp') {
		return;
	}
	if (agent.kind === undefined) {
		delete hermes.agent;
	} else {
		hermes.agent = { kind: agent.kind };
	}
}

/**
 * configurationAnswer is the answer to one workspace/configuration item: section `hermes` (what
 * the server asks) gets the untrusted settings; `hermes.x.y` the part of them at x.y (null for a
 * trusted key); no section the editor's whole configuration with `hermes` replaced by the untrusted
 * settings. Other sections keep the editor's answer.
 */
export function configurationAnswer(section: string | null | undefined, editorAnswer: unknown, untrusted: Record<string, unknown>): unknown {
	if (section === 'hermes') {
		return untrusted;
	}
	if (section && section.startsWith('hermes.')) {
		let cur: unknown = untrusted;
		for (const part of section.slice('hermes.'.length).split('.')) {
			cur = typeof cur === 'object' && cur !== null && !Array.isArray(cur) ? (cur as Record<string, unknown>)[part] : undefined;
		}
		return cur === undefined ? null : cur;
	}
	if (!section && typeof editorAnswer === 'object' && editorAnswer !== null && !Array.isArray(editorAnswer) && 'hermes' in editorAnswer) {
		return { ...(editorAnswer as Record<string, unknown>), hermes: untrusted };
	}
	return editorAnswer;
}

export type SocketAddress = { path: string } | { host: string; port: number };

export type Launch = { kind: 'spawn'; command: string; args: string[] } | { kind: 'socket'; address: SocketAddress; label: string; tokenFile?: string };

/**
 * bundledServerPath is where a platform-specific package carries the server: server/hermes-lsp in
 * the extension's folder (hermes-lsp.exe on Windows), put there by `make dist` before
 * `vsce package --target`.
 */
export function bundledServerPath(extensionDir: string, platform: NodeJS.Platform): string {
	return platform === 'win32' ? win32.join(extensionDir, 'server', 'hermes-lsp.exe') : posix.join(extensionDir, 'server', 'hermes-lsp');
}

/**
 * serverCommand is the server binary to start, in this order: `hermes.serverPath` when set (a
 * checked absolute path), else the bundled binary when the package has one, else `hermes-lsp` on
 * PATH.
 */
export function serverCommand(serverPath: unknown, ctx: PathContext = {}): string {
	if (typeof serverPath === 'string' && serverPath.trim() !== '') {
		return literalPath('serverPath', serverPath.trim(), ctx);
	}
	return ctx.bundledServer ?? 'hermes-lsp';
}

/**
 * serverLaunch says how to reach the server, from trusted settings only: `hermes.server.socket`
 * connects to a server started by hand (with `hermes.server.tokenFile`'s token); otherwise the
 * extension starts the server serverCommand picks with `--stdio` and `hermes.serverArgs`. A bad
 * value throws a SettingError.
 */
export function serverLaunch(get: Getter, ctx: PathContext = {}): Launch {
	const socket = get('server.socket');
	if (typeof socket === 'string' && socket.trim() !== '') {
		const tokenFile = get('server.tokenFile');
		return {
			kind: 'socket',
			address: parseSocket(socket.trim(), ctx),
			label: socket.trim(),
			...(typeof tokenFile === 'string' && tokenFile.trim() !== '' ? { tokenFile: literalPath('server.tokenFile', tokenFile.trim(), ctx) } : {}),
		};
	}
	const command = serverCommand(get('serverPath'), ctx);
	const extra = get('serverArgs');
	const args = ['--stdio'];
	if (Array.isArray(extra)) {
		for (const a of extra) {
			if (typeof a !== 'string' || a === '--stdio') {
				continue;
			}
			if (a.includes('${')) {
				throw new SettingError(
					'serverArgs',
					`hermes.serverArgs has "${a}": variables such as \${workspaceFolder} are not expanded. Use an absolute path.`,
				);
			}
			args.push(ctx.home && (a === '~' || a.startsWith('~/')) ? ctx.home + a.slice(1) : a);
		}
	}
	return { kind: 'spawn', command, args };
}

/** parseSocket reads `unix:/absolute/path` or `tcp:HOST:PORT` (`tcp:[::1]:PORT` for IPv6). */
export function parseSocket(value: string, ctx: PathContext = {}): SocketAddress {
	const usage = `hermes.server.socket is "${value}": use unix:/absolute/path or tcp:127.0.0.1:PORT.`;
	if (value.startsWith('unix:')) {
		const path = value.slice('unix:'.length);
		if (path === '') {
			throw new SettingError('server.socket', usage);
		}
		return { path: literalPath('server.socket', path, ctx) };
	}
	if (value.startsWith('tcp:')) {
		const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.slice('tcp:'.length));
		const port = m ? Number(m[3]) : 0;
		if (!m || port < 1 || port > 65535) {
			throw new SettingError('server.socket', usage);
		}
		return { host: m[1] ?? m[2], port };
	}
	throw new SettingError('server.socket', usage);
}

/** launchChanged says whether a configuration change may concern how the server is started or reached. */
export function launchChanged(affects: (section: string) => boolean): boolean {
	return LAUNCH_KEYS.some((k) => affects('hermes.' + k));
}

/** trustedAffected lists the trusted keys a configuration change may concern. */
export function trustedAffected(affects: (section: string) => boolean): TrustedKey[] {
	return TRUSTED_KEYS.filter((k) => affects('hermes.' + k));
}

/** untrustedAffected says whether a configuration change may concern a setting pushed to the running server. */
export function untrustedAffected(affects: (section: string) => boolean): boolean {
	return UNTRUSTED_SERVER_KEYS.some((k) => affects('hermes.' + k));
}

/** trustedSnapshot records the trusted values (as JSON) to tell later which of them really changed. */
export function trustedSnapshot(get: Getter): Record<string, string> {
	const out: Record<string, string> = {};
	for (const k of TRUSTED_KEYS) {
		out[k] = JSON.stringify(get(k) ?? null);
	}
	return out;
}

/** changedKeys lists the keys whose values differ between two snapshots. */
export function changedKeys(before: Record<string, string>, after: Record<string, string>): TrustedKey[] {
	return TRUSTED_KEYS.filter((k) => before[k] !== after[k]);
}

/** restartMessage is the offer to restart shown after trusted settings changed. */
export function restartMessage(keys: readonly string[]): string {
	return `Hermes: restart the server to apply ${keys.map((k) => 'hermes.' + k).join(', ')}`;
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

/** withHermesFlag is a client's experimental capabilities with experimental.hermes.<flag> true for each flag. */
export function withHermesFlag(experimental: unknown, ...flags: string[]): Record<string, unknown> {
	const e = typeof experimental === 'object' && experimental !== null ? (experimental as Record<string, unknown>) : {};
	const h = typeof e.hermes === 'object' && e.hermes !== null ? (e.hermes as Record<string, unknown>) : {};
	return { ...e, hermes: { ...h, ...Object.fromEntries(flags.map((f) => [f, true])) } };
}

/**
 * HermesFlags are what the extension tells the server it does itself (experimental.hermes,
 * docs/protocol.md): the chat view shows each turn from hermes/turnEvent (showsTurns: the server
 * sends no answer message and opens no transcript, so each answer shows once), and asks codex's
 * questions inline (asksQuestions: the server sends no prompt or message for an elicitation or
 * userInput approval).
 */
export const HermesFlags = ['showsTurns', 'asksQuestions'] as const;
