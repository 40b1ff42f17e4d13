// A refused upload still gets its answer: when the server refuses a request before its body has arrived (over the
// size cap, no valid credential, an unknown upload id), the client that is still sending megabytes reads the
// status and the JSON error, and its upload ends without a broken pipe or a reset (docs/deployment.md, "Slow clients
// and refused uploads"). Without the server reading and discarding the rest of the body, the kernel answers the
// client's next bytes with a reset, and the client may lose the answer it was sent.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { assertMatchesContract } from '../helpers/contract.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: ApiClient;

const MB = 1024 * 1024;
/** Several times the cap below: most of it is still on its way when the server answers. */
const BODY_BYTES = 8 * MB;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

before(async () => {
  server = await startTestServer({ MAX_UPLOAD_MB: '1' });
  api = server.client((await server.newAccount()).token);
});
after(() => server.stop());

interface Outcome {
  status: number;
  headers: string;
  body: any;
  /** The error the connection ended with on the client's side (a broken pipe, a reset), if any. */
  error: NodeJS.ErrnoException | null;
}

/**
 * POSTs a multipart body of BODY_BYTES over a plain socket, its length declared or sent chunked: the first half,
 * then it waits for the server's whole answer, then sends the second half and ends, and waits for the connection
 * to close. The answer necessarily came mid-upload, and a server that closes without reading the rest makes the
 * second half fail with EPIPE or ECONNRESET.
 */
async function refusedUpload(urlPath: string, headers: Record<string, string>, declareLength: boolean) {
  const boundary = '----early-refusal';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.stl"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const { port } = new URL(server.url);
  // Half-open, as HTTP clients are: the server's FIN after its answer does not stop the upload.
  const socket = net.connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
  let error: NodeJS.ErrnoException | null = null;
  let received = Buffer.alloc(0);
  let closed = false;
  socket.on('data', (d: Buffer) => (received = Buffer.concat([received, d])));
  socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e));
  socket.on('close', () => (closed = true));
  const send = (bytes: Buffer) =>
    new Promise<void>((resolve) => {
      const framed = declareLength
        ? bytes
        : Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
      if (socket.destroyed) return resolve();
      socket.write(framed, () => resolve());
    });
  const lines = Object.entries({
    host: `127.0.0.1:${port}`,
    'content-type': `multipart/form-data; boundary=${boundary}`,
    ...(declareLength ? { 'content-length': String(BODY_BYTES) } : { 'transfer-encoding': 'chunked' }),
    ...headers,
  }).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`POST ${urlPath} HTTP/1.1\r\n${lines.join('')}\r\n`);
  const half = BODY_BYTES / 2 - head.length;
  await send(head);
  for (let sent = 0; sent < half; sent += CHUNK.length)
    await send(CHUNK.subarray(0, Math.min(CHUNK.length, half - sent)));
  const answer = await until('the whole answer', 20_000, () => {
    const text = received.toString('latin1');
    const split = text.indexOf('\r\n\r\n');
    if (split < 0) return error ? { text, split } : undefined;
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split))?.[1] ?? -1);
    return text.length >= split + 4 + length ? { text, split } : undefined;
  });
  for (let sent = half; sent < BODY_BYTES - head.length - tail.length; sent += CHUNK.length)
    await send(CHUNK.subarray(0, Math.min(CHUNK.length, BODY_BYTES - head.length - tail.length - sent)));
  await send(tail);
  if (!declareLength && !socket.destroyed) socket.write('0\r\n\r\n');
  socket.end();
  await until('the connection to close', 20_000, () => closed || undefined);
  const headText = answer.text.slice(0, Math.max(answer.split, 0));
  const got: Outcome = {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1] ?? 0),
    headers: headText,
    body: answer.split < 0 ? null : JSON.parse(answer.text.slice(answer.split + 4)),
    error,
  };
  return got;
}

function assertAnsweredMidUpload(got: Outcome, status: number, code: string) {
  assert.equal(got.error, null, `the client's upload ended with ${got.error?.code}: ${got.error?.message}`);
  assert.equal(got.status, status, JSON.stringify(got.body));
  assert.equal(got.body?.error?.code, code);
  assert.match(got.headers, /\r\nconnection: close/i, 'the refused connection is not reused');
}

test('an upload over the size cap, its length declared: 413 read mid-upload, no broken pipe', async () => {
  const got = await refusedUpload('/v2/file', { authorization: `Bearer ${api.token}` }, true);
  assertAnsweredMidUpload(got, 413, 'file_too_large');
  assert.equal(got.body.error.details.max_bytes, MB);
  assertMatchesContract('POST', '/v2/file', 413, 'application/json', got.body);
});

test('an upload over the size cap, sent chunked: 413 read mid-upload, no reset', async () => {
  const got = await refusedUpload('/v2/file', { authorization: `Bearer ${api.token}` }, false);
  assertAnsweredMidUpload(got, 413, 'file_too_large');
});

test('an upload with a token that is not valid: 401 read mid-upload, no broken pipe', async () => {
  const got = await refusedUpload('/v2/file', { authorization: 'Bearer sq_not_a_real_token' }, true);
  assertAnsweredMidUpload(got, 401, 'unauthorized');
  assertMatchesContract('POST', '/v2/file', 401, 'application/json', got.body);
});

test('a public upload to an unknown upload id: 404 read mid-upload, no broken pipe', async () => {
  const got = await refusedUpload('/v2/file/public/up_unknown', {}, true);
  assertAnsweredMidUpload(got, 404, 'upload_id_not_found');
});

test('Node fetch streaming an over-size body reads the 413 and its JSON', async () => {
  let sent = 0;
  const head = new TextEncoder().encode(
    '--b\r\nContent-Disposition: form-data; name="file"; filename="huge.stl"\r\n' +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const body = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (sent === 0) ctrl.enqueue(head);
      if (sent >= BODY_BYTES) return ctrl.close();
      sent += CHUNK.length;
      ctrl.enqueue(new Uint8Array(CHUNK));
    },
  });
  const res = await fetch(`${server.url}/v2/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'multipart/form-data; boundary=b' },
    body,
    duplex: 'half',
  } as RequestInit);
  assert.equal(res.status, 413);
  assert.equal(res.headers.get('connection'), 'close', 'the refused connection is not reused');
  assert.equal((await res.json()).error.code, 'file_too_large');
  // The server goes on answering on a fresh connection.
  assert.equal((await api.get('/v2/user/uploads')).status, 200);
});
