// Temporary files belong to the process that made them (DATA_DIR/tmp/proc-<pid>-<start>-<host>): a second
// process starting on the same DATA_DIR sweeps only what dead owners left behind, never an upload in flight in a
// live one; a stopped process removes its own folder; an empty files/<shard>/<id> folder is removed at start.
// Real server processes (server/main.ts).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createApiToken } from '../../server/accounts/api-tokens.ts';
import { insertAccount } from '../../server/accounts/sql.ts';
import { migrate } from '../../server/db/migrate.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { until as poll } from '../helpers/poll.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';
import { testDbKind } from '../helpers/server.ts';
import { type TestDatabase, testDatabase } from '../helpers/server-process.ts';

const SECRET = 'tmp-owners-secret-0123456789-0123456789';
const BOUNDARY = 'sqinflight';
let dataDir: string;
let tmpRoot: string;
let main: TestDatabase;
let other: TestDatabase | null = null;
let token: string;
const started: ServerProcess[] = [];

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'sq-owners-'));
  tmpRoot = path.join(dataDir, 'tmp');
  main = await testDatabase(testDbKind(), dataDir);
  const setup = await main.open();
  await migrate(setup);
  const account = await insertAccount(setup, {
    id: 'usr_owners',
    email: 'owners@example.test',
    password_hash: 'x',
    plan: 'pro',
    shop_name: null,
  });
  token = (await createApiToken(setup, SECRET, account.id, 'owners', new Date())).token;
  await setup.close();
});
after(async () => {
  for (const p of started) await p.kill();
  await main.drop();
  await other?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(db: TestDatabase): Promise<ServerProcess> {
  const p = await spawnServer({ ...db.env, DATA_DIR: dataDir, JWT_SECRET: SECRET });
  started.push(p);
  return p;
}
/** A second process needs a database of its own when the first holds PGlite (single-process); on PostgreSQL they share one. */
async function secondDb(): Promise<TestDatabase> {
  if (testDbKind() === 'postgres') return main;
  other ??= await testDatabase('postgres', dataDir);
  return other;
}
const ownerFolder = (p: ServerProcess) => readdirSync(tmpRoot).find((n) => n.startsWith(`proc-${p.child.pid}-`));

/** Starts an upload and keeps its body open until finish() is called. */
function uploadInFlight(url: string) {
  const enc = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
  });
  controller.enqueue(
    enc.encode(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="cube.obj"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
  );
  controller.enqueue(enc.encode(CUBE_OBJ.slice(0, 200)));
  const response = fetch(`${url}/v2/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
    duplex: 'half',
  } as RequestInit);
  return {
    response,
    finish() {
      controller.enqueue(enc.encode(`${CUBE_OBJ.slice(200)}\r\n--${BOUNDARY}--\r\n`));
      controller.close();
    },
  };
}

const until = (what: string, check: () => boolean, ms = 10_000) => poll(what, ms, () => check() || undefined);

test('a second process on the same DATA_DIR sweeps dead owners only and does not break an upload in flight', async () => {
  const first = await start(main);
  const firstFolder = ownerFolder(first);
  assert.ok(firstFolder, 'the first process made its own tmp folder');
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_');
  // Leftovers: the first process's pid with another start time (a reused pid), another host's live-looking
  // folder, an empty file folder from a kill during parsing, and a stored file's folder that must stay.
  const reusedPid = `proc-${first.child.pid}-1-${host}`;
  const otherHost = `proc-${first.child.pid}-1-another-host.example`;
  for (const name of [reusedPid, otherHost]) {
    mkdirSync(path.join(tmpRoot, name, 'upload-x'), { recursive: true });
    writeFileSync(path.join(tmpRoot, name, 'upload-x', 'part'), 'left behind');
  }
  const emptyFileFolder = path.join(dataDir, 'files', 'zz', 'file_zzkilledwhileparsing');
  const storedFileFolder = path.join(dataDir, 'files', 'zz', 'file_zzstored');
  mkdirSync(emptyFileFolder, { recursive: true });
  mkdirSync(storedFileFolder, { recursive: true });
  writeFileSync(path.join(storedFileFolder, 'original'), 'kept');

  const upload = uploadInFlight(first.url);
  await until("the upload to reach the first process's tmp folder", () =>
    readdirSync(path.join(tmpRoot, firstFolder)).some(
      (d) => d.startsWith('upload-') && readdirSync(path.join(tmpRoot, firstFolder, d)).length > 0,
    ),
  );

  const second = await start(await secondDb());
  assert.ok(ownerFolder(second), 'the second process made its own folder');
  assert.ok(existsSync(path.join(tmpRoot, firstFolder)), 'the live first process keeps its folder');
  assert.equal(
    existsSync(path.join(tmpRoot, reusedPid)),
    false,
    "a folder whose pid runs with another start time is a dead owner's",
  );
  assert.ok(existsSync(path.join(tmpRoot, otherHost)), "another host's folder is left to that host");
  assert.equal(existsSync(emptyFileFolder), false, 'the empty file folder was removed');
  assert.ok(existsSync(path.join(storedFileFolder, 'original')), 'a file folder with content stays');

  upload.finish();
  const res = await upload.response;
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  assert.match(body.file_id, /^file_/);
  const original = await fetch(`${first.url}/v2/file/${body.file_id}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(original.status, 200);
  assert.equal(await original.text(), CUBE_OBJ);
  assert.deepEqual(readdirSync(path.join(tmpRoot, firstFolder)), [], 'the finished upload left nothing in tmp');

  // A process that stops removes its folder; one that is killed leaves it to the next start.
  const secondFolder = ownerFolder(second)!;
  await second.kill('SIGTERM');
  assert.equal(existsSync(path.join(tmpRoot, secondFolder)), false, 'a stopped process removes its own folder');
  const killedMidUpload = uploadInFlight(first.url);
  const killedResponse = killedMidUpload.response.catch(() => null); // the connection dies with the process
  await until('the second upload to reach tmp', () => readdirSync(path.join(tmpRoot, firstFolder)).length > 0);
  await first.kill('SIGKILL');
  await killedResponse;
  assert.ok(existsSync(path.join(tmpRoot, firstFolder)), 'kill -9 left the folder behind');
  const third = await start(main);
  assert.equal(existsSync(path.join(tmpRoot, firstFolder)), false, "the next start removed the dead owner's folder");
  assert.ok(ownerFolder(third));
});
