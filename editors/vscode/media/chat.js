// The Hermes chat view's page script: applies the extension's updates (only the entries that
// changed are replaced, so opened tool output, focus and selection elsewhere stay), follows the
// conversation (to the newest entry on a send and a turn's start, else a "jump to latest" button
// while scrolled up), tells the screen reader only what is new (a separate live region), sends what
// you type (Enter; Shift+Enter is a new line), and passes the buttons' clicks to the extension.
(function () {
	const vscode = acquireVsCodeApi();
	const log = document.getElementById('log');
	const info = document.getElementById('info');
	const input = document.getElementById('input');
	const jump = document.getElementById('jump');
	const live = document.getElementById('live');
	const empty = document.getElementById('empty');
	let copies = 0;

	/** atEnd says whether the conversation is scrolled to (near) its end. */
	function atEnd() {
		return log.scrollTop + log.clientHeight >= log.scrollHeight - 40;
	}
	function toEnd() {
		log.scrollTop = log.scrollHeight;
		jump.hidden = true;
	}

	/** element parses one entry's HTML (the extension escapes and sanitises what it renders). */
	function element(html) {
		const t = document.createElement('template');
		t.innerHTML = html;
		return t.content.firstElementChild;
	}

	/** update replaces the changed entries, drops the gone ones, and keeps the order of keys. */
	function update(m) {
		const follow = m.follow || atEnd();
		const byKey = new Map();
		for (const el of log.children) {
			byKey.set(el.dataset.key, el);
		}
		for (const [key, html] of m.changed) {
			const k = String(key);
			const next = element(html);
			if (!next) {
				continue;
			}
			const old = byKey.get(k);
			if (old) {
				// Opened output stays open, and its scroll where it was.
				if (old.tagName === 'DETAILS' && next.tagName === 'DETAILS' && old.open) {
					next.open = true;
				}
				const pre = old.querySelector('pre');
				const top = pre ? pre.scrollTop : 0;
				old.replaceWith(next);
				const npre = next.querySelector('pre');
				if (npre && top) {
					npre.scrollTop = top;
				}
			}
			byKey.set(k, next);
		}
		const keep = new Set(m.order.map(String));
		for (const [k, el] of byKey) {
			if (!keep.has(k)) {
				el.remove();
				byKey.delete(k);
			}
		}
		// Order: append each in turn where it is not already in place (new entries go to the end).
		let prev = null;
		for (const k of m.order.map(String)) {
			const el = byKey.get(k);
			if (!el) {
				continue;
			}
			const want = prev ? prev.nextElementSibling : log.firstElementChild;
			if (want !== el) {
				if (prev) {
					prev.after(el);
				} else {
					log.prepend(el);
				}
			}
			prev = el;
		}
		info.textContent = m.header;
		document.body.classList.toggle('running', !!m.running);
		empty.hidden = log.children.length > 0;
		if (m.announce) {
			// A new node, so the same words said twice are still said.
			const p = document.createElement('p');
			p.textContent = m.announce;
			live.replaceChildren(p);
		}
		if (follow) {
			toEnd();
		} else if (m.changed.length > 0) {
			jump.hidden = false;
		}
	}

	window.addEventListener('message', (e) => {
		const m = e.data;
		if (m.type === 'update') {
			update(m);
		} else if (m.type === 'focus') {
			input.focus();
		} else if (m.type === 'copied') {
			const b = document.querySelector(`button.copy[data-copy-id="${CSS.escape(String(m.id))}"]`);
			if (b) {
				b.textContent = 'Copied';
				b.classList.add('copied');
				setTimeout(() => {
					b.textContent = 'Copy';
					b.classList.remove('copied');
				}, 1500);
			}
		}
	});
	log.addEventListener('scroll', () => {
		if (atEnd()) {
			jump.hidden = true;
		}
	});
	jump.addEventListener('click', () => {
		toEnd();
		input.focus();
	});
	input.addEventListener('keydown', (e) => {
		if (e.key === 'Enter' && !e.shiftKey) {
			e.preventDefault();
			const text = input.value.trim();
			if (text) {
				vscode.postMessage({ type: 'send', text });
				input.value = '';
				toEnd();
			}
		}
	});
	log.addEventListener('click', (e) => {
		const b = e.target.closest('button');
		if (!b) {
			return;
		}
		if (b.dataset.approval) {
			vscode.postMessage({ type: 'approve', id: b.dataset.approval, decision: b.dataset.decision });
		} else if (b.dataset.retry) {
			vscode.postMessage({ type: 'retry', key: Number(b.dataset.retry) });
		} else if ('switchModel' in b.dataset) {
			vscode.postMessage({ type: 'switchModel' });
		} else if (b.dataset.transcript) {
			vscode.postMessage({ type: 'transcript', key: Number(b.dataset.transcript) });
		} else if (b.classList.contains('copy')) {
			const code = b.closest('.code-block')?.querySelector('pre code');
			if (code) {
				const id = String(++copies);
				b.dataset.copyId = id;
				vscode.postMessage({ type: 'copy', text: code.textContent, id });
			}
		}
	});
	vscode.postMessage({ type: 'ready' });
})();
