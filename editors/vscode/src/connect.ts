// Reaching a hermes-lsp started by hand (`hermes-lsp --listen unix:/path` or `--listen tcp:HOST:PORT
// --token-file FILE`) instead of starting one. No vscode import: unit-tested with node --test.

import { readFile } from 'node:fs/promises';
import * as net from 'node:net';

import type { SocketAddress } from './settings';

/** connectSocket opens the connection; it fails on an error or after timeoutMs. */
export function connectSocket(address: SocketAddress, timeoutMs = 10_000): Promise<net.Socket> {
	return new Promise((resolve, reject) => {
		const sock = 'path' in address ? net.connect({ path: address.path }) : net.connect({ host: address.host, port: address.port });
		const timer = setTimeout(() => {
			sock.destroy();
			reject(new Error(`no connection after ${timeoutMs / 1000}s`));
		}, timeoutMs);
		const failed = (err: Error) => {
			clearTimeout(timer);
			reject(err);
		};
		sock.once('error', failed);
		sock.once('connect', () => {
			clearTimeout(timer);
			sock.removeListener('error', failed);
			resolve(sock);
		});
	});
}

/** readToken reads the token file (the one given to `hermes-lsp --token-file`), without surrounding whitespace. */
export async function readToken(path: string): Promise<string> {
	const token = (await readFile(path, 'utf8')).trim();
	if (token === '') {
		throw new Error(`the token file ${path} is empty`);
	}
	return token;
}
