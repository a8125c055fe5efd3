// Renders media/icon.png (128x128, the Marketplace's size) from the shapes of media/hermes.svg: the
// speech bubble and its two lines, white on a rounded square. No SVG rasterizer is needed (none is a
// dependency of the build): the shapes are a polygon and two segments, drawn with 4x4 supersampling
// and written as a PNG with node:zlib. Run: node tools/icon.mjs (from editors/vscode); the PNG is kept
// in the repository, so the build does not run this.

import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const SUB = 4; // subsamples per pixel and axis
const BG = [0x2b, 0x5c, 0xb8]; // the background's blue
const FG = [0xff, 0xff, 0xff];

// media/hermes.svg's paths in its 24x24 view box: "M4 5h16v10H9l-5 4z" and "M8 9h8M8 12h5".
const bubble = [
	[4, 5],
	[20, 5],
	[20, 15],
	[9, 15],
	[4, 19],
];
const lines = [
	[
		[8, 9],
		[16, 9],
	],
	[
		[8, 12],
		[13, 12],
	],
];
const STROKE = 1.6; // in view box units (the SVG's is 1.5: a little bolder at icon size)

// The bubble spans x 4..20, y 5..19: centre it and let it fill about 70% of the icon.
const scale = (SIZE * 0.7) / 16;
const toView = (px, py) => [(px - SIZE / 2) / scale + 12, (py - SIZE / 2) / scale + 12];

function segDist(p, a, b) {
	const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
	const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)));
	return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

function onStroke(p) {
	const segs = [...bubble.map((a, i) => [a, bubble[(i + 1) % bubble.length]]), ...lines];
	return segs.some(([a, b]) => segDist(p, a, b) <= STROKE / 2);
}

/** inRoundedSquare: the background, a square with rounded corners (radius 22px) filling the icon. */
function inRoundedSquare(x, y) {
	const r = 22;
	const cx = Math.min(Math.max(x, r), SIZE - r);
	const cy = Math.min(Math.max(y, r), SIZE - r);
	return Math.hypot(x - cx, y - cy) <= r;
}

const rgba = Buffer.alloc(SIZE * SIZE * 4);
for (let y = 0; y < SIZE; y++) {
	for (let x = 0; x < SIZE; x++) {
		let bg = 0;
		let fg = 0;
		for (let sy = 0; sy < SUB; sy++) {
			for (let sx = 0; sx < SUB; sx++) {
				const px = x + (sx + 0.5) / SUB;
				const py = y + (sy + 0.5) / SUB;
				if (inRoundedSquare(px, py)) {
					bg++;
					if (onStroke(toView(px, py))) {
						fg++;
					}
				}
			}
		}
		const n = SUB * SUB;
		const i = (y * SIZE + x) * 4;
		const f = bg > 0 ? fg / bg : 0;
		for (let c = 0; c < 3; c++) {
			rgba[i + c] = Math.round(BG[c] * (1 - f) + FG[c] * f);
		}
		rgba[i + 3] = Math.round((255 * bg) / n);
	}
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) {
		c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	}
	return c >>> 0;
});

function crc32(buf) {
	let c = 0xffffffff;
	for (const b of buf) {
		c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
	}
	return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(body));
	return Buffer.concat([len, body, crc]);
}

const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(SIZE, 0);
ihdr.writeUInt32BE(SIZE, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
// Each row starts with its filter type, 0 (none).
const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) {
	rgba.copy(raw, y * (SIZE * 4 + 1) + 1, y * SIZE * 4, (y + 1) * SIZE * 4);
}
const png = Buffer.concat([
	Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
	chunk('IHDR', ihdr),
	chunk('IDAT', deflateSync(raw, { level: 9 })),
	chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('../media/icon.png', import.meta.url), png);
console.log(`media/icon.png: ${SIZE}x${SIZE}, ${png.length} bytes`);
