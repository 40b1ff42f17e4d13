// DATA_DIR and everything the server creates in it are private to the service user (folders 700, files 600),
// even when started with umask 000 and a DATA_DIR that already existed world-writable: PGlite's files,
// uploaded models, the JWT secret. Runs the real server/main.ts.

import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';
import { ApiClient, testDbKind } from '../helpers/server.ts';
import { type TestDatabase, testDatabase } from '../helpers/server-process.ts';

let dataDir: string;
let db: TestDatabase;
let server: ServerProcess;

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'sq-modes-'));
  chmodSync(dataDir, 0o777);
  db = await testDatabase(testDbKind(), dataDir);
  const previous = process.umask(0); // the child inherits it
  try {
    server = await spawnServer({ ...db.env, DATA_DIR: dataDir, JWT_SECRET: '' });
  } finally {
    process.umask(previous);
  }
});
after(async () => {
  await server.kill('SIGTERM');
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function walk(dir: string, out: { path: string; mode: number; dir: boolean }[] = []) {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) continue;
    out.push({ path: path.relative(dataDir, p), mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) walk(p, out);
  }
  return out;
}

test('after a start and an upload, every folder in DATA_DIR is 700 and every file 600', async () => {
  const dashboard = new ApiClient(server.url);
  const signup = await dashboard.post('/dashboard/api/signup', {
    email: 'modes@example.test',
    password: 'a long and unusual passphrase',
  });
  assert.equal(signup.status, 201, JSON.stringify(signup.body));
  dashboard.csrf = signup.body.csrf_token;
  const token = await dashboard.post('/dashboard/api/tokens', { name: 'modes' });
  const api = new ApiClient(server.url, token.body.token);
  const upload = await api.uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
  assert.equal(upload.status, 201);

  assert.equal(statSync(dataDir).mode & 0o777, 0o700, 'DATA_DIR itself');
  const entries = walk(dataDir);
  const names = entries.map((e) => e.path);
  assert.ok(names.includes('jwt-secret'));
  assert.ok(
    names.some((n) => n.endsWith(path.join(upload.body.file_id, 'original'))),
    'the uploaded model',
  );
  if (testDbKind() === 'pglite')
    assert.ok(
      names.some((n) => n.startsWith(path.join('pglite', 'pg_wal'))),
      "PGlite's write-ahead log",
    );
  const wrong = entries.filter((e) => e.mode !== (e.dir ? 0o700 : 0o600)).map((e) => `${e.path} ${e.mode.toString(8)}`);
  assert.deepEqual(wrong, [], 'entries with other modes');
});
