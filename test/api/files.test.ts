import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { consumeUploadId } from '../../server/files/upload-ids-sql.ts';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { boxesObj } from '../helpers/meshes.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: ApiClient;
let accountId: string;
const model = (...p: string[]) => path.join(corpusPath(), ...p);

before(async () => {
  server = await startTestServer({ MAX_UPLOAD_MB: '20', UPLOAD_ID_TTL_SECONDS: '10' });
  const a = await server.newAccount();
  api = server.client(a.token);
  accountId = a.accountId;
});
after(() => server.stop());

test('upload measures the model, stores the original, and emits file.uploaded', async () => {
  const res = await api.upload('/v2/file', model('stl', 'cube20_ascii.stl'));
  assert.equal(res.status, 201);
  const f = res.body;
  assert.match(f.file_id, /^file_/);
  assert.equal(f.name, 'cube20_ascii.stl');
  assert.equal(f.format, 'stl');
  assert.equal(f.source, 'api');
  assert.equal(
    f.sha256,
    createHash('sha256')
      .update(readFileSync(model('stl', 'cube20_ascii.stl')))
      .digest('hex'),
  );
  assert.equal(f.measurements.triangles, 12);
  assert.deepEqual(f.measurements.bounding_box.size, [20, 20, 20]);
  assert.ok(Math.abs(f.measurements.volume_mm3 - 8000) < 0.01);
  assert.equal(f.measurements.watertight, true);
  assert.equal(f.measurements.bodies, 1);
  const download = await api.get(`/v2/file/${f.file_id}`);
  assert.equal(download.status, 200);
  assert.equal(download.headers.get('content-type'), 'model/stl');
  assert.match(download.headers.get('content-disposition')!, /filename="cube20_ascii.stl"/);
  assert.deepEqual(Buffer.from(download.raw), readFileSync(model('stl', 'cube20_ascii.stl')));
  const events = await eventsForAccount(server.deps.db, accountId, 'file.uploaded');
  assert.ok(events.some((e) => (e.payload as any).data.fileId === f.file_id));
});

test('uploads are listed newest first with pagination', async () => {
  for (const name of ['cube20_header_says_solid.stl', 'tiny_0.5mm_cube.stl', 'two_cubes_10mm.stl']) {
    assert.equal((await api.upload('/v2/file', model('stl', name))).status, 201);
  }
  const page1 = await api.get('/v2/user/uploads?limit=2');
  assert.equal(page1.body.data.length, 2);
  assert.equal(page1.body.data[0].name, 'two_cubes_10mm.stl');
  assert.equal(page1.body.has_more, true);
  const page2 = await api.get('/v2/user/uploads?limit=2&page=2');
  assert.ok(page2.body.data.length >= 1);
  assert.equal(page1.body.total, page2.body.total);
  assert.equal((await api.get('/v2/user/uploads?page=0')).status, 400);
  assert.equal((await api.get('/v2/user/uploads?limit=abc')).body.error.details.fields[0].field, 'limit');
});

test('delete removes the file and emits file.deleted; another account gets 404 everywhere', async () => {
  const f = (await api.upload('/v2/file', model('stl', 'cube20_ascii.stl'))).body;
  const other = server.client((await server.newAccount()).token);
  assert.equal((await other.get(`/v2/file/${f.file_id}`)).status, 404);
  assert.equal((await other.delete(`/v2/file/${f.file_id}`)).status, 404);
  assert.equal((await other.post(`/v2/printability/${f.file_id}`, {})).status, 404);
  assert.equal((await api.delete(`/v2/file/${f.file_id}`)).status, 200);
  assert.equal((await api.get(`/v2/file/${f.file_id}`)).status, 404);
  assert.equal((await api.delete(`/v2/file/${f.file_id}`)).status, 404);
  const events = await eventsForAccount(server.deps.db, accountId, 'file.deleted');
  assert.ok(events.some((e) => (e.payload as any).data.fileId === f.file_id));
});

test('bad upload requests get clear 4xx errors', async () => {
  const noFile = new FormData();
  noFile.append('other', 'x');
  const missing = await api.request('POST', '/v2/file', { form: noFile });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.code, 'file_missing');
  const json = await api.post('/v2/file', { file: 'nope' });
  assert.equal(json.status, 415);
  const empty = await api.uploadBytes('/v2/file', new Uint8Array(0), 'empty.stl');
  assert.equal(empty.status, 422);
  assert.equal(empty.body.error.code, 'empty_file');
  const png = await api.upload('/v2/file', model('broken', 'png_renamed.stl'));
  assert.equal(png.status, 422);
});

test('an oversize upload is refused with 413 from its declared length, before the body is read', async () => {
  const big = new Uint8Array(21 * 1024 * 1024);
  const res = await api.uploadBytes('/v2/file', big, 'big.stl');
  assert.equal(res.status, 413);
  assert.equal(res.body.error.code, 'file_too_large');
  const list = await api.get('/v2/user/uploads?limit=100');
  assert.ok(!list.body.data.some((f: { name: string }) => f.name === 'big.stl'));
});

test('an oversize chunked upload (no declared length) is refused with 413 while streaming', async () => {
  const boundary = 'sqboundary';
  const chunk = new Uint8Array(1024 * 1024);
  let sent = 0;
  // Judged on the server: was the 413 sent while the request body was still arriving? (Counting what the client
  // managed to send is not: its socket buffers may take in the rest before the refusal reaches it.)
  let answeredMidBody: boolean | undefined;
  const onRequest = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    if (req.method === 'POST' && req.url === '/v2/file') res.once('finish', () => (answeredMidBody = !req.complete));
  };
  server.server.prependListener('request', onRequest);
  const body = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (sent === 0)
        ctrl.enqueue(
          new TextEncoder().encode(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.stl"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
        );
      // The client sends until the server has answered (at most 200 MB: more than the server drains after a
      // refusal), so a loaded machine's slow answer cannot let the whole body arrive first.
      if (answeredMidBody === undefined && sent++ < 200) ctrl.enqueue(chunk);
      else ctrl.close();
    },
  });
  const res = await fetch(`${server.url}/v2/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
  } as RequestInit).catch((e) => ({ status: -1, error: e }) as any);
  if (res.status !== -1) {
    assert.equal(res.status, 413);
    assert.equal((await res.json()).error.code, 'file_too_large');
  }
  const health = await fetch(`${server.url}/healthz`);
  assert.equal(health.status, 200);
  server.server.off('request', onRequest);
  assert.equal(answeredMidBody, true, 'the 413 was answered while the body was still arriving');
});

test('public upload: single use, into the upload id account, CORS, unknown and expired ids', async () => {
  const id = await api.get('/v2/file/upload-id');
  assert.equal(id.status, 200);
  assert.match(id.body.upload_id, /^up_/);
  assert.equal(
    id.body.upload_url,
    `${server.url}/v2/file/public/${id.body.upload_id}`,
    'the advertised URL names the real port',
  );
  const anonymous = server.client();
  const pre = await anonymous.request('OPTIONS', `/v2/file/public/${id.body.upload_id}`, {
    headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), 'https://shop.example');
  const up = await anonymous.upload(`/v2/file/public/${id.body.upload_id}`, model('stl', 'cube20_ascii.stl'));
  assert.equal(up.status, 201);
  assert.equal(up.body.source, 'public');
  assert.equal((await api.get(`/v2/file/${up.body.file_id}`)).status, 200, 'the file lands in the upload id account');
  const reuse = await anonymous.upload(`/v2/file/public/${id.body.upload_id}`, model('stl', 'cube20_ascii.stl'));
  assert.equal(reuse.status, 410);
  assert.equal(reuse.body.error.code, 'upload_id_used');
  const unknown = await anonymous.upload('/v2/file/public/up_doesnotexist', model('stl', 'cube20_ascii.stl'));
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'upload_id_not_found');
  const expiring = await api.get('/v2/file/upload-id');
  server.clock.advance(server.deps.config.uploadIdTtlSeconds * 1000); // its lifetime passes on the server's clock
  const expired = await anonymous.upload(
    `/v2/file/public/${expiring.body.upload_id}`,
    model('stl', 'cube20_ascii.stl'),
  );
  assert.equal(expired.status, 410);
  assert.equal(expired.body.error.code, 'upload_id_expired');
  assert.equal((await anonymous.get('/v2/file/upload-id')).status, 401);
});

test('a broken public upload does not consume the upload id', async () => {
  const id = (await api.get('/v2/file/upload-id')).body.upload_id;
  const anonymous = server.client();
  const broken = await anonymous.upload(`/v2/file/public/${id}`, model('broken', 'stl_truncated.stl'));
  assert.equal(broken.status, 422, JSON.stringify(broken.body));
  const valid = await anonymous.upload(`/v2/file/public/${id}`, model('stl', 'cube20_ascii.stl'));
  assert.equal(valid.status, 201, JSON.stringify(valid.body));
});

test('an upload id that runs out while its upload is read answers upload_id_expired, not upload_id_used', async () => {
  // Checked again as the file is stored: an id used meanwhile by another request, and one whose time ran out while
  // a long upload was received and read, are told apart (the shopper fetches a new id either way).
  const consume = (id: string, at: Date) => consumeUploadId(server.deps.db, id, `file_${id}`, at);
  const fresh = (await api.get('/v2/file/upload-id')).body;
  const now = server.clock.now();
  assert.equal(await consume(fresh.upload_id, now), 'consumed');
  assert.equal(await consume(fresh.upload_id, now), 'used');
  const late = (await api.get('/v2/file/upload-id')).body;
  assert.equal(await consume(late.upload_id, new Date(Date.parse(late.expires_at) + 1)), 'expired');
  assert.equal(await consume(late.upload_id, now), 'consumed', 'an expired check used nothing');
});

test('printability: default build volume, explicit volume, rotation about Z, warnings', async () => {
  const cube = (await api.upload('/v2/file', model('stl', 'cube20_ascii.stl'))).body.file_id;
  const def = await api.post(`/v2/printability/${cube}`, {});
  assert.equal(def.status, 200);
  assert.deepEqual(def.body.build_volume, { x: 250, y: 210, z: 210 });
  assert.equal(def.body.fits, true);
  assert.deepEqual(def.body.warnings, []);
  const tooSmall = await api.post(`/v2/printability/${cube}`, { x: 10, y: 10, z: 10 });
  assert.equal(tooSmall.body.fits, false);
  assert.equal(tooSmall.body.fits_rotated.fits, false);
  assert.ok(tooSmall.body.warnings.some((w: { code: string }) => w.code === 'does_not_fit'));
  // Two 10 mm cubes 100 mm apart: too long for a 90 mm bed, which holds them turned diagonally with the slicer's
  // arrange margin around them (docs/placement.md).
  const pair = boxesObj([
    [0, 0, 0, 10, 10, 10],
    [90, 0, 0, 100, 10, 10],
  ]);
  const long = (await api.uploadBytes('/v2/file', new TextEncoder().encode(pair), 'pair.obj')).body.file_id;
  const diagonal = await api.post(`/v2/printability/${long}`, { x: 90, y: 90, z: 20 });
  assert.equal(diagonal.body.fits, false);
  assert.equal(diagonal.body.fits_rotated.fits, true, 'fits when turned diagonally');
  assert.ok(diagonal.body.fits_rotated.angle_deg > 0);
  assert.ok(diagonal.body.warnings.some((w: { code: string }) => w.code === 'several_bodies'));
  const tiny = (await api.upload('/v2/file', model('obj', 'spot.obj'))).body.file_id;
  const small = await api.post(`/v2/printability/${tiny}`, {});
  const unit = small.body.warnings.find((w: { code: string }) => w.code === 'unit_suspect');
  assert.equal(unit?.suggested_scale, 25.4, 'a 1.7 mm model was probably exported in inches');
  assert.equal(unit?.suggested_unit, 'in');
  const suzanne = (await api.upload('/v2/file', model('obj', 'suzanne.obj'))).body.file_id;
  const open = await api.post(`/v2/printability/${suzanne}`, {});
  assert.ok(open.body.warnings.some((w: { code: string }) => w.code === 'not_watertight'));
  const big = (await api.upload('/v2/file', model('stl', 'too_big_400mm_cube.stl'))).body.file_id;
  assert.equal((await api.post(`/v2/printability/${big}`, {})).body.fits, false);
  assert.equal((await api.post(`/v2/printability/${big}`, { x: 400, y: 400, z: 400 })).body.fits, true);
  const printer = await api.post('/v2/profiles/printer', {
    name: 'Big printer',
    is_default: true,
    settings: { bed_size_x: 300, bed_size_y: 320, bed_size_z: 400 },
  });
  const own = await api.post(`/v2/printability/${big}`, { z: 450 });
  assert.deepEqual(
    own.body.build_volume,
    { x: 300, y: 320, z: 450 },
    "the account's default printer fills in the missing fields",
  );
  await api.delete(`/v2/profiles/printer/${printer.body.profile_id}`);
  const bad = await api.post(`/v2/printability/${cube}`, { x: -5, w: 3 });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort(), ['w', 'x']);
});

test('the corpus folder is complete', () => {
  assert.ok(readdirSync(model('broken')).length >= 20);
});
