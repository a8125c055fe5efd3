// termshot.mjs turns a terminal screen captured with ANSI colours (`tmux capture-pane -e -p`) into a
// PNG: the text becomes HTML (SGR colours, bold, italic, underline, reverse) and headless Chromium
// takes its screenshot. It is how docs/images gets its Neovim and Helix pictures.
//
//	node termshot.mjs --in screen.ansi --out shot.png [--cols 160 --rows 45] [--chromium /usr/bin/chromium]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
	options: {
		in: { type: 'string' },
		out: { type: 'string' },
		cols: { type: 'string', default: '160' },
		rows: { type: 'string', default: '45' },
		chromium: { type: 'string', default: process.env.CHROMIUM ?? 'chromium' },
	},
});
if (!opts.in || !opts.out) {
	process.stderr.write('termshot: --in and --out are required\n');
	process.exit(2);
}

// The xterm palette of the 16 basic colours (a dark theme).
const base = ['#1e1e1e', '#cd3131', '#0dbc79', '#e5e510', '#2472c8', '#bc3fbc', '#11a8cd', '#e5e5e5',
	'#666666', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#ffffff'];
function color256(n) {
	if (n < 16) return base[n];
	if (n < 232) {
		n -= 16;
		const v = (x) => (x === 0 ? 0 : 55 + x * 40);
		return `rgb(${v(Math.floor(n / 36))},${v(Math.floor(n / 6) % 6)},${v(n % 6)})`;
	}
	const g = 8 + (n - 232) * 10;
	return `rgb(${g},${g},${g})`;
}
const FG = '#d4d4d4', BG = '#1e1e1e';

// sgr applies one SGR sequence's parameters to the style.
function sgr(style, params) {
	const p = params.length ? params : [0];
	for (let i = 0; i < p.length; i++) {
		const n = p[i];
		if (n === 0) Object.assign(style, { fg: null, bg: null, bold: false, italic: false, underline: false, reverse: false, dim: false });
		else if (n === 1) style.bold = true;
		else if (n === 2) style.dim = true;
		else if (n === 3) style.italic = true;
		else if (n === 4) style.underline = true;
		else if (n === 7) style.reverse = true;
		else if (n === 22) style.bold = style.dim = false;
		else if (n === 23) style.italic = false;
		else if (n === 24) style.underline = false;
		else if (n === 27) style.reverse = false;
		else if (n >= 30 && n <= 37) style.fg = base[n - 30];
		else if (n === 39) style.fg = null;
		else if (n >= 40 && n <= 47) style.bg = base[n - 40];
		else if (n === 49) style.bg = null;
		else if (n >= 90 && n <= 97) style.fg = base[n - 90 + 8];
		else if (n >= 100 && n <= 107) style.bg = base[n - 100 + 8];
		else if ((n === 38 || n === 48) && p[i + 1] === 5) {
			style[n === 38 ? 'fg' : 'bg'] = color256(p[i + 2]);
			i += 2;
		} else if ((n === 38 || n === 48) && p[i + 1] === 2) {
			style[n === 38 ? 'fg' : 'bg'] = `rgb(${p[i + 2]},${p[i + 3]},${p[i + 4]})`;
			i += 4;
		}
	}
}

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
function toHTML(text) {
	const style = {};
	sgr(style, [0]);
	let out = '';
	let run = '';
	const flush = () => {
		if (!run) return;
		let fg = style.fg ?? FG, bg = style.bg ?? BG;
		if (style.reverse) [fg, bg] = [bg, fg];
		const css = [`color:${fg}`, `background:${bg}`];
		if (style.bold) css.push('font-weight:bold');
		if (style.italic) css.push('font-style:italic');
		if (style.underline) css.push('text-decoration:underline');
		if (style.dim) css.push('opacity:0.7');
		// Each row is a block of its own: a row's backgrounds never cover the row above (its "_").
		out += run.split('\n').map((part) => (part ? `<span style="${css.join(';')}">${esc(part)}</span>` : '')).join('</div><div>');
		run = '';
	};
	const re = /\x1b\[([0-9;:]*)([A-Za-z])/g;
	let last = 0;
	for (const m of text.matchAll(re)) {
		run += text.slice(last, m.index);
		last = m.index + m[0].length;
		if (m[2] === 'm') {
			flush();
			sgr(style, m[1] === '' ? [] : m[1].split(/[;:]/).map(Number));
		}
	}
	run += text.slice(last);
	flush();
	return out;
}

const cols = Number(opts.cols), rows = Number(opts.rows);
const cw = 8.4, lh = 19; // the cell of a 14px monospace font
const html = `<!doctype html><meta charset="utf-8"><style>
body{margin:0;overflow:hidden;background:${BG}}main{padding:8px;font:14px/${lh}px "DejaVu Sans Mono",monospace;color:${FG};white-space:pre}
main div{height:${lh}px;overflow:visible}main span{display:inline-block;height:${lh}px;vertical-align:top}
</style><main><div>${toHTML(readFileSync(opts.in, 'utf8'))}</div></main>`;
const dir = mkdtempSync(join(tmpdir(), 'termshot-'));
try {
	const page = join(dir, 'screen.html');
	writeFileSync(page, html);
	const width = Math.ceil(cols * cw + 16), height = Math.ceil(rows * lh + 16);
	const r = spawnSync(opts.chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', `--user-data-dir=${join(dir, 'profile')}`,
		`--window-size=${width},${height}`, `--screenshot=${opts.out}`, `file://${page}`], { encoding: 'utf8', timeout: 60000 });
	if (r.status !== 0) {
		process.stderr.write(`termshot: chromium failed (${r.status}): ${r.stderr}\n`);
		process.exit(1);
	}
} finally {
	rmSync(dir, { recursive: true, force: true });
}
