// Upload warnings are objects {code, message, ...details} in every answer that carries a file, including
// files stored while warnings were plain sentences (migration 011 converts them).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listMigrations } from '../../server/db/migrate.ts';
import { insertFile } from '../../server/files/sql.ts';
import type { ModelWarning } from '../../shared/model/index.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: ApiClient;
let accountId: string;

before(async () => {
  server = await startTestServer();
  const account = await server.newAccount();
  accountId = account.accountId;
  api = server.client(account.token);
});
after(() => server.stop());

test('an upload answers warnings as code, message and details', async () => {
  // Two separate tetrahedra: the several_bodies warning, with its count.
  const tetra = (o: number) => `v ${o} 0 0\nv ${o + 1} 0 0\nv ${o} 1 0\nv ${o} 0 1\n`;
  const faces = (b: number) =>
    [
      [1, 3, 2],
      [1, 2, 4],
      [2, 3, 4],
      [1, 4, 3],
    ]
      .map((f) => `f ${f.map((v) => v + b).join(' ')}`)
      .join('\n');
  const res = await api.uploadBytes(
    '/v2/file',
    new TextEncoder().encode(`${tetra(0)}${tetra(5)}${faces(0)}\n${faces(4)}\n`),
    'two.obj',
  );
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.warnings, [
    { code: 'several_bodies', message: 'The model consists of 2 separate bodies.', count: 2 },
  ]);
});

test('migration 011 turns stored sentences into warning objects with their figures', async () => {
  const sentences = [
    '8 degenerate triangles (with two corners at the same point) were removed.',
    'The mesh is not watertight (some edges are not shared by exactly two consistently oriented triangles); its volume is approximate (uncertain by up to 14 %).',
    'The model consists of 3 separate bodies.',
    'The 3MF metadata "Description" appears more than once; the repeats were ignored.',
  ];
  await insertFile(server.deps.db, {
    id: 'file_legacywarnings',
    account_id: accountId,
    name: 'old.stl',
    format: 'stl',
    content_type: 'model/stl',
    size_bytes: 84,
    sha256: '0'.repeat(64),
    mesh_sha256: '0'.repeat(64),
    measurements: {
      triangles: 1,
      bbox: { min: [0, 0, 0], max: [20, 20, 20], size: [20, 20, 20] },
      volume_mm3: 1,
      surface_area_mm2: 1,
      watertight: true,
      bodies: 1,
      unit: 'millimeter',
    },
    footprint: [],
    warnings: sentences as unknown as ModelWarning[],
    source: 'api',
    token_id: null,
    upload_id: null,
  });
  const migration = listMigrations().find((m) => m.version === 11)!;
  await server.deps.db.query(migration.sql.replace(/;\s*$/, ''));
  const list = await api.get('/v2/user/uploads');
  const file = list.body.data.find((f: { file_id: string }) => f.file_id === 'file_legacywarnings');
  assert.deepEqual(file.warnings, [
    { code: 'degenerate_triangles_removed', message: sentences[0], count: 8 },
    { code: 'not_watertight', message: sentences[1], openness: 0.14 },
    { code: 'several_bodies', message: sentences[2], count: 3 },
    { code: 'metadata_repeated', message: sentences[3], name: 'Description' },
  ]);
  // Running it again changes nothing: object warnings are left as they are.
  await server.deps.db.query(migration.sql.replace(/;\s*$/, ''));
  assert.deepEqual(
    (await api.get('/v2/user/uploads')).body.data.find((f: { file_id: string }) => f.file_id === 'file_legacywarnings')
      .warnings,
    file.warnings,
  );
});
