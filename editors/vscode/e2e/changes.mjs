// changes.mjs: the steps of e2e/drive.mjs about the agent's changes (issue 28): the patch's two
// hunks as changes under review in the editor (CodeLens rows, highlighted lines, the status bar's
// count and the diff it opens), kept and reverted with their CodeLens; and the timed patches, from
// the disk to the editor. Each step takes drive.mjs's page, summary and helpers as d (see its
// driver()).

import { readFileSync } from 'node:fs';

/** lensRows are the CodeLens rows of the editor area with a Keep, top to bottom, each as one line of text. */
function lensRows(page) {
	return page.evaluate(() =>
		[...document.querySelectorAll('.part.editor .codelens-decoration')]
			.filter((e) => e.getClientRects().length > 0 && (e.innerText ?? '').includes('Keep'))
			.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
			.map((e) =>
				(e.innerText ?? '')
					.replace(/\u00a0/g, ' ')
					.replace(/\s+/g, ' ')
					.trim(),
			),
	);
}

/** waitLensRows waits until there are n CodeLens rows with a Keep and a Revert link (and each says what it replaced). */
async function waitLensRows(page, n, timeout = 30000) {
	await page.waitForFunction(
		(want) => {
			const rows = [...document.querySelectorAll('.part.editor .codelens-decoration')].filter(
				(e) => e.getClientRects().length > 0 && (e.innerText ?? '').includes('Keep'),
			);
			// Each with its Keep and Revert links: VS Code first draws the lenses it cached as plain text.
			return rows.length === want && rows.every((r) => (r.innerText ?? '').includes('−') && r.querySelectorAll('a').length >= 2);
		},
		{ timeout, polling: 'mutation' },
		n,
	);
	return lensRows(page);
}

/** changeCount is the status bar's count of changes under review ('' when it is hidden). */
function changeCount(page) {
	return page.evaluate(() => {
		const el = [...document.querySelectorAll('.statusbar-item')].find((e) => /^\d+ changes?$/.test((e.innerText ?? '').trim()));
		return el && el.getClientRects().length > 0 ? el.innerText.trim() : '';
	});
}

/**
 * clickLens clicks, with the mouse (the editor takes a CodeLens click from its mouse events, not the
 * link's click event), the link titled title in the CodeLens row at index row (top to bottom),
 * marking the moment.
 */
async function clickLens(page, row, title) {
	const box = await page.evaluate(
		(i, t) => {
			const rows = [...document.querySelectorAll('.part.editor .codelens-decoration')]
				.filter((e) => e.getClientRects().length > 0 && (e.innerText ?? '').includes('Keep'))
				.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
			const link = [...(rows[i]?.querySelectorAll('a') ?? [])].find((a) => (a.innerText ?? '').trim() === t);
			if (!link) {
				return null;
			}
			const r = link.getBoundingClientRect();
			return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
		},
		row,
		title,
	);
	if (!box) {
		throw new Error(`no CodeLens "${title}" in row ${row}`);
	}
	await page.evaluate(() => {
		window.__hermesMark = performance.now();
	});
	await page.mouse.click(box.x, box.y);
}

/**
 * changes: the patch's two hunks are changes under review, shown inline: their lines highlighted, a
 * CodeLens row above each (Keep | Revert | the line it replaced), "2 changes" in the status bar. Keep
 * on the first takes its row away and leaves its text; Revert on the second puts its old line back,
 * in the editor (saved) and on disk.
 */
export async function changes(d, filePath) {
	const { page, summary, step, shot, waitText, waitEditorText, file, lineBefore, lineAfter, lastBefore, lastAfter } = d;
	const c = {};
	summary.changes = c;
	c.lenses = await waitLensRows(page, 2);
	await page.waitForFunction(() => [...document.querySelectorAll('.statusbar-item')].some((e) => /^2 changes$/.test((e.innerText ?? '').trim())), {
		timeout: 10000,
		polling: 100,
	});
	c.count = await changeCount(page);
	c.highlighted = await page.evaluate(() => document.querySelectorAll('.part.editor .view-overlays [class*="ced-"]').length);
	step('the changes under review inline', { lenses: c.lenses, count: c.count, highlighted: c.highlighted });
	await shot('changes-inline');

	// The count opens one multi-file diff of the changes (the file before them against the file now),
	// with Keep and Revert for the file in its title bar.
	await page.evaluate(() => {
		const el = [...document.querySelectorAll('.statusbar-item')].find((e) => /^\d+ changes?$/.test((e.innerText ?? '').trim()));
		(el?.querySelector('a') ?? el)?.click();
	});
	c.review = await waitText('.monaco-component.multiDiffEditor', [lineBefore, lineAfter, lastBefore, lastAfter], 30000);
	c.review = c.review.replace(/\s+/g, ' ').slice(0, 600);
	c.reviewTab = await page.evaluate(
		() => [...document.querySelectorAll('.tab')].map((t) => (t.innerText ?? '').trim()).find((t) => t.startsWith('Hermes: changes')) ?? '',
	);
	c.reviewActions = await page.evaluate(() =>
		[...document.querySelectorAll('.part.editor .title-actions .action-label, .part.editor .editor-actions .action-label')]
			.map((e) => e.getAttribute('aria-label') ?? '')
			.filter((l) => l.includes('in File')),
	);
	step('the changes in one diff', { tab: c.reviewTab, actions: c.reviewActions });
	await shot('changes-diff');
	await page.keyboard.down('Control');
	await page.keyboard.press('KeyW');
	await page.keyboard.up('Control');
	await page.waitForFunction(() => ![...document.querySelectorAll('.tab')].some((t) => (t.innerText ?? '').trim().startsWith('Hermes: changes')), {
		timeout: 10000,
		polling: 100,
	});
	await waitEditorText(filePath, file, lineAfter, 10000, true);
	await waitLensRows(page, 2);

	await clickLens(page, 0, 'Keep');
	const keepStart = Date.now();
	c.lensesAfterKeep = await waitLensRows(page, 1);
	c.keepMs = Date.now() - keepStart;
	await page.waitForFunction(() => [...document.querySelectorAll('.statusbar-item')].some((e) => /^1 change$/.test((e.innerText ?? '').trim())), {
		timeout: 10000,
		polling: 100,
	});
	c.countAfterKeep = await changeCount(page);
	step('kept the first change with its CodeLens', { lenses: c.lensesAfterKeep, count: c.countAfterKeep, ms: c.keepMs });

	await clickLens(page, 0, 'Revert');
	c.revertMs = await waitEditorText(filePath, file, lastBefore, 30000);
	await page.waitForFunction(
		() =>
			![...document.querySelectorAll('.part.editor .codelens-decoration')].some(
				(e) => e.getClientRects().length > 0 && (e.innerText ?? '').includes('Keep'),
			),
		{ timeout: 10000, polling: 'mutation' },
	);
	await page.waitForFunction(() => ![...document.querySelectorAll('.statusbar-item')].some((e) => /^\d+ changes?$/.test((e.innerText ?? '').trim())), {
		timeout: 10000,
		polling: 100,
	});
	c.lensesAfter = await lensRows(page);
	c.countAfter = await changeCount(page);
	c.editorAfter = await page.evaluate(() => (document.querySelector('.part.editor .view-lines')?.innerText ?? '').replace(/\u00a0/g, ' '));
	c.dirtyAfter = await page.evaluate(
		(n) => [...document.querySelectorAll('.tab.dirty')].some((t) => (t.innerText ?? '').replace(/\n/g, '').includes(n)),
		file,
	);
	c.diskAfter = readFileSync(filePath, 'utf8');
	step('reverted the second change with its CodeLens', { ms: c.revertMs, dirty: c.dirtyAfter, lastAfter: !c.editorAfter.includes(lastAfter) });
	await shot('changes-reverted');
}

/**
 * latency: with auto-approve on (no diff editor opens or closes), latencyRuns questions in the chat
 * each patch the open hello.txt once; each is timed from the file's new modification time (codex
 * wrote it) to the editor showing it.
 */
export async function latency(d, filePath) {
	const { page, summary, step, waitEditorText, diskToEditor, runCommand, chatFrame, chatText, chatAsk, waitText, file, latencyRuns } = d;
	if (latencyRuns === 0) {
		return;
	}
	await page.keyboard.down('Control');
	await page.keyboard.press('KeyP');
	await page.keyboard.up('Control');
	await page.waitForSelector('.quick-input-widget .quick-input-box input', { visible: true });
	await page.keyboard.type(file, { delay: 20 });
	await waitText('.quick-input-list .monaco-list-row', [file]);
	await page.keyboard.press('Enter');
	await runCommand('Hermes: Toggle Auto-approve', 'Hermes: Toggle Auto');
	await waitText('.notifications-toasts .notification-toast', ['auto-approve is ON'], 30000);
	const frame = await chatFrame();
	const ms = [];
	for (let i = 1; i <= latencyRuns; i++) {
		await chatAsk(frame, `LATENCY-${i} patch hello.txt`);
		await waitEditorText(filePath, file, `Latency run ${i}.`, 60000);
		ms.push(await diskToEditor(filePath));
		await chatText(frame, [`Latency ${i} done.`], 60000);
		await frame.waitForFunction(() => !document.body.classList.contains('running'), { timeout: 30000, polling: 100 });
	}
	summary.latency = { diskToEditorMs: ms };
	step('timed patches on disk → editor', summary.latency);
}
