// Every problem of a request body answers the status and code that describe it (413 only for sizes, naming the
// real limit; a second file part is a 400 naming the field; the multipart parser's errors are never 403 or 5xx),
// and no path leaves a temp file behind in the process's tmp folder.

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { assertMatchesContract } from '../helpers/contract.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const MB = 1024 * 1024;
const BOUNDARY = 'sqtestboundary';
const CUBE = CUBE_OBJ;

let server: TestServer;
let api: ApiClient;
before(async () => {
  server = await startTestServer({ MAX_UPLOAD_MB: '1' });
  api = server.client((await server.newAccount()).token);
});
after(() => server.stop());

function part(name: string, filename: string | null, body: string | Uint8Array, extraHeaders = ''): Buffer {
  const type = filename === null ? '' : 'Content-Type: application/octet-stream\r\n';
  const disposition = `Content-Disposition: form-data; name="${name}"${filename === null ? '' : `; filename="${filename}"`}\r\n`;
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\n${disposition}${type}${extraHeaders}\r\n`),
    Buffer.from(body),
    Buffer.from('\r\n'),
  ]);
}
const multipart = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from(`--${BOUNDARY}--\r\n`)]);

async function post(body: BodyInit, contentType: string, urlPath = '/v2/file', init: RequestInit = {}) {
  const res = await fetch(server.url + urlPath, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': contentType },
    body,
    ...init,
  } as RequestInit);
  const json = await res.json();
  assertMatchesContract('POST', urlPath, res.status, res.headers.get('content-type'), json);
  return { status: res.status, error: json.error };
}
const postMultipart = (body: Buffer) => post(new Uint8Array(body), `multipart/form-data; boundary=${BOUNDARY}`);

function assertNoTempFiles(what: string) {
  assert.deepEqual(readdirSync(server.deps.storage.tmpDir), [], `${what}: nothing is left in the process's tmp folder`);
}

test('a body with two "file" parts is a 400 multiple_files naming the field, and leaves no temp file', async () => {
  const res = await postMultipart(multipart(part('file', 'a.obj', CUBE), part('file', 'b.obj', CUBE)));
  assert.equal(res.status, 400);
  assert.equal(res.error.code, 'multiple_files');
  assert.equal(res.error.details.field, 'file');
  assertNoTempFiles('two file parts');
});

test('a file one byte over the limit is a 413 file_too_large naming the limit; exactly at the limit is read', async () => {
  const over = await postMultipart(multipart(part('file', 'big.stl', new Uint8Array(MB + 1).fill(32))));
  assert.equal(over.status, 413);
  assert.equal(over.error.code, 'file_too_large');
  assert.equal(over.error.details.max_bytes, MB);
  assert.match(over.error.message, /1 MB/);
  assertNoTempFiles('one byte over');
  const exact = await postMultipart(multipart(part('file', 'exact.stl', new Uint8Array(MB).fill(32))));
  assert.equal(exact.status, 422, 'read and parsed (blank bytes are no model), not refused for its size');
  assertNoTempFiles('exactly at the limit');
});

test('a JSON body over the JSON limit is a 413 json_too_large naming 256 KB, declared or streamed', async () => {
  const big = JSON.stringify({
    url: 'https://93.184.215.14/x',
    events: ['file.uploaded'],
    pad: 'x'.repeat(300 * 1024),
  });
  const declared = await post(big, 'application/json', '/v2/webhooks');
  assert.equal(declared.status, 413);
  assert.equal(declared.error.code, 'json_too_large');
  assert.equal(declared.error.details.max_bytes, 256 * 1024);
  assert.match(declared.error.message, /256 KB/);
  assert.doesNotMatch(declared.error.message, /MB/);
  const stream = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode(big));
      c.close();
    },
  });
  const streamed = await post(stream, 'application/json', '/v2/webhooks', { duplex: 'half' } as RequestInit);
  assert.equal(streamed.status, 413);
  assert.equal(streamed.error.code, 'json_too_large');
});

test('a JSON body nested thousands deep is a 400 json_too_deep naming the limit, never a stack overflow', async () => {
  const cases: [string, string, string][] = [
    ['arrays', '/v2/file/quote/file_x', `${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['objects', '/v2/file/quote/file_x', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`],
    ['a quote body deep inside', '/v2/file/quote/file_x', `{"settings":${'['.repeat(100)}${']'.repeat(100)}}`],
    ['sign-up', '/dashboard/api/signup', `${'['.repeat(50_000)}${']'.repeat(50_000)}`],
  ];
  for (const [what, urlPath, body] of cases) {
    const res = await fetch(server.url + urlPath, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body,
    });
    const json = await res.json();
    if (urlPath.startsWith('/v2/'))
      assertMatchesContract('POST', urlPath, res.status, res.headers.get('content-type'), json);
    assert.equal(res.status, 400, what);
    assert.equal(json.error.code, 'json_too_deep', what);
    assert.equal(json.error.details.max_depth, 64, what);
    assert.match(json.error.message, /deeper than 64 levels/, what);
  }
  // The deepest path is named like a validation error's field.
  const named = await post(
    `{"settings":{"a":${'['.repeat(70)}${']'.repeat(70)}}}`,
    'application/json',
    '/v2/file/quote/file_x',
  );
  assert.equal(named.error.details.field, `settings.a${'.0'.repeat(62)}`);
});

test('broken multipart bodies answer 4xx naming the problem, never 403 or 5xx, and leave no temp file', async () => {
  const cases: [string, BodyInit, string, number, string][] = [
    ['no boundary', 'abc', 'multipart/form-data', 400, 'malformed_multipart'],
    ['truncated', `--${BOUNDARY}\r\ngarbage`, `multipart/form-data; boundary=${BOUNDARY}`, 400, 'malformed_multipart'],
    [
      'unknown transfer encoding',
      multipart(part('file', 'a.obj', CUBE, 'Content-Transfer-Encoding: x-unheard-of\r\n')),
      `multipart/form-data; boundary=${BOUNDARY}`,
      400,
      'malformed_multipart',
    ],
    [
      'too many fields',
      multipart(...Array.from({ length: 11 }, (_, i) => part(`f${i}`, null, 'v')), part('file', 'a.obj', CUBE)),
      `multipart/form-data; boundary=${BOUNDARY}`,
      400,
      'too_many_fields',
    ],
    [
      'fields too large',
      multipart(part('note', null, 'v'.repeat(70_000)), part('file', 'a.obj', CUBE)),
      `multipart/form-data; boundary=${BOUNDARY}`,
      413,
      'fields_too_large',
    ],
    [
      'no file part',
      multipart(part('other', 'a.obj', CUBE)),
      `multipart/form-data; boundary=${BOUNDARY}`,
      400,
      'file_missing',
    ],
  ];
  for (const [what, body, type, status, code] of cases) {
    const res = await post(body, type);
    assert.equal(res.status, status, `${what}: ${JSON.stringify(res.error)}`);
    assert.equal(res.error.code, code, what);
    assertNoTempFiles(what);
  }
});

test('success and a refused model leave no temp file either', async () => {
  const ok = await postMultipart(multipart(part('file', 'cube.obj', CUBE)));
  assert.equal(ok.status, 201);
  assertNoTempFiles('a stored upload');
  const broken = await postMultipart(multipart(part('file', 'broken.stl', 'solid nothing here')));
  assert.equal(broken.status, 422);
  assertNoTempFiles('a refused model');
});

test('a client that aborts mid-upload leaves no temp file', async () => {
  const enc = new TextEncoder();
  const abort = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(
        enc.encode(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.obj"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
      );
      c.enqueue(enc.encode(CUBE.slice(0, 100)));
    },
  });
  const sent = fetch(`${server.url}/v2/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
    duplex: 'half',
    signal: abort.signal,
  } as RequestInit).catch(() => null);
  const dir = server.deps.storage.tmpDir;
  await until('the upload to reach the disk', 10_000, () => readdirSync(dir).length || undefined);
  assert.equal(readdirSync(dir).length, 1, 'the upload is being written to its own folder');
  abort.abort();
  await sent;
  await until('the aborted upload to be removed', 15_000, () => (readdirSync(dir).length === 0 ? true : undefined));
  assertNoTempFiles('an aborted upload');
});
