// Model files in S3-compatible object storage (a real S3-protocol server on loopback): an upload streams into
// the bucket, a process that never saw the file slices it from the bucket, downloads come from the bucket,
// deletes remove the objects, and readiness follows the bucket.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { startTestS3, type TestS3 } from '../helpers/s3-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s3: TestS3;
let server: TestServer;
before(async () => {
  s3 = await startTestS3();
  server = await startTestServer(s3.env);
});
after(async () => {
  await server?.stop();
  await s3?.stop();
});

const localFiles = () => path.join(server.dataDir, 'files');

test('an upload lands in the bucket; the local disk keeps only the canonical mesh as a cache', async () => {
  const { token } = await server.newAccount();
  const up = await server.client(token).uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
  assert.equal(up.status, 201);
  const id = up.body.file_id as string;
  assert.deepEqual(await s3.keys(`sq/files/${id}/`), [`sq/files/${id}/canonical.obj`, `sq/files/${id}/original`]);
  const local = path.join(localFiles(), id.slice(5, 7), id);
  assert.deepEqual(readdirSync(local), ['canonical.obj']);
});

test('a process that never saw the file slices it from the bucket, and the download comes from the bucket', async () => {
  const { token } = await server.newAccount();
  const api = server.client(token);
  const bytes = new TextEncoder().encode(CUBE_OBJ);
  const id = (await api.uploadBytes('/v2/file', bytes, 'cube.obj')).body.file_id as string;
  rmSync(localFiles(), { recursive: true, force: true }); // another host: nothing of this file on its disk
  const quote = await api.post(`/v2/file/quote/${id}`, {});
  assert.equal(quote.status, 200, JSON.stringify(quote.body));
  assert.equal(quote.body.status, 'completed');
  assert.ok(quote.body.filament_weight > 0);
  assert.ok(existsSync(path.join(localFiles(), id.slice(5, 7), id, 'canonical.obj')), 'cached for the next slice');
  const download = await api.get(`/v2/file/${id}`);
  assert.equal(download.status, 200);
  assert.deepEqual(Buffer.from(download.raw), Buffer.from(bytes));
});

test('deleting a file removes its objects; another account cannot touch them', async () => {
  const [a, b] = [await server.newAccount(), await server.newAccount()];
  const id = (await server.client(a.token).uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'cube.obj')).body
    .file_id as string;
  assert.equal((await server.client(b.token).delete(`/v2/file/${id}`)).status, 404);
  assert.equal((await s3.keys(`sq/files/${id}/`)).length, 2);
  assert.equal((await server.client(a.token).delete(`/v2/file/${id}`)).status, 200);
  assert.deepEqual(await s3.keys(`sq/files/${id}/`), []);
});

test('readiness follows the bucket; a bucket that does not exist stops start-up with a clear message', async () => {
  assert.deepEqual((await server.client().get('/readyz')).body.checks.storage, 'ok');
  await assert.rejects(
    startTestServer({ ...s3.env, S3_BUCKET: 'no-such-bucket' }),
    /S3_BUCKET: cannot reach bucket "no-such-bucket"/,
  );
});
