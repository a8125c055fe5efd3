// Bundles the extension into dist/extension.js (vscode-languageclient included, so the .vsix needs no
// node_modules); with --tests, bundles test/*.test.ts into out/test/ for node --test.
import { readdirSync } from 'node:fs';
import * as esbuild from 'esbuild';

const tests = process.argv.includes('--tests');
const watch = process.argv.includes('--watch');

const options = tests
	? {
			entryPoints: readdirSync('test')
				.filter((f) => f.endsWith('.test.ts'))
				.map((f) => `test/${f}`),
			outdir: 'out/test',
			bundle: true,
			platform: 'node',
			format: 'cjs',
			target: 'node20',
			sourcemap: 'inline',
			logLevel: 'warning',
		}
	: {
			entryPoints: ['src/extension.ts'],
			outfile: 'dist/extension.js',
			bundle: true,
			platform: 'node',
			format: 'cjs',
			target: 'node20',
			external: ['vscode'],
			sourcemap: true,
			minify: !watch,
			logLevel: 'warning',
		};

if (watch) {
	const ctx = await esbuild.context(options);
	await ctx.watch();
	console.log('esbuild: watching');
} else {
	await esbuild.build(options);
}
