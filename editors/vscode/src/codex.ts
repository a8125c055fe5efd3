// Finding codex: at hermes.codex.path, else on PATH, as the server will look for it, so that a
// missing codex is reported (with a way to install it) before the first prompt fails. No vscode
// import: unit-tested with node --test.

import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { posix, win32 } from 'node:path';

import { literalPath, type PathContext } from './settings';

/** The codex version hermes-lsp is tested with (the repository's README and Makefile pin the same). */
export const CODEX_VERSION = '0.171.0';

/** The npm package codex is published as. */
export const CODEX_PACKAGE = '@openai/codex';

/** installCommand installs the pinned codex globally with npm (what the Install button runs in a terminal). */
export function installCommand(): string {
	return `npm install -g ${CODEX_PACKAGE}@${CODEX_VERSION}`;
}

/** IsExecutable says whether a path is a file that can be run. */
export type IsExecutable = (path: string) => Promise<boolean>;

/** isExecutable: a regular file, with an execute bit outside Windows (where PATHEXT decides). */
export const isExecutable: IsExecutable = async (path) => {
	try {
		if (!(await stat(path)).isFile()) {
			return false;
		}
		if (process.platform !== 'win32') {
			await access(path, constants.X_OK);
		}
		return true;
	} catch {
		return false;
	}
};

/**
 * pathCandidates lists the files that running `name` may start, in the order the system tries them:
 * each PATH entry with name, and on Windows with each PATHEXT extension (`codex.cmd`, which npm
 * installs, `codex.exe`, …) unless name has one already. Empty PATH entries are skipped.
 */
export function pathCandidates(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
	const windows = platform === 'win32';
	const path = windows ? win32 : posix;
	// Windows' environment names are case-insensitive: Path is as common as PATH.
	const get = (k: string) => (windows ? Object.entries(env).find(([e]) => e.toUpperCase() === k)?.[1] : env[k]);
	const dirs = (get('PATH') ?? '')
		.split(windows ? ';' : ':')
		.map((d) => (windows ? d.replace(/^"(.*)"$/, '$1') : d))
		.filter((d) => d !== '');
	let names = [name];
	if (windows) {
		const exts = (get('PATHEXT') ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '');
		const hasExt = exts.some((e) => name.toLowerCase().endsWith(e.toLowerCase()));
		names = hasExt ? [name] : exts.map((e) => name + e.toLowerCase());
	}
	return dirs.flatMap((d) => names.map((n) => path.join(d, n)));
}

/** findOnPath is the first of pathCandidates that is an executable file. */
export async function findOnPath(
	name: string,
	env: NodeJS.ProcessEnv,
	platform: NodeJS.Platform,
	exists: IsExecutable = isExecutable,
): Promise<string | undefined> {
	for (const p of pathCandidates(name, env, platform)) {
		if (await exists(p)) {
			return p;
		}
	}
	return undefined;
}

/**
 * codexFromArgs is the codex binary given to the server with `--codex PATH` (or `--codex=PATH`) in
 * hermes.serverArgs: the server lets that flag override hermes.codex.path, and so does the lookup.
 */
export function codexFromArgs(args: unknown): string | undefined {
	return flagFromArgs(args, 'codex');
}

/**
 * flagFromArgs is the last value of the server's flag name in hermes.serverArgs: `--name VALUE`,
 * `--name=VALUE`, or with one dash, as Go's flag package reads them.
 */
function flagFromArgs(args: unknown, name: string): string | undefined {
	if (!Array.isArray(args)) {
		return undefined;
	}
	const list: unknown[] = args;
	let found: string | undefined;
	list.forEach((a, i) => {
		if (a === `--${name}` || a === `-${name}`) {
			const next = list[i + 1];
			found = typeof next === 'string' ? next : found;
		} else if (typeof a === 'string' && (a.startsWith(`--${name}=`) || a.startsWith(`-${name}=`))) {
			found = a.slice(a.indexOf('=') + 1);
		}
	});
	return found;
}

/**
 * runsCodex says whether the server will run codex rather than another agent, as the server decides
 * it: `--agent KIND` in hermes.serverArgs first, then HERMES_AGENT_KIND in its environment, then
 * hermes.agent.kind (codex when unset). When it will not, codex need not be installed.
 */
export function runsCodex(serverArgs: unknown, env: NodeJS.ProcessEnv, agentKind: unknown): boolean {
	const kind = flagFromArgs(serverArgs, 'agent') || env.HERMES_AGENT_KIND || (typeof agentKind === 'string' ? agentKind : '');
	return kind === '' || kind === 'codex';
}

/** Where codex was looked for, and what was found. */
export type CodexLookup =
	| { found: true; path: string; from: 'setting' | 'path' }
	| { found: false; from: 'setting'; path: string }
	| { found: false; from: 'path' }
	| { found: false; from: 'invalid'; message: string };

/**
 * findCodex finds codex: hermes.codex.path when set (used as written, only `~/` expanded; a relative
 * path or a variable is reported, as the server would refuse it), else `codex` on PATH.
 */
export async function findCodex(
	configured: unknown,
	env: NodeJS.ProcessEnv,
	platform: NodeJS.Platform,
	ctx: PathContext = {},
	exists: IsExecutable = isExecutable,
): Promise<CodexLookup> {
	if (typeof configured === 'string' && configured.trim() !== '') {
		let path: string;
		try {
			path = literalPath('codex.path', configured.trim(), ctx);
		} catch (err) {
			return { found: false, from: 'invalid', message: err instanceof Error ? err.message : String(err) };
		}
		return (await exists(path)) ? { found: true, path, from: 'setting' } : { found: false, from: 'setting', path };
	}
	const path = await findOnPath('codex', env, platform, exists);
	return path ? { found: true, path, from: 'path' } : { found: false, from: 'path' };
}

/** missingCodexMessage is the warning shown when codex is not found. */
export function missingCodexMessage(l: Exclude<CodexLookup, { found: true }>): string {
	switch (l.from) {
		case 'setting':
			return `Hermes: codex was not found at ${l.path} (hermes.codex.path). Install codex ${CODEX_VERSION} with npm, or set its path.`;
		case 'invalid':
			return `Hermes: ${l.message}`;
		case 'path':
			return `Hermes: codex was not found on PATH. Install codex ${CODEX_VERSION} (the version hermes-lsp is tested with) with npm, or set hermes.codex.path.`;
	}
}
