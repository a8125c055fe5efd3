import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { connectSocket, readToken } from '../src/connect';
import { parseSocket } from '../src/settings';

/** echoServer answers each connection by echoing what it reads. */
function echoServer(): net.Server {
	return net.createServer((c) => c.pipe(c));
}

/** listenTCP listens on a free port of 127.0.0.1. */
function listenTCP(server: net.Server): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
	});
}

async function roundTrip(sock: net.Socket, text: string): Promise<string> {
	sock.write(text);
	const data = await new Promise<Buffer>((resolve) => sock.once('data', (d: Buffer) => resolve(d)));
	return data.toString();
}

test('connectSocket reaches a server on a Unix domain socket (unix:/path)', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'hermes-sock-'));
	const path = join(dir, 'hermes.sock');
	const server = echoServer();
	await new Promise<void>((resolve) => server.listen(path, resolve));
	try {
		const sock = await connectSocket(parseSocket(`unix:${path}`));
		assert.equal(await roundTrip(sock, 'Content-Length: 2\r\n\r\n{}'), 'Content-Length: 2\r\n\r\n{}');
		sock.destroy();
	} finally {
		server.close();
		rmSync(dir, { recursive: true, force: true });
	}
});

test('connectSocket reaches a server on TCP (tcp:127.0.0.1:PORT)', async () => {
	const server = echoServer();
	const port = await listenTCP(server);
	try {
		const sock = await connectSocket(parseSocket(`tcp:127.0.0.1:${port}`));
		assert.equal(await roundTrip(sock, 'hello'), 'hello');
		sock.destroy();
	} finally {
		server.close();
	}
});

test('connectSocket fails when nothing listens', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'hermes-sock-'));
	try {
		await assert.rejects(connectSocket({ path: join(dir, 'none.sock') }), /ENOENT|ECONNREFUSED/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	const server = echoServer();
	const port = await listenTCP(server);
	await new Promise((resolve) => server.close(resolve));
	await assert.rejects(connectSocket({ host: '127.0.0.1', port }), /ECONNREFUSED/);
});

test('readToken reads the token file without surrounding whitespace and refuses an empty one', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'hermes-token-'));
	try {
		writeFileSync(join(dir, 'token'), '  s3cret-token\n');
		assert.equal(await readToken(join(dir, 'token')), 's3cret-token');
		writeFileSync(join(dir, 'empty'), '\n');
		await assert.rejects(readToken(join(dir, 'empty')), /is empty/);
		await assert.rejects(readToken(join(dir, 'missing')), /ENOENT/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
