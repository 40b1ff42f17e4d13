// A busy server is not a slow client: when the server's event loop was held up past a connection's keep-alive
// timeout while the client's next request was already waiting, that request is answered, not dropped. Timers run
// before sockets are read, so the idle timer fires first; the connection is judged only after the waiting bytes
// were read (server/http/connections.ts).

import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { test } from 'node:test';
import { CONNECTION_LIMITS, guardConnections } from '../server/http/index.ts';
import { until } from './helpers/poll.ts';

const KEEP_ALIVE_MS = 1000;
/** Longer than the keep-alive timer (Node adds a second to the advertised timeout). */
const BUSY_MS = KEEP_ALIVE_MS + 2000;

/** Holds the event loop as a slow synchronous task of the server would. */
const holdEventLoop = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** How many answers a keep-alive client had when its second arrived or the server closed the connection. */
const secondAnswerOrClose = (received: () => string, closed: () => boolean) =>
  until('the second answer or the connection closed', 10_000, () => {
    const n = received().split('HTTP/1.1 200').length - 1;
    return n === 2 || closed() ? n : undefined;
  });

test('a request waiting while the server was busy past the keep-alive timeout is answered', async () => {
  const server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  guardConnections(server, { ...CONNECTION_LIMITS, keepAliveMs: KEEP_ALIVE_MS });
  const { port } = server.address() as net.AddressInfo;
  const socket = net.connect({ port, host: '127.0.0.1' });
  const request = `GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`;
  let received = '';
  let closed = false;
  let sentSecond = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => {});
  socket.on('data', (d: Buffer) => {
    received += d.toString('latin1');
    if (!sentSecond && received.includes('\r\n\r\nok')) {
      // The second request reaches the server's socket, then the server is busy past its keep-alive timer.
      sentSecond = true;
      socket.write(request);
      holdEventLoop(BUSY_MS);
    }
  });
  socket.write(request);
  const answers = await secondAnswerOrClose(
    () => received,
    () => closed,
  );
  socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  assert.equal(answers, 2, 'the request that waited while the server was busy was answered');
});

test('a client that reuses a keep-alive connection after the advertised timeout (its own timer late) is answered', async () => {
  const server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  guardConnections(server, { ...CONNECTION_LIMITS, keepAliveMs: KEEP_ALIVE_MS });
  let keepAliveRanOut = false;
  server.on('timeout', () => (keepAliveRanOut = true));
  const { port } = server.address() as net.AddressInfo;
  const socket = net.connect({ port, host: '127.0.0.1' });
  const request = `GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`;
  let received = '';
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => {});
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.write(request);
  await until('the first answer', 10_000, () => (received.includes('\r\n\r\nok') ? true : undefined));
  // The connection sits idle until the server's keep-alive timer has run and the server has judged it (two
  // turns on), as when a client's own timer is late; only then does the client send its next request.
  await until('the keep-alive timer to run', 10_000, () => (keepAliveRanOut ? true : undefined));
  await new Promise((resolve) => setImmediate(() => setImmediate(() => setImmediate(resolve))));
  if (!closed) socket.write(request);
  const answers = await secondAnswerOrClose(
    () => received,
    () => closed,
  );
  socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  assert.equal(answers, 2, 'the late request was answered, not written into a closed connection');
});

/** A plain server with short limits, and a raw client socket that collects what it is sent. */
async function guarded(
  handler: http.RequestListener,
  clientIdleMs: number,
  onServerSocket: (s: net.Socket) => void = () => {},
) {
  const server = http.createServer(handler);
  server.on('connection', onServerSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  guardConnections(server, { ...CONNECTION_LIMITS, clientIdleMs, lingerIdleMs: clientIdleMs });
  const { port } = server.address() as net.AddressInfo;
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  const seen = { text: '', closed: false };
  socket.on('data', (d: Buffer) => (seen.text += d.toString('latin1')));
  socket.on('close', () => (seen.closed = true));
  socket.on('error', () => {});
  return {
    server,
    socket,
    seen,
    async stop() {
      socket.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

test('a client that stops sending its body is told 408 request_timeout in JSON', async () => {
  const c = await guarded((req, res) => {
    req.resume();
    req.on('end', () => res.end('never'));
  }, 300);
  c.socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nonly ten b');
  await until('the connection to end', 10_000, () => c.seen.closed || c.seen.text.includes('}') || undefined);
  await c.stop();
  assert.match(c.seen.text, /^HTTP\/1\.1 408 /);
  assert.match(c.seen.text, /\r\nconnection: close\r\n/i);
  assert.equal(JSON.parse(c.seen.text.slice(c.seen.text.indexOf('\r\n\r\n') + 4)).error.code, 'request_timeout');
});

test('a request the server takes longer than the idle limit to answer is answered, not timed out', async () => {
  let quietSeen: () => void = () => {};
  const quiet = new Promise<void>((resolve) => (quietSeen = resolve));
  const c = await guarded(
    (_req, res) => {
      // Answer only once the connection's idle timer has fired and its verdict (two turns on) has been given.
      void quiet.then(() => setImmediate(() => setImmediate(() => setImmediate(() => res.end('done')))));
    },
    300,
    // The server-side socket's own event: listening to it changes nothing in how the server treats the connection.
    (s) => s.once('timeout', () => quietSeen()),
  );
  c.socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
  await until(
    'the answer or the connection closed',
    10_000,
    () => c.seen.text.endsWith('done') || c.seen.closed || undefined,
  );
  await c.stop();
  assert.match(c.seen.text, /^HTTP\/1\.1 200 [\s\S]*done$/);
});
