// drive.mjs drives a running code-server (with the Hermes extension installed) in headless Debian
// chromium through puppeteer-core, as a person would: open the workspace and hello.txt, run "Hermes:
// Ask…" from the command palette, type the prompt, watch the progress notification, click "Allow
// once" on the command's modal dialog, then on the patch's notification (its multi-file diff editor
// open meanwhile, and its status bar item offering the same actions), see the open hello.txt show
// the patch (timed from the click), see the answer once, in the chat view (no answer toast, no
// transcript opened, no Output panel revealed), then run "Hermes: Undo Last Turn" and see hello.txt
// back as it was; then the chat view (see chat()) and codex's questions in it (see questions()).
// Between the answer and the undo, the patch's two hunks as changes under review, kept and reverted
// with their CodeLens; at the end, auto-approved patches timed from the disk to the editor (both in
// changes.mjs). It saves a screenshot of each step and prints one JSON summary line on stdout;
// editors/vscode/e2e_test.go runs it (with Node 24) and checks what codex wrote.
//
// Environment: E2E_URL (code-server's base URL), E2E_WORKSPACE, E2E_SHOTS (screenshot folder),
// E2E_PROMPT, E2E_TOOLS_DIR (where puppeteer-core is installed), E2E_CHROMIUM, E2E_TIMEOUT_MS,
// E2E_ANSWER (the final answer to wait for), E2E_FILE (the file the patch changes, open during the
// turn), E2E_BEFORE and E2E_AFTER (a line of its text before and after the patch), E2E_LAST_BEFORE
// and E2E_LAST_AFTER (the same of its second hunk), E2E_LATENCY_RUNS (how many patches to time),
// E2E_SECRET (the secret to type) and E2E_QUESTIONS_ANSWER (the answer after the questions).

import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { changes, latency } from './changes.mjs';

const env = (k, d) => process.env[k] ?? d;
const url = env('E2E_URL');
const workspace = env('E2E_WORKSPACE');
const shots = env('E2E_SHOTS');
const prompt = env('E2E_PROMPT', 'Say hello.');
const answer = env('E2E_ANSWER', 'Done in VS Code.');
const toolsDir = env('E2E_TOOLS_DIR');
const chromium = env('E2E_CHROMIUM', '/usr/bin/chromium');
const timeoutMs = Number(env('E2E_TIMEOUT_MS', '240000'));
const file = env('E2E_FILE', 'hello.txt');
const lineBefore = env('E2E_BEFORE', 'This line is old.');
const lineAfter = env('E2E_AFTER', 'This line was patched in VS Code.');
const lastBefore = env('E2E_LAST_BEFORE', 'The last line is old too.');
const lastAfter = env('E2E_LAST_AFTER', 'The last line was patched in VS Code too.');
const latencyRuns = Number(env('E2E_LATENCY_RUNS', '0'));
for (const [k, v] of Object.entries({ E2E_URL: url, E2E_WORKSPACE: workspace, E2E_SHOTS: shots, E2E_TOOLS_DIR: toolsDir })) {
	if (!v) {
		process.stderr.write(`drive.mjs: ${k} is required\n`);
		process.exit(2);
	}
}
mkdirSync(shots, { recursive: true });

// puppeteer-core lives in the e2e's tool cache, not beside this script.
const require = createRequire(join(toolsDir, 'package.json'));
const { default: puppeteer } = await import(pathToFileURL(require.resolve('puppeteer-core')).href);

const started = Date.now();
const elapsed = () => Date.now() - started;
const log = (...a) => process.stderr.write(`[drive +${(elapsed() / 1000).toFixed(1)}s] ${a.join(' ')}\n`);
const summary = {
	steps: [],
	screenshots: [],
	statusBar: [],
	progressTexts: [],
	dialogs: [],
	diffEditor: null,
	patchButtons: [],
	approvalQuickPick: [],
	review: null,
	patchToEditorMs: null,
	diskToEditorMs: null,
	changes: null,
	latency: null,
	undo: null,
	consoleErrors: [],
	error: null,
	durationMs: 0,
};

let browser;
let page;
let shotN = 0;

async function shot(name) {
	const file = join(shots, `${String(++shotN).padStart(2, '0')}-${name}.png`);
	await page.screenshot({ path: file });
	summary.screenshots.push(file);
	log('screenshot', file);
}

function step(name, extra = {}) {
	summary.steps.push({ name, atMs: elapsed(), ...extra });
	log('step', name, Object.keys(extra).length ? JSON.stringify(extra) : '');
}

/** waitText waits until an element matching selector has text containing every needle; returns that text. */
async function waitText(selector, needles, timeout = 60000) {
	log('waiting for', selector, JSON.stringify(needles));
	const handle = await page.waitForFunction(
		(sel, ns) => {
			for (const el of document.querySelectorAll(sel)) {
				const t = (el.innerText ?? el.textContent ?? '').replace(/\u00a0/g, ' '); // Monaco renders spaces as nbsp
				const joined = t.replace(/\n/g, ''); // a tab's label splits name and extension
				if (el.getClientRects().length > 0 && ns.every((n) => t.includes(n) || joined.includes(n))) {
					return t;
				}
			}
			return false;
		},
		{ timeout, polling: 200 },
		selector,
		needles,
	);
	return handle.jsonValue();
}

/** click clicks the first visible element matching selector whose text is exactly text (trimmed). */
async function click(selector, text, timeout = 30000) {
	await page.waitForFunction(
		(sel, txt) => [...document.querySelectorAll(sel)].some((el) => el.getClientRects().length > 0 && (el.innerText ?? '').trim() === txt),
		{ timeout, polling: 200 },
		selector,
		text,
	);
	const ok = await page.evaluate(
		(sel, txt) => {
			const el = [...document.querySelectorAll(sel)].find((e) => e.getClientRects().length > 0 && (e.innerText ?? '').trim() === txt);
			if (!el) {
				return false;
			}
			el.click();
			return true;
		},
		selector,
		text,
	);
	if (!ok) {
		throw new Error(`no ${selector} "${text}" to click`);
	}
}

/** statusBarText is the text of the Hermes status bar item (not the approval's). */
async function statusBarText() {
	return page.evaluate(() => {
		const el = [...document.querySelectorAll('.statusbar-item')].find(
			(e) => (e.innerText ?? '').includes('Hermes') && !(e.innerText ?? '').includes('approve'),
		);
		return el ? el.innerText.trim() : '';
	});
}

/** reviewState says whether a multi-file diff editor and its "Hermes: patch …" tab are visible. */
async function reviewState() {
	return page.evaluate(() => {
		const visible = (e) => e.getClientRects().length > 0;
		const multi = [...document.querySelectorAll('.monaco-component.multiDiffEditor')].filter(visible);
		const tab = [...document.querySelectorAll('.tab')].map((t) => (t.innerText ?? '').trim()).find((t) => t.startsWith('Hermes: patch'));
		return { open: multi.length > 0, tab: tab ?? null };
	});
}

/**
 * waitEditorText waits until the text editor of the file at path (not a diff's side) shows a line containing
 * needle, and unless anyState, has no unsaved edits (its tab not dirty); it answers the ms since the
 * in-page mark set by clickMarked or runCommand, and keeps the moment (epoch ms) for diskToEditor. It
 * watches the DOM's mutations, so the time is exact to the rendering.
 */
async function waitEditorText(path, name, needle, timeout = 60000, anyState = false) {
	const handle = await page.waitForFunction(
		(p, n, nd, any) => {
			// code-server's editors show vscode-remote://HOST/PATH URIs.
			const pathOf = (u) => {
				try {
					return decodeURIComponent(new URL(u).pathname);
				} catch {
					return '';
				}
			};
			const ed = [...document.querySelectorAll('.part.editor [data-uri]')].find(
				(e) => pathOf(e.getAttribute('data-uri')) === p && !e.closest('.monaco-diff-editor') && e.getClientRects().length > 0,
			);
			const lines = ed?.closest('.monaco-editor')?.querySelector('.view-lines') ?? ed?.querySelector('.view-lines');
			const text = (lines?.innerText ?? '').replace(/\u00a0/g, ' ');
			const dirty = [...document.querySelectorAll('.tab.dirty')].some((t) => (t.innerText ?? '').replace(/\n/g, '').includes(n));
			if (!text.includes(nd) || (!any && dirty)) {
				return false;
			}
			window.__hermesShownAt = performance.timeOrigin + performance.now(); // for diskToEditor
			return Math.round(performance.now() - (window.__hermesMark ?? 0));
		},
		{ timeout, polling: 'mutation' },
		path,
		name,
		needle,
		anyState,
	);
	return handle.jsonValue();
}

/**
 * diskToEditor is the ms from the file's last modification on disk (codex writing the patch) to the
 * moment the last waitEditorText saw it in the editor: both are this machine's clock.
 */
async function diskToEditor(path) {
	const shownAt = await page.evaluate(() => window.__hermesShownAt);
	return Math.round(shownAt - statSync(path).mtimeMs);
}

/** clickMarked is click, marking the moment in the page for waitEditorText. */
async function clickMarked(selector, text, timeout = 30000) {
	await page.waitForFunction(
		(sel, txt) => [...document.querySelectorAll(sel)].some((el) => el.getClientRects().length > 0 && (el.innerText ?? '').trim() === txt),
		{ timeout, polling: 200 },
		selector,
		text,
	);
	const ok = await page.evaluate(
		(sel, txt) => {
			const el = [...document.querySelectorAll(sel)].find((e) => e.getClientRects().length > 0 && (e.innerText ?? '').trim() === txt);
			window.__hermesMark = performance.now();
			el?.click();
			return !!el;
		},
		selector,
		text,
	);
	if (!ok) {
		throw new Error(`no ${selector} "${text}" to click`);
	}
}

/** runCommand runs a command from the palette, picking the row whose label is exactly title. */
async function runCommand(title, typed) {
	await page.keyboard.press('F1');
	await page.waitForSelector('.quick-input-widget .quick-input-box input', { visible: true });
	await page.keyboard.type(typed, { delay: 20 });
	await waitText('.quick-input-list .monaco-list-row', [title]);
	// The row's label is followed by its keybinding: pick the row whose label is exactly the title.
	const picked = await page.evaluate((t) => {
		const row = [...document.querySelectorAll('.quick-input-list .monaco-list-row')].find((r) =>
			[...r.querySelectorAll('.label-name')].some((l) => l.innerText.replace(/\u00a0/g, ' ').trim() === t),
		);
		window.__hermesMark = performance.now();
		row?.click();
		return !!row;
	}, title);
	if (!picked) {
		throw new Error(`no "${title}" row in the command palette`);
	}
}

async function run() {
	browser = await puppeteer.launch({
		executablePath: chromium,
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--window-size=1400,900'],
		defaultViewport: { width: 1400, height: 900 },
		protocolTimeout: timeoutMs,
	});
	page = await browser.newPage();
	page.setDefaultTimeout(60000);
	page.on('console', (m) => {
		if (m.type() === 'error' && summary.consoleErrors.length < 30) {
			summary.consoleErrors.push(m.text().slice(0, 300));
		}
	});

	// 1. The workbench with the workspace; the extension starts hermes-lsp (status bar: Hermes: idle).
	await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: 'domcontentloaded' });
	await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
	step('workbench loaded');
	// Open the file the patch changes, so that the prompt names it and it is open during the turn (quick open).
	const filePath = join(workspace, file);
	await page.keyboard.down('Control');
	await page.keyboard.press('KeyP');
	await page.keyboard.up('Control');
	await page.waitForSelector('.quick-input-widget .quick-input-box input', { visible: true });
	await page.keyboard.type(file, { delay: 20 });
	await waitText('.quick-input-list .monaco-list-row', [file]);
	await page.keyboard.press('Enter');
	await waitText('.tab', [file]);
	await waitEditorText(filePath, file, lineBefore);
	step(`opened ${file}`);
	await shot('workspace');
	// Not activated at startup: no Hermes status bar item until a Hermes command runs.
	summary.activeAtStartup = await page.evaluate(() => [...document.querySelectorAll('.statusbar-item')].some((e) => (e.innerText ?? '').includes('Hermes')));

	// 2. Command palette: Hermes: Ask…
	await runCommand('Hermes: Ask…', 'Hermes: Ask');
	step('ran Hermes: Ask…');

	// 3. The prompt (the command activated the extension: its status bar item is there).
	await waitText('.quick-input-widget', ['What should Hermes do?']);
	summary.statusBar.push((await waitText('.statusbar-item', ['Hermes'], 30000)).trim());
	await page.keyboard.type(prompt, { delay: 5 });
	await shot('prompt');
	await page.keyboard.press('Enter');
	step('sent the prompt');

	// 4. The progress notification, then the command's approval dialog.
	const progress = await waitText('.notifications-toasts .notification-toast', ['Hermes'], 60000);
	summary.progressTexts.push(progress.replace(/\s+/g, ' ').trim());
	step('progress notification', { text: progress.replace(/\s+/g, ' ').trim().slice(0, 160) });
	await shot('progress');

	const execDialog = await waitText('.monaco-dialog-box', ['run a command', 'Allow once'], 90000);
	summary.dialogs.push(execDialog.replace(/\s+/g, ' ').trim());
	// The prompt and the approvalWaiting turn event race: give the status bar a moment.
	await waitText('.statusbar-item', ['Hermes: approval needed'], 10000).catch(() => undefined);
	summary.statusBar.push(await statusBarText());
	step('command approval dialog', { statusBar: summary.statusBar.at(-1) });
	await shot('approval-command');
	// Exactly Deny, Allow once, Allow for session and Stop turn: no Cancel of VS Code's own.
	summary.dialogButtons = await page.evaluate(() =>
		[...document.querySelectorAll('.monaco-dialog-box .monaco-button')].map((b) => (b.innerText ?? '').trim()).filter(Boolean),
	);
	// Enter presses the dialog's focused (primary) button: it must be Deny, never a grant.
	const focused = await page.evaluate(() => (document.activeElement?.textContent ?? '').trim());
	summary.focusedButton = focused;
	if (focused !== 'Deny') {
		throw new Error(`the approval dialog's focused button is "${focused}", not Deny: Enter would grant`);
	}
	await click('.monaco-dialog-box .monaco-button', 'Allow once');
	step('clicked Allow once (command)');

	// 5. The patch: its multi-file diff editor opens, then a notification (not modal) and a status bar
	// item ask.
	const toastSel = '.notifications-toasts .notification-toast';
	const patchNotice = await waitText(toastSel, ['apply a patch', 'Allow once'], 90000);
	summary.dialogs.push(patchNotice.replace(/\s+/g, ' ').trim());
	summary.patchButtons = await page.evaluate((sel) => {
		const toast = [...document.querySelectorAll(sel)].find((t) => (t.innerText ?? '').includes('apply a patch'));
		return toast ? [...toast.querySelectorAll('.monaco-button')].map((b) => (b.innerText ?? '').trim()).filter(Boolean) : [];
	}, toastSel);
	await waitText('.monaco-component.multiDiffEditor', [lineAfter], 30000);
	summary.diffEditor = await page.evaluate(() => {
		const d = document.querySelector('.monaco-component.multiDiffEditor');
		const tab = [...document.querySelectorAll('.tab')].map((t) => t.innerText.trim()).find((t) => t.startsWith('Hermes: patch'));
		return d ? { tab: tab ?? '', text: (d.innerText ?? '').replace(/\u00a0/g, ' ').slice(0, 2000) } : null;
	});
	step('patch approval notification', { diffEditor: !!summary.diffEditor, buttons: summary.patchButtons });
	await shot('approval-patch-diff');
	// The status bar item re-asks in a quick pick; Escape leaves the approval open.
	await waitText('.statusbar-item', ['Hermes: approve patch?'], 10000);
	await page.evaluate(() => {
		const el = [...document.querySelectorAll('.statusbar-item')].find((e) => (e.innerText ?? '').includes('approve patch?'));
		(el?.querySelector('a') ?? el)?.click();
	});
	await waitText('.quick-input-widget', ['Deny', 'Allow once'], 30000);
	summary.approvalQuickPick = await page.evaluate(() =>
		[...document.querySelectorAll('.quick-input-list .monaco-list-row .label-name')].map((l) => l.innerText.replace(/\u00a0/g, ' ').trim()),
	);
	step('approval quick pick from the status bar', { items: summary.approvalQuickPick });
	await shot('approval-patch-quick-pick');
	await page.keyboard.press('Escape');
	await page.waitForFunction(() => ![...document.querySelectorAll('.quick-input-widget')].some((e) => e.getClientRects().length > 0), {
		timeout: 10000,
		polling: 100,
	});
	const during = await reviewState();
	await clickMarked(`${toastSel} .monaco-button`, 'Allow once');
	step('clicked Allow once (patch)');
	// The open file shows the patch by itself; the diff editor and the status bar item go away.
	const shown = waitEditorText(filePath, file, lineAfter, 60000);
	shown.catch(() => undefined); // awaited below, after the diff editor closed
	await page.waitForFunction(
		() =>
			![...document.querySelectorAll('.monaco-component.multiDiffEditor')].some((e) => e.getClientRects().length > 0) &&
			![...document.querySelectorAll('.tab')].some((t) => (t.innerText ?? '').trim().startsWith('Hermes: patch')),
		{ timeout: 30000, polling: 100 },
	);
	const after = await reviewState();
	const itemAfter = await page.evaluate(() => [...document.querySelectorAll('.statusbar-item')].some((e) => (e.innerText ?? '').includes('approve patch?')));
	summary.review = { openDuring: during.open, tabDuring: during.tab, openAfter: after.open, tabAfter: after.tab, statusItemAfter: itemAfter };
	summary.patchToEditorMs = await shown;
	summary.diskToEditorMs = await diskToEditor(filePath);
	step('the patch shows in the editor', { ms: summary.patchToEditorMs, diskMs: summary.diskToEditorMs, review: summary.review });
	await shot('patched-in-editor');

	// 6. The answer, once: in the chat view (revealed when the turn started), with the status bar saying
	// done; no answer toast, no transcript opened over the file, no Output panel revealed.
	await page
		.waitForFunction(() => [...document.querySelectorAll('.statusbar-item')].some((e) => (e.innerText ?? '').includes('Hermes: done')), {
			timeout: 90000,
			polling: 200,
		})
		.catch(() => undefined);
	summary.statusBar.push(await statusBarText());
	const answerFrame = await chatFrame();
	await chatText(answerFrame, [answer, 'completed'], 30000);
	summary.answerSurfaces = await page.evaluate((a) => {
		const visible = (e) => e.getClientRects().length > 0;
		const toasts = [...document.querySelectorAll('.notifications-toasts .notification-toast')].filter(visible).map((t) => (t.innerText ?? '').trim());
		const panel = document.querySelector('.part.panel');
		return {
			answerToasts: toasts.filter((t) => t.includes(a) || t.includes('Transcript:')),
			tabs: [...document.querySelectorAll('.tab')].map((t) => (t.innerText ?? '').replace(/\n/g, '').trim()),
			panelVisible: !!panel && visible(panel),
		};
	}, answer);
	summary.answerSurfaces.chatTranscriptLink = await answerFrame.evaluate(() => !!document.querySelector('.end button[data-transcript]'));
	step('answer shown once, in the chat', summary.answerSurfaces);
	await shot('answer');

	await changes(driver(), filePath);

	// 7. The status bar item: a click shows the status.
	await page.evaluate(() => {
		const el = [...document.querySelectorAll('.statusbar-item')].find((e) => (e.innerText ?? '').includes('Hermes'));
		(el?.querySelector('a') ?? el)?.click();
	});
	const status = await waitText('.quick-input-widget', ['Hermes'], 30000).catch(() => '');
	summary.statusQuickPick = status.replace(/\s+/g, ' ').trim().slice(0, 400);
	step('status shown', { ok: status !== '' });
	await shot('status');
	await page.keyboard.press('Escape');

	// 8. Hermes: Undo Last Turn: the editor and the disk (the Go test checks it) are back as they were.
	await runCommand('Hermes: Undo Last Turn', 'Hermes: Undo');
	step('ran Hermes: Undo Last Turn');
	const undoMs = await waitEditorText(filePath, file, lineBefore, 60000, true);
	const undoToast = await waitText(toastSel, ['Hermes undid'], 30000);
	const dirty = await page.evaluate(
		(n) => [...document.querySelectorAll('.tab.dirty')].some((t) => (t.innerText ?? '').replace(/\n/g, '').includes(n)),
		file,
	);
	// The chat marks the turn undone.
	const chatMarked = await chatText(answerFrame, ['undone'], 15000).then(
		() => true,
		() => false,
	);
	summary.undo = { editorMs: undoMs, toast: undoToast.replace(/\s+/g, ' ').trim(), dirty, chatMarked, disk: readFileSync(filePath, 'utf8') };
	step('undone', summary.undo);
	await shot('undone');

	// 9. Hermes: Review Changes (uncommitted changes, the first choice): the finding shows in the
	// Problems panel.
	await runCommand('Hermes: Review Changes', 'Hermes: Review');
	await waitText('.quick-input-list .monaco-list-row', ['Uncommitted changes']);
	const reviewAt = elapsed();
	await page.keyboard.press('Enter');
	step('ran Hermes: Review Changes');
	const finding = env('E2E_FINDING', 'Hello is too short');
	await page.keyboard.down('Control');
	await page.keyboard.down('Shift');
	await page.keyboard.press('KeyM'); // View: Toggle Problems
	await page.keyboard.up('Shift');
	await page.keyboard.up('Control');
	const problems = await waitText('.markers-panel', [finding], 90000);
	summary.problems = { text: problems.replace(/\s+/g, ' ').trim().slice(0, 400), ms: elapsed() - reviewAt };
	step('the finding in the Problems panel', summary.problems);
	await shot('review-problems');

	await chat();
	await latency(driver(), filePath);
}

/** driver is what e2e/changes.mjs's steps use of this script: the page, the summary and the helpers. */
function driver() {
	return {
		page,
		summary,
		step,
		shot,
		waitText,
		waitEditorText,
		diskToEditor,
		runCommand,
		chatFrame,
		chatText,
		chatAsk,
		file,
		lineBefore,
		lineAfter,
		lastBefore,
		lastAfter,
		latencyRuns,
	};
}

/**
 * nextQuestion waits for a question approval the chat view shows unanswered that is not in seen,
 * adds its id to seen and returns the selector of its element.
 */
async function nextQuestion(frame, seen, timeout = 60000) {
	const h = await frame.waitForFunction(
		(ids) => {
			const box = [...document.querySelectorAll('#log .question[data-question]')].find((b) => !ids.includes(b.dataset.question));
			return box ? box.dataset.question : false;
		},
		{ timeout, polling: 50 },
		seen,
	);
	const id = await h.jsonValue();
	seen.push(id);
	return `#log .question[data-question="${id}"]`;
}

/** questionState is what a question's element shows: its words, its buttons, and whether it has the focus. */
function questionState(frame, sel) {
	return frame.$eval(sel, (box) => ({
		text: box.innerText.replace(/\s+/g, ' ').trim().slice(0, 400),
		buttons: [...box.querySelectorAll('.q-actions button')].map((b) => b.textContent.trim()),
		focused: box.contains(document.activeElement),
	}));
}

/**
 * questions is codex's questions in the chat view (a turn on the chat's thread that asks each):
 * codex's approval of the MCP tool call (a form without fields: Accept), the MCP server's form (a
 * field to type: Submit empty first, which says what is missing, then typed), wider permissions (the
 * modal dialog: Allow once), and the agent's questions (a choice, and a secret typed in the Other
 * password field). Each is answered where the view shows it; the secret must be nowhere in the
 * page afterwards.
 */
async function questions(frame) {
	const secret = env('E2E_SECRET', 's3cret');
	const q = {};
	summary.questions = q;
	const seen = [];
	await chatAsk(frame, env('E2E_CHAT_Q4', 'CHAT-Q4 ask me everything'));

	let sel = await nextQuestion(frame, seen, 90000);
	// The view came up with the question's first field (here its Decline button) focused.
	await frame
		.waitForFunction((s) => document.querySelector(s)?.contains(document.activeElement), { timeout: 10000, polling: 50 }, sel)
		.catch(() => undefined);
	q.toolCall = await questionState(frame, sel);
	step('codex asks to call the MCP tool, in the chat', q.toolCall);
	await shot('question-tool-call');
	await frame.click(`${sel} button[data-reply="once"]`);

	sel = await nextQuestion(frame, seen);
	q.form = await questionState(frame, sel);
	await frame.click(`${sel} button[data-reply="once"]`);
	q.formError = await (
		await frame.waitForFunction((s) => document.querySelector(`${s} .q-field .q-error`)?.textContent || false, { timeout: 10000, polling: 50 }, sel)
	).jsonValue();
	await frame.type(`${sel} input.answer`, 'blue', { delay: 5 });
	await shot('question-form');
	await frame.click(`${sel} button[data-reply="once"]`);
	step('the MCP server form answered', { form: q.form, error: q.formError });

	const permDialog = await waitText('.monaco-dialog-box', ['network access', 'Allow once'], 60000);
	q.permissionsDialog = permDialog.replace(/\s+/g, ' ').trim().slice(0, 300);
	await click('.monaco-dialog-box .monaco-button', 'Allow once');
	step('wider permissions allowed once', { dialog: q.permissionsDialog });

	frame = await chatFrame();
	sel = await nextQuestion(frame, seen);
	q.userInput = await questionState(frame, sel);
	q.secretField = await frame.$eval(`${sel} .q-field[data-qid="token"] input.other-text`, (i) => i.type);
	await frame.click(`${sel} .q-field[data-qid="colour"] input[type=radio][value="Blue"]`);
	await frame.type(`${sel} .q-field[data-qid="token"] input.other-text`, secret, { delay: 5 });
	await shot('question-user-input');
	await frame.click(`${sel} button[data-reply="once"]`);
	step("the agent's questions answered", { userInput: q.userInput, secretField: q.secretField });

	await chatText(frame, [env('E2E_QUESTIONS_ANSWER', 'All answered.')], 60000);
	await frame.waitForFunction(() => !document.body.classList.contains('running'), { timeout: 30000, polling: 100 });
	q.outcomes = await frame.$$eval('#log .question.answered .decided', (ds) => ds.map((d) => d.textContent.trim()));
	q.unanswered = await frame.$$eval('#log .question:not(.answered)', (bs) => bs.length);
	// The secret is in no element, attribute or field of the page.
	q.secretInPage = await frame.evaluate(
		(s) => document.documentElement.outerHTML.includes(s) || [...document.querySelectorAll('input')].some((i) => i.value.includes(s)),
		secret,
	);
	step('questions answered', { outcomes: q.outcomes, secretInPage: q.secretInPage });
	await shot('questions-answered');
}

/** chatFrame finds the chat view's page: the webview frame with the input box. */
async function chatFrame(timeout = 30000) {
	const end = Date.now() + timeout;
	while (Date.now() < end) {
		for (const f of page.frames()) {
			if (await f.$('#input').catch(() => null)) {
				return f;
			}
		}
		await page.waitForNetworkIdle({ idleTime: 100, timeout: 2000 }).catch(() => undefined);
	}
	throw new Error('no chat view frame with #input');
}

/** chatText waits until the chat's log holds every needle, and returns its text. */
async function chatText(frame, needles, timeout = 60000) {
	const h = await frame.waitForFunction(
		(ns) => {
			const t = document.getElementById('log')?.innerText ?? '';
			return ns.every((n) => t.includes(n)) ? t : false;
		},
		{ timeout, polling: 50 },
		needles,
	);
	return h.jsonValue();
}

/** chatAsk types a question into the chat's input box and sends it with Enter. */
async function chatAsk(frame, text) {
	await frame.click('#input');
	await frame.type('#input', text, { delay: 5 });
	await page.keyboard.press('Enter');
}

/** clickViewAction clicks the chat view's title bar button labelled label (Threads…, Model…, New Thread). */
async function clickViewAction(label) {
	await page.waitForFunction(
		(l) =>
			[...document.querySelectorAll('.part.sidebar .action-label, .part.auxiliarybar .action-label')].some(
				(e) => e.getAttribute('aria-label') === l && e.getClientRects().length > 0,
			),
		{ timeout: 30000, polling: 100 },
		label,
	);
	await page.evaluate((l) => {
		const el = [...document.querySelectorAll('.part.sidebar .action-label, .part.auxiliarybar .action-label')].find(
			(e) => e.getAttribute('aria-label') === l && e.getClientRects().length > 0,
		);
		el.click();
	}, label);
}

/** logPosition is where the chat's conversation is scrolled: at its end or not, and the jump button. */
function logPosition(frame) {
	return frame.evaluate(() => {
		const log = document.getElementById('log');
		return {
			atEnd: log.scrollTop + log.clientHeight >= log.scrollHeight - 40,
			overflows: log.scrollHeight > log.clientHeight + 40,
			jump: !document.getElementById('jump').hidden,
		};
	});
}

// 10. The chat view: the input has the focus when it opens; the first turn is there (shown as it ran);
// a question with a long answer (code highlighted, copied with its button); a second question sent
// while scrolled up scrolls to it, streams (a "jump to latest" button while scrolled up again) and
// keeps the thread, while the diff opened in the chat stays open; New Thread (the title bar button)
// shows the empty chat; a command approval there answered with Escape stops the turn (never a
// grant); a past thread picked from the title bar shows its history.
async function chat() {
	summary.chat = {};
	await runCommand('Hermes: Open Chat', 'Hermes: Open Chat');
	let frame = await chatFrame();
	await frame.waitForFunction(() => document.activeElement?.id === 'input', { timeout: 10000, polling: 50 });
	summary.chat.inputFocused = true;
	step('chat view open, input focused');
	// The diff of the first turn, opened: it stays open while the answers below stream in.
	await frame.waitForSelector('details.diff summary', { timeout: 10000 });
	await frame.evaluate(() => {
		const d = document.querySelector('details.diff');
		d.open = true;
		d.__hermesMarker = 'opened';
	});

	// A long answer with code, a table and a task list: the code is highlighted and copies.
	await chatAsk(frame, env('E2E_CHAT_Q1', 'CHAT-Q1 show me code'));
	await chatText(frame, ['CHAT-Q1', env('E2E_CHAT_A1', 'Here is the code.')]);
	await frame.waitForSelector('.code-block pre code.language-go .hljs-keyword', { timeout: 10000 });
	summary.chat.highlight = await frame.evaluate(() => {
		const code = document.querySelector('.code-block pre code.language-go');
		return {
			keywords: [...code.querySelectorAll('.hljs-keyword')].map((k) => k.textContent).slice(0, 5),
			strings: code.querySelectorAll('.hljs-string').length,
			tabSize: getComputedStyle(code.closest('pre')).tabSize,
			overflowX: getComputedStyle(code.closest('pre')).overflowX,
			table: !!document.querySelector('.msg.answer table th'),
			tasks: document.querySelectorAll('.msg.answer li.task-list-item input[type=checkbox]').length,
		};
	});
	await shot('chat-code');
	await page.browserContext().overridePermissions(url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
	await frame.click('.code-block .copy');
	await frame.waitForFunction(() => document.querySelector('.code-block .copy')?.textContent === 'Copied', { timeout: 10000, polling: 50 });
	summary.chat.copied = await page.evaluate(() => navigator.clipboard.readText()).catch((e) => `clipboard: ${e}`);
	step('chat code highlighted and copied', { highlight: summary.chat.highlight, copied: summary.chat.copied.slice(0, 80) });
	summary.chat.header1 = await frame.$eval('#info', (e) => e.textContent);

	// Scrolled up, a send scrolls to the newest message.
	await frame.evaluate(() => {
		document.getElementById('log').scrollTop = 0;
	});
	summary.chat.beforeSend = await logPosition(frame);
	await chatAsk(frame, env('E2E_CHAT_Q2', 'CHAT-Q2 and then?'));
	const first = await chatText(frame, ['CHAT-Q2', env('E2E_CHAT_A2_START', 'Streaming')]);
	summary.chat.afterSend = await logPosition(frame);
	// Scrolled up while it streams: the next piece shows the "jump to latest" button, which goes back down.
	await frame.evaluate(() => {
		document.getElementById('log').scrollTop = 0;
	});
	await frame.waitForFunction(() => !document.getElementById('jump').hidden, { timeout: 10000, polling: 50 });
	summary.chat.jumpShown = true;
	await shot('chat-jump-to-latest');
	await frame.click('#jump');
	summary.chat.afterJump = await logPosition(frame);
	const second = await chatText(frame, [env('E2E_CHAT_A2_END', 'the end.')]);
	await frame.waitForFunction(() => !document.body.classList.contains('running'), { timeout: 30000, polling: 100 });
	summary.chat.first = first;
	summary.chat.second = second;
	summary.chat.diffStillOpen = await frame.evaluate(() => {
		const d = document.querySelector('details.diff');
		return !!d && d.open && d.__hermesMarker === 'opened';
	});
	summary.chat.header2 = await frame.$eval('#info', (e) => e.textContent);
	step('chat streamed while scrolled up', {
		beforeSend: summary.chat.beforeSend,
		afterSend: summary.chat.afterSend,
		afterJump: summary.chat.afterJump,
		diffStillOpen: summary.chat.diffStillOpen,
		header: summary.chat.header2,
	});
	await shot('chat-streamed');

	// New Thread from the view's title bar: the empty chat says what to do.
	await clickViewAction('New Thread');
	await frame.waitForFunction(() => !document.getElementById('empty').hidden && document.getElementById('log').children.length === 0, {
		timeout: 10000,
		polling: 50,
	});
	summary.chat.empty = await frame.$eval('#empty', (e) => e.innerText.replace(/\s+/g, ' ').trim());
	await shot('chat-empty');
	// A command approval on the new thread: Escape stops the turn, never grants.
	await chatAsk(frame, env('E2E_CHAT_Q3', 'CHAT-Q3 on a new thread'));
	const escDialog = await waitText('.monaco-dialog-box', ['run a command', 'Allow once'], 60000);
	summary.chat.escapeDialog = escDialog.replace(/\s+/g, ' ').trim().slice(0, 200);
	await page.keyboard.press('Escape');
	summary.chat.escaped = await chatText(frame, ['stop (user)'], 30000).then(
		() => 'stop (user)',
		(e) => `no stop: ${e}`,
	);
	await frame.waitForFunction(() => !document.body.classList.contains('running'), { timeout: 30000, polling: 100 });
	step('Escape on the approval dialog stopped the turn', { escaped: summary.chat.escaped });

	await questions(frame);

	// The first thread, picked back from the title bar's Threads: its history, by its title.
	await clickViewAction('Threads…');
	const pastTitle = env('E2E_PAST_THREAD', 'Make vscode_made.txt');
	await waitText('.quick-input-list .monaco-list-row', [pastTitle]);
	summary.chat.picker = await page.evaluate(() =>
		[...document.querySelectorAll('.quick-input-list .monaco-list-row .label-name')].map((l) => l.innerText.replace(/\u00a0/g, ' ').trim()),
	);
	await page.evaluate((t) => {
		const row = [...document.querySelectorAll('.quick-input-list .monaco-list-row')].find((r) => (r.innerText ?? '').includes(t));
		row?.click();
	}, pastTitle);
	frame = await chatFrame();
	// The view shows the picked thread alone: its questions, not the new thread's.
	const restored = await (
		await frame.waitForFunction(
			() => {
				const t = document.getElementById('log')?.innerText ?? '';
				return t.includes('CHAT-Q1') && t.includes('CHAT-Q2') && !t.includes('CHAT-Q3') ? t : false;
			},
			{ timeout: 30000, polling: 50 },
		)
	).jsonValue();
	summary.chat.restored = restored.slice(0, 2000);
	summary.chat.restoredHasQ3 = restored.includes('CHAT-Q3');
	// The history is codex's (hermes.threadHistory): each turn's last line, and whether the turn
	// Undo made codex forget (thread/revert) shows, as the markdown transcript still has it.
	summary.chat.restoredEnds = await frame.$$eval('#log .end', (ends) => ends.map((e) => e.textContent.trim()));
	summary.chat.restoredHasUndone = restored.includes('vscode_made.txt');
	summary.chat.header3 = await frame.$eval('#info', (e) => e.textContent);
	step('past thread picked', { chars: restored.length, header: summary.chat.header3, picker: summary.chat.picker });
	await shot('chat-past-thread');
}

try {
	await Promise.race([run(), new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs))]);
} catch (err) {
	summary.error = String(err?.stack ?? err);
	log('error', summary.error);
	if (page) {
		await shot('failure').catch(() => undefined);
		summary.statusBar.push(await statusBarText().catch(() => ''));
		summary.failureDom = await page
			.evaluate(() => {
				const pick = (sel) => [...document.querySelectorAll(sel)].map((e) => (e.innerText ?? '').trim()).filter(Boolean);
				return {
					toasts: pick('.notification-toast'),
					dialogs: pick('.monaco-dialog-box'),
					quickInput: pick('.quick-input-widget .quick-input-title, .quick-input-widget .quick-input-message, .quick-input-widget .monaco-list-row'),
					tabs: [...document.querySelectorAll('.tab')].map((e) => `${e.className}: ${(e.innerText ?? '').trim()}`),
					editors: [...document.querySelectorAll('[data-uri]')].map(
						(e) =>
							`${e.getAttribute('data-uri')} ${e.className} rects=${e.getClientRects().length}: ${(e.closest('.monaco-editor')?.querySelector('.view-lines')?.innerText ?? '').slice(0, 200)}`,
					),
					active: document.activeElement?.outerHTML?.slice(0, 300),
				};
			})
			.catch(() => null);
	}
} finally {
	summary.durationMs = elapsed();
	await browser?.close().catch(() => undefined);
	process.stdout.write(JSON.stringify(summary) + '\n');
	process.exit(summary.error ? 1 : 0);
}
