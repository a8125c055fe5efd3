// The chat view's HTML: the conversation rendered with markdown-it (HTML in the markdown is not
// rendered: html is off), inside a page whose Content-Security-Policy allows nothing but the
// extension's own script and style. No vscode import.

import MarkdownIt from 'markdown-it';

import type { ChatItem } from './chatModel';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

/** escapeHtml escapes text for HTML. */
export function escapeHtml(s: string): string {
	return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** renderItem is one conversation item as HTML. */
export function renderItem(item: ChatItem): string {
	switch (item.kind) {
		case 'you':
			return `<div class="msg you"><div class="who">You</div>${md.render(item.text)}</div>`;
		case 'answer':
			return `<div class="msg answer"><div class="who">Hermes</div>${md.render(item.text)}</div>`;
		case 'tool': {
			const mark = !item.done ? '⋯' : item.ok ? '✓' : '✗';
			const line = `<span class="mark">${mark}</span> <code>${escapeHtml(item.line)}</code>`;
			return item.output
				? `<details class="tool"><summary>${line}</summary><pre>${escapeHtml(item.output)}</pre></details>`
				: `<div class="tool">${line}</div>`;
		}
		case 'approval': {
			const warning = item.warning ? `<div class="warning">⚠ ${escapeHtml(item.warning)}</div>` : '';
			const answer = item.decision
				? `<span class="decided">${escapeHtml(item.decision)}</span>`
				: ['deny:Deny', 'once:Allow once', 'session:Allow for session'].map((d) => {
						const [decision, title] = d.split(':');
						return `<button data-approval="${escapeHtml(item.id)}" data-decision="${decision}">${title}</button>`;
					}).join(' ');
			return `<div class="approval">⏸ ${escapeHtml(item.summary)} ${answer}${warning}</div>`;
		}
		case 'diff':
			return `<details class="diff"><summary>diff</summary><pre>${escapeHtml(item.text)}</pre></details>`;
		case 'end':
			return `<div class="end">${escapeHtml(item.line)}</div>`;
	}
}

/** renderItems is the whole conversation as HTML. */
export function renderItems(items: readonly ChatItem[]): string {
	return items.map(renderItem).join('\n');
}

/** page is the view's document: a strict CSP, the header, the conversation and the input box. */
export function page(nonce: string, cspSource: string, scriptUri: string, styleUri: string): string {
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${cspSource} https: data:; style-src ${cspSource}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${styleUri}">
<title>Hermes</title>
</head>
<body>
<div id="header"><span id="info">Hermes</span>
<span class="buttons"><button id="threads" title="Resume a past thread">Threads</button><button id="model" title="Model and reasoning effort">Model</button><button id="new" title="The next prompt starts a new thread">New</button></span></div>
<div id="log" aria-live="polite"></div>
<form id="form"><textarea id="input" rows="3" placeholder="Ask Hermes (Enter sends, Shift+Enter for a new line; while a turn runs, it steers it)"></textarea></form>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
