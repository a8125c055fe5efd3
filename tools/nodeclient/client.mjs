// client.mjs drives hermes-lsp the way VS Code's language client does, through Microsoft's own
// libraries (vscode-languageserver-protocol over vscode-jsonrpc): it spawns the server, initializes
// with VS Code's window and workspace capabilities, runs hermes.ask for each --prompt in turn,
// answers every approval prompt "Allow once", waits for each turn's progress to end and its final
// message, runs hermes.undoTurn after the turn --undo-after names, then each --step, shuts the
// server down, and prints one JSON summary line on stdout. lsp/nodeclient_test.go runs it.
//
// Usage:
//
//	node client.mjs --server BIN --folder DIR --file FILE --prompt TEXT [--prompt TEXT ...]
//	                --settings JSON [--undo-after N] [--client-name NAME] [--step JSON ...]
//	                [--log-file PATH] [--log-level LEVEL] [--timeout-ms N] [-- EXTRA SERVER ARGS]
//
// --settings is the `hermes` settings object: it is sent as initializationOptions and returned for
// workspace/configuration. workspace/applyEdit is applied as VS Code does with
// files.refactoring.autoSave: to the open document (didChange) or the file, then saved on disk
// (didSave). A --step is one of {"ask": {prompt, line?, model?, effort?}} (a turn asked from that
// line of --file, waited for as a --prompt's), {"command": NAME, "args": {...}} (a string "$ask:N"
// in args is the thread id of the Nth ask step), {"hover": LINE}, {"review": {target?, expect?}}
// (hermes.review on --file, then its findings as diagnostics there) or {"codeAction": {line, run}}
// (the code action titled run on that line, a turn it starts waited for); each one's result goes
// into the summary's steps. Any protocol error, unexpected server exit or timeout exits non-zero (the summary is
// still printed, with `error`), after the server process has been ended.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { TextDocument } from 'vscode-languageserver-textdocument';

import {
	ApplyWorkspaceEditRequest,
	ConfigurationRequest,
	DidChangeTextDocumentNotification,
	DidOpenTextDocumentNotification,
	DidSaveTextDocumentNotification,
	ExecuteCommandRequest,
	ExitNotification,
	InitializeRequest,
	InitializedNotification,
	LogMessageNotification,
	PublishDiagnosticsNotification,
	ShowDocumentRequest,
	ShowMessageNotification,
	ShowMessageRequest,
	ShutdownRequest,
	StreamMessageReader,
	StreamMessageWriter,
	WorkDoneProgress,
	WorkDoneProgressCreateRequest,
	createProtocolConnection,
} from 'vscode-languageserver-protocol/node';

const { values: opts, positionals: extraArgs } = parseArgs({
	options: {
		server: { type: 'string', default: process.env.HERMES_LSP_BIN },
		folder: { type: 'string' },
		file: { type: 'string' },
		prompt: { type: 'string', multiple: true, default: ['Say hello.'] },
		'undo-after': { type: 'string', default: '0' },
		step: { type: 'string', multiple: true, default: [] },
		'client-name': { type: 'string', default: 'Visual Studio Code (vscode-languageserver-protocol)' },
		settings: { type: 'string', default: process.env.HERMES_SETTINGS ?? '{}' },
		'log-file': { type: 'string' },
		'log-level': { type: 'string', default: 'debug' },
		'timeout-ms': { type: 'string', default: '60000' },
	},
	allowPositionals: true,
});
for (const required of ['server', 'folder', 'file']) {
	if (!opts[required]) {
		process.stderr.write(`client.mjs: --${required} is required\n`);
		process.exit(2);
	}
}
const settings = JSON.parse(opts.settings);
const timeoutMs = Number(opts['timeout-ms']);
const started = Date.now();
const elapsed = () => Date.now() - started;
const log = (...args) => process.stderr.write(`[nodeclient +${elapsed()}ms] ${args.join(' ')}\n`);

const summary = {
	serverPid: 0,
	capabilities: null,
	askResult: null,
	askResults: [],
	applyEdits: [],
	undoResult: null,
	steps: [],
	diagnostics: {},
	progressTokens: [],
	progress: [],
	approvals: [],
	turnEventKinds: [],
	showMessages: [],
	logMessages: 0,
	showDocuments: [],
	configurationRequests: 0,
	exitCode: null,
	signal: null,
	error: null,
	durationMs: 0,
};

// --- the server process ---------------------------------------------------------------------
const serverArgs = ['--stdio', '--log-level', opts['log-level']];
if (opts['log-file']) serverArgs.push('--log-file', opts['log-file']);
serverArgs.push(...extraArgs);
const proc = spawn(opts.server, serverArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
summary.serverPid = proc.pid ?? 0;
const exited = new Promise((resolve) => {
	proc.on('exit', (code, signal) => {
		summary.exitCode = code;
		summary.signal = signal;
		resolve();
	});
});
let exitExpected = false;
let fail; // rejects `failed`: the first error anywhere ends the run
const failed = new Promise((_, reject) => { fail = reject; });
failed.catch(() => {});
proc.on('error', (err) => fail(new Error(`spawning ${opts.server}: ${err.message}`)));
exited.then(() => {
	if (!exitExpected) fail(new Error(`server exited early: code ${summary.exitCode} signal ${summary.signal}`));
});

// --- the connection -------------------------------------------------------------------------
const connection = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
connection.onError(([err]) => fail(new Error(`protocol error: ${err?.message ?? err}`)));
connection.onClose(() => {
	if (!exitExpected) fail(new Error('connection closed before exit'));
});
connection.onUnhandledNotification((n) => log('unhandled notification', n.method));

// Progress: record every token the server creates, and every begin/report/end on it. Each turn
// waits for the next end and the first showMessage after it.
let progressEnded, messageAfterEnd, progressEnd, finalMessage;
let endIndex = -1; // index in showMessages of the first message after the end
function expectTurnEnd() {
	endIndex = -1;
	progressEnd = new Promise((resolve) => { progressEnded = resolve; });
	finalMessage = new Promise((resolve) => { messageAfterEnd = resolve; });
}
expectTurnEnd();
connection.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
	summary.progressTokens.push(params.token);
	connection.onProgress(WorkDoneProgress.type, params.token, (value) => {
		summary.progress.push({ token: params.token, ...value });
		log('progress', value.kind, JSON.stringify(value.title ?? value.message ?? ''));
		if (value.kind === 'end') {
			endIndex = summary.showMessages.length;
			progressEnded(value);
		}
	});
	return null;
});

// Approvals (and any other prompt): "Allow once" when offered, else dismiss (null).
connection.onRequest(ShowMessageRequest.type, (params) => {
	const titles = (params.actions ?? []).map((a) => a.title);
	const allow = (params.actions ?? []).find((a) => a.title === 'Allow once');
	summary.approvals.push({ type: params.type, message: params.message, actions: titles, answered: allow ? allow.title : null });
	log('showMessageRequest', JSON.stringify(params.message.split('\n')[0]), '->', allow ? allow.title : 'null');
	return allow ?? null;
});

connection.onNotification(ShowMessageNotification.type, (params) => {
	summary.showMessages.push({ type: params.type, message: params.message });
	log('showMessage', JSON.stringify(params.message.split('\n')[0]));
	if (endIndex >= 0 && summary.showMessages.length > endIndex) messageAfterEnd(params);
});
connection.onNotification(LogMessageNotification.type, () => { summary.logMessages++; });

// Diagnostics: the newest list per document; waiters are woken on each.
const diagnosticWaiters = new Set();
connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
	summary.diagnostics[params.uri] = params.diagnostics;
	for (const w of diagnosticWaiters) w();
});
function diagnosticsOf(uri, want) {
	return new Promise((resolve) => {
		const check = () => {
			const list = (summary.diagnostics[uri] ?? []).filter((d) => d.source === 'hermes' && d.code !== 'instruction');
			if (list.length >= want) {
				diagnosticWaiters.delete(check);
				resolve(list);
			}
		};
		diagnosticWaiters.add(check);
		check();
	});
}

let documentShown;
const transcriptShown = new Promise((resolve) => { documentShown = resolve; });
connection.onRequest(ShowDocumentRequest.type, (params) => {
	summary.showDocuments.push({ uri: params.uri, external: params.external ?? false, takeFocus: params.takeFocus ?? null });
	log('showDocument', params.uri);
	documentShown(params);
	return { success: true };
});

connection.onRequest(ConfigurationRequest.type, (params) => {
	summary.configurationRequests++;
	return params.items.map((item) => (item.section === 'hermes' ? settings : null));
});

connection.onNotification('hermes/turnEvent', (params) => {
	summary.turnEventKinds.push(params?.event?.kind);
});

// Open documents, by URI: the editor's text and version.
const documents = new Map();

// workspace/applyEdit, as VS Code applies an edit marked isRefactoring with its default
// files.refactoring.autoSave: resource operations on disk; text edits to the open document (then
// didChange) or to the file's text; each changed file saved (then didSave for an open one).
connection.onRequest(ApplyWorkspaceEditRequest.type, async (params) => {
	const record = { label: params.label ?? null, metadata: params.metadata ?? null, changes: [] };
	summary.applyEdits.push(record);
	try {
		const changes = params.edit.documentChanges ?? Object.entries(params.edit.changes ?? {}).map(([uri, edits]) => ({ textDocument: { uri, version: null }, edits }));
		for (const change of changes) {
			record.changes.push(change.kind ?? 'edit');
			if (change.kind) {
				applyResourceOperation(change);
			} else {
				await applyTextEdits(change.textDocument, change.edits);
			}
		}
		log('applyEdit', JSON.stringify(params.label ?? ''), record.changes.join(','));
		return { applied: true };
	} catch (err) {
		log('applyEdit failed:', err.message);
		return { applied: false, failureReason: err.message };
	}
});

function applyResourceOperation(op) {
	const path = fileURLToPath(op.uri);
	switch (op.kind) {
	case 'create':
		if (existsSync(path) && !op.options?.overwrite) {
			if (op.options?.ignoreIfExists) return;
			throw new Error(`${path} exists`);
		}
		writeFileSync(path, '');
		return;
	case 'delete':
		if (!existsSync(path)) {
			if (op.options?.ignoreIfNotExists) return;
			throw new Error(`${path} does not exist`);
		}
		rmSync(path, { recursive: !!op.options?.recursive });
		documents.delete(op.uri);
		return;
	case 'rename':
		renameSync(path, fileURLToPath(op.newUri));
		return;
	default:
		throw new Error(`unknown resource operation ${op.kind}`);
	}
}

async function applyTextEdits(id, edits) {
	const path = fileURLToPath(id.uri);
	const open = documents.get(id.uri);
	if (open && id.version != null && id.version !== open.version) {
		throw new Error(`${id.uri} is at version ${open.version}, the edit is for ${id.version}`);
	}
	const before = open ? open.text : readFileSync(path, 'utf8');
	const text = TextDocument.applyEdits(TextDocument.create(id.uri, 'plaintext', 0, before), edits);
	writeFileSync(path, text);
	if (open) {
		open.version++;
		open.text = text;
		await connection.sendNotification(DidChangeTextDocumentNotification.type, {
			textDocument: { uri: id.uri, version: open.version },
			contentChanges: [{ text }],
		});
		await connection.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri: id.uri }, text });
	}
}

connection.listen();

// --- the session ----------------------------------------------------------------------------
function withTimeout(promise, what) {
	const left = timeoutMs - elapsed();
	let timer;
	const timeout = new Promise((_, reject) => {
		timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), Math.max(left, 0));
	});
	return Promise.race([promise, timeout, failed]).finally(() => clearTimeout(timer));
}

async function session() {
	const folderUri = pathToFileURL(opts.folder).href;
	const init = await withTimeout(connection.sendRequest(InitializeRequest.type, {
		processId: process.pid,
		clientInfo: { name: opts['client-name'], version: '1.139.0' },
		locale: 'en',
		rootPath: opts.folder,
		rootUri: folderUri,
		workspaceFolders: [{ uri: folderUri, name: basename(opts.folder) }],
		initializationOptions: settings,
		capabilities: {
			workspace: {
				applyEdit: true,
				// metadataSupport: vscode-languageclient 11 declares it (the undo's isRefactoring).
				workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'], metadataSupport: true },
				didChangeConfiguration: { dynamicRegistration: true },
				executeCommand: { dynamicRegistration: true },
				configuration: true,
				workspaceFolders: true,
			},
			textDocument: {
				synchronization: { dynamicRegistration: true, didSave: true },
				codeAction: {
					dynamicRegistration: true,
					codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'source'] } },
				},
			},
			window: {
				workDoneProgress: true,
				showMessage: { messageActionItem: { additionalPropertiesSupport: true } },
				showDocument: { support: true },
			},
			general: { positionEncodings: ['utf-16'] },
		},
		trace: 'off',
	}), 'initialize');
	summary.capabilities = init.capabilities;
	const commands = init.capabilities?.executeCommandProvider?.commands ?? [];
	if (!commands.includes('hermes.ask')) throw new Error(`server does not offer hermes.ask: ${JSON.stringify(commands)}`);
	await connection.sendNotification(InitializedNotification.type, {});

	const fileUri = pathToFileURL(opts.file).href;
	const text = readFileSync(opts.file, 'utf8');
	documents.set(fileUri, { version: 1, text });
	await connection.sendNotification(DidOpenTextDocumentNotification.type, {
		textDocument: { uri: fileUri, languageId: 'plaintext', version: 1, text },
	});

	const undoAfter = Number(opts['undo-after']);
	for (const [i, prompt] of opts.prompt.entries()) {
		expectTurnEnd();
		const result = await withTimeout(connection.sendRequest(ExecuteCommandRequest.type, {
			command: 'hermes.ask',
			arguments: [{ prompt, uri: fileUri }],
		}), 'hermes.ask');
		summary.askResults.push(result);
		summary.askResult ??= result;
		log('hermes.ask ->', JSON.stringify(result));

		await withTimeout(progressEnd, `the progress end of turn ${i + 1}`);
		await withTimeout(finalMessage, `the final showMessage after the progress end of turn ${i + 1}`);
		if (i + 1 === undoAfter) {
			summary.undoResult = await withTimeout(connection.sendRequest(ExecuteCommandRequest.type, {
				command: 'hermes.undoTurn',
				arguments: [{ uri: fileUri }],
			}), 'hermes.undoTurn');
			log('hermes.undoTurn ->', JSON.stringify(summary.undoResult));
		}
	}
	await runSteps(fileUri);
	if (settings.openTranscript !== false) await withTimeout(transcriptShown, 'the transcript (window/showDocument)');

	await withTimeout(connection.sendRequest(ShutdownRequest.type), 'shutdown');
	exitExpected = true;
	await connection.sendNotification(ExitNotification.type);
	await withTimeout(exited, 'the server to exit');
}

// runSteps runs the --step list in order (see the usage).
async function runSteps(fileUri) {
	const askThreads = [];
	const resolve = (v) => {
		if (typeof v === 'string' && v.startsWith('$ask:')) return askThreads[Number(v.slice(5))];
		if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
		return v;
	};
	for (const raw of opts.step) {
		const step = JSON.parse(raw);
		if (step.ask) {
			const { line, ...rest } = step.ask;
			const args = { ...rest, uri: fileUri };
			if (line !== undefined) args.range = { start: { line, character: 0 }, end: { line, character: 1 } };
			expectTurnEnd();
			const result = await withTimeout(connection.sendRequest(ExecuteCommandRequest.type, { command: 'hermes.ask', arguments: [args] }), 'hermes.ask');
			askThreads.push(result.threadId);
			log('step ask ->', JSON.stringify(result));
			await withTimeout(progressEnd, 'the progress end of an ask step');
			await withTimeout(finalMessage, 'the final showMessage of an ask step');
			summary.steps.push({ kind: 'ask', result });
		} else if (step.command) {
			const result = await withTimeout(connection.sendRequest(ExecuteCommandRequest.type, { command: step.command, arguments: [resolve(step.args ?? {})] }), step.command);
			log('step', step.command, '->', JSON.stringify(result));
			summary.steps.push({ kind: step.command, result });
		} else if (step.review) {
			const began = Date.now();
			const result = await withTimeout(connection.sendRequest(ExecuteCommandRequest.type, { command: 'hermes.review', arguments: [{ uri: fileUri, ...step.review }] }), 'hermes.review');
			const diagnostics = await withTimeout(diagnosticsOf(fileUri, step.review.expect ?? 1), 'the review findings as diagnostics');
			summary.steps.push({ kind: 'review', result, diagnostics, ms: Date.now() - began });
		} else if (step.codeAction) {
			const { line, run } = step.codeAction;
			const diagnostics = (summary.diagnostics[fileUri] ?? []).filter((d) => d.range.start.line <= line && line <= d.range.end.line);
			const actions = await withTimeout(connection.sendRequest('textDocument/codeAction', {
				textDocument: { uri: fileUri },
				range: { start: { line, character: 0 }, end: { line, character: 1 } },
				context: { diagnostics },
			}), 'codeAction');
			const action = (actions ?? []).find((a) => a.title === run);
			if (!action) throw new Error(`no code action ${run} on line ${line}: ${JSON.stringify((actions ?? []).map((a) => a.title))}`);
			const ask = action.command.command.endsWith('hermes.ask');
			if (ask) expectTurnEnd();
			const result = await withTimeout(connection.sendRequest(ExecuteCommandRequest.type, action.command), run);
			if (ask) {
				await withTimeout(progressEnd, 'the progress end of the code action\'s turn');
				await withTimeout(finalMessage, 'the final showMessage of the code action\'s turn');
			}
			summary.steps.push({ kind: 'codeAction', result, action });
		} else if (step.hover !== undefined) {
			const result = await withTimeout(connection.sendRequest('textDocument/hover', {
				textDocument: { uri: fileUri }, position: { line: step.hover, character: 0 },
			}), 'hover');
			summary.steps.push({ kind: 'hover', result });
		} else {
			throw new Error(`unknown step ${raw}`);
		}
	}
}

let code = 0;
try {
	await session();
} catch (err) {
	summary.error = err?.message ?? String(err);
	log('error:', summary.error);
	code = 1;
}
if (summary.exitCode === null && summary.signal === null) {
	// The server is still running after an error: end it (by its pid) and wait for it.
	exitExpected = true;
	proc.kill('SIGKILL');
	await exited;
}
connection.dispose();
summary.durationMs = elapsed();
if (code === 0 && summary.exitCode !== 0) {
	summary.error = `server exit code ${summary.exitCode} signal ${summary.signal}`;
	code = 1;
}
process.stdout.write(JSON.stringify(summary) + '\n');
process.exit(code);
