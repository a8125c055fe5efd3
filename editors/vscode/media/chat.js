// The Hermes chat view's page script: shows what the extension renders, sends what you type
// (Enter; Shift+Enter is a new line), and passes the buttons' clicks to the extension.
(function () {
	const vscode = acquireVsCodeApi();
	const log = document.getElementById('log');
	const info = document.getElementById('info');
	const input = document.getElementById('input');

	window.addEventListener('message', (e) => {
		const m = e.data;
		if (m.type === 'render') {
			const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 40;
			log.innerHTML = m.html;
			info.textContent = m.header;
			document.body.classList.toggle('running', !!m.running);
			if (atEnd) {
				log.scrollTop = log.scrollHeight;
			}
		}
	});
	input.addEventListener('keydown', (e) => {
		if (e.key === 'Enter' && !e.shiftKey) {
			e.preventDefault();
			const text = input.value.trim();
			if (text) {
				vscode.postMessage({ type: 'send', text });
				input.value = '';
			}
		}
	});
	log.addEventListener('click', (e) => {
		const b = e.target.closest('button[data-approval]');
		if (b) {
			vscode.postMessage({ type: 'approve', id: b.dataset.approval, decision: b.dataset.decision });
		}
	});
	for (const id of ['threads', 'model', 'new']) {
		document.getElementById(id).addEventListener('click', () => vscode.postMessage({ type: id }));
	}
	vscode.postMessage({ type: 'ready' });
})();
