// The Hermes chat view's page script: applies the extension's updates (only the entries that
// changed are replaced, so opened tool output, focus and selection elsewhere stay), follows the
// conversation (to the newest entry on a send and a turn's start, else a "jump to latest" button
// while scrolled up), tells the screen reader only what is new (a separate live region), sends what
// you type (Enter; Shift+Enter is a new line), and passes the buttons' clicks to the extension. A
// question's answers are read from its fields when one of its buttons is pressed and posted once,
// never kept here (no setState): a secret field's text lives only in its password field.
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

	/** questionBox is the element of the question approval id, if the page shows it unanswered. */
	function questionBox(id) {
		return log.querySelector(`[data-question="${CSS.escape(String(id))}"]`);
	}

	/**
	 * answersOf reads a question's fields: by question id, the options checked (for Other, the text
	 * typed beside it) and the text typed.
	 */
	function answersOf(box) {
		const answers = {};
		for (const field of box.querySelectorAll('[data-qid]')) {
			const values = [];
			for (const opt of field.querySelectorAll('input[type=radio], input[type=checkbox]')) {
				if (!opt.checked) {
					continue;
				}
				if ('other' in opt.dataset) {
					const other = field.querySelector('input.other-text');
					if (other && other.value !== '') {
						values.push(other.value);
					}
				} else {
					values.push(opt.value);
				}
			}
			const text = field.querySelector('input.answer');
			if (text && text.value !== '') {
				values.push(text.value);
			}
			answers[field.dataset.qid] = values;
		}
		return answers;
	}

	/** reply posts a question's decision (with its answers, to answer) and waits for the outcome. */
	function reply(box, decision) {
		const msg = { type: 'answer', id: box.dataset.question, decision };
		if (decision === 'once') {
			msg.answers = answersOf(box);
		}
		for (const b of box.querySelectorAll('.q-actions button')) {
			b.disabled = true;
		}
		vscode.postMessage(msg);
	}

	/** showErrors shows what is wrong with a question's answers (by question id; '' for the whole) and lets it be answered again. */
	function showErrors(box, errors) {
		for (const el of box.querySelectorAll('.q-error')) {
			el.textContent = '';
		}
		for (const field of box.querySelectorAll('[data-qid]')) {
			const text = errors[field.dataset.qid];
			if (text) {
				field.querySelector('.q-error').textContent = text;
			}
		}
		if (errors['']) {
			box.querySelector('.q-all').textContent = errors[''];
		}
		for (const b of box.querySelectorAll('.q-actions button')) {
			b.disabled = false;
		}
		const first = box.querySelector('.q-field .q-error:not(:empty)');
		const input = first && first.closest('.q-field').querySelector('input');
		if (input) {
			input.focus();
		}
	}

	window.addEventListener('message', (e) => {
		const m = e.data;
		if (m.type === 'update') {
			update(m);
		} else if (m.type === 'focus') {
			input.focus();
		} else if (m.type === 'focusQuestion') {
			const box = questionBox(m.id);
			const first = box && box.querySelector('input, button');
			if (first) {
				box.scrollIntoView({ block: 'nearest' });
				first.focus();
			}
		} else if (m.type === 'questionErrors') {
			const box = questionBox(m.id);
			if (box) {
				showErrors(box, m.errors || {});
			}
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
	// Typing an Other answer picks Other.
	log.addEventListener('input', (e) => {
		if (e.target.classList && e.target.classList.contains('other-text')) {
			const opt = e.target.closest('.q-field').querySelector('input[data-other]');
			if (opt && e.target.value !== '') {
				opt.checked = true;
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
		if (b.dataset.reply) {
			const box = b.closest('[data-question]');
			if (box) {
				reply(box, b.dataset.reply);
			}
		} else if (b.dataset.approval) {
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
