// Fair shares with real slices (docs/limits.md, "Slicer time"): two long slices of one account never hold both
// slots while another account's quote waits; deleting a file stops its running slice and charges what it used; a
// timed-out slice is charged to the caller and spends its hourly slicer budget.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SHORT_SLICE_S } from '../../server/quotes/slice-cost.ts';
import { boxesObj } from '../helpers/meshes.ts';
import { until } from '../helpers/poll.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';
import { holdSlicers } from '../helpers/slicer-hold.ts';
import { torusGridObj } from '../helpers/solids.ts';

const BENCHY = readFileSync(new URL('../fixtures/models/stl/3DBenchy.stl', import.meta.url));
/** 64 tori side by side, 196,608 triangles: at 0.1 mm layers about a minute of slicer time. */
const CROWD = new TextEncoder().encode(torusGridObj(8, 5, 1.5, 1));
const cubeOf = (mm: number) => new TextEncoder().encode(boxesObj([[0, 0, 0, mm, mm, mm]]));

const servers: TestServer[] = [];
after(() => Promise.all(servers.map((s) => s.stop())));

async function start(env: Record<string, string>) {
  const server = await startTestServer(env);
  servers.push(server);
  return server;
}

async function upload(api: ApiClient, bytes: Uint8Array, name: string): Promise<string> {
  const up = await api.uploadBytes('/v2/file', bytes, name);
  assert.equal(up.status, 201, JSON.stringify(up.body));
  return up.body.file_id;
}

interface Row {
  status: string;
  started_at: Date | null;
  predicted_s: number | null;
  error: { code: string } | null;
}

/** The PrusaSlicer process slicing a file: its work folder's model links to the file's canonical mesh. */
function slicerOf(fileId: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes('prusa-slicer')) continue;
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      const model = readdirSync(cwd).find((f) => f.startsWith('model.'));
      if (model && readlinkSync(join(cwd, model)).includes(fileId)) return Number(entry);
    } catch {
      /* exited meanwhile */
    }
  }
  return undefined;
}

/** A process's CPU time in clock ticks (user and system: the 14th and 15th fields of /proc/<pid>/stat). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** A process's nice value (the 19th field of /proc/<pid>/stat, counted after the command in parentheses). */
const niceness = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]!.split(' ')[16]);

const quoteRow = async (server: TestServer, id: string) =>
  (
    await server.deps.db.query<Row>('SELECT status, started_at, predicted_s, error FROM quotes WHERE id = $1', [id])
  )[0]!;

test("two long slices of one account leave a slot for another account's quote; deleting the file stops them", async (t) => {
  // The default job lease (60 s): a short one can run out on a loaded host between two heartbeats, and a slice
  // whose lease ran out no longer counts as running, so the rule would rightly hand its account the last slot.
  const server = await start({ SLICER_CONCURRENCY: '2' });
  const a = await server.newAccount({ email: 'long-a@example.test' });
  const b = await server.newAccount({ email: 'long-b@example.test' });
  const apiA = server.client(a.token);
  const crowd = await upload(apiA, CROWD, 'crowd.obj');
  // The first long slice is held (stopped) the moment it runs: however fast or loaded the machine, it is still
  // running when the account's second one and the other account's quote ask, so the only free slot is the one
  // the rule keeps from the account's second. (Answering a quote may wait for its estimate, up to
  // QUOTE_ESTIMATE_WAIT_MS, and on a loaded host the slice can be under way by then: the hold cannot wait for the
  // answer.)
  const first = apiA.post(`/v2/file/quote/${crowd}/async`, { printer_config: { layer_height: 0.1 } });
  const slicer = await until('the long slice to run', 60_000, async () => slicerOf(crowd));
  // Some work done first, so that its stop below has seconds to charge.
  await until('the long slice to use the CPU', 60_000, () => (cpuTicks(slicer) >= 20 ? true : undefined));
  const held = holdSlicers([slicer]);
  t.after(() => held.release());
  // The long slice runs niced, so that it yields the cores to the short ones beside it.
  assert.equal(niceness(slicer), 10);
  const second = apiA.post(`/v2/file/quote/${crowd}/async`, {
    printer_config: { layer_height: 0.1, support_material: true },
  });
  const long = (await Promise.all([first, second])).map((r) => r.body.job_id as string);
  for (const id of long) {
    const predicted = (await quoteRow(server, id)).predicted_s!;
    assert.ok(predicted > SHORT_SLICE_S, `a long slice: predicted ${predicted} s`);
  }

  const apiB = server.client(b.token);
  const cube = await upload(apiB, cubeOf(14), 'cube.obj');
  const theirs = await apiB.post(`/v2/file/quote/${cube}`, {});
  assert.ok([200, 202].includes(theirs.status), JSON.stringify(theirs.body));
  const id = theirs.body.quote_id as string;
  const done = await until('the other account to be priced', 120_000, async () => {
    const row = await quoteRow(server, id);
    return row.status === 'completed' ? row : undefined;
  });
  // Whichever of the account's two it started first, the other one waited for the other account's quote.
  const started = await Promise.all(long.map((job) => quoteRow(server, job)));
  assert.equal(
    started.filter((row) => row.started_at !== null && row.started_at <= done.started_at!).length,
    1,
    "the account's second long slice did not take the slot the other account needed",
  );

  // The file goes: its slices stop at once (not at their end), and what they used is charged to the token.
  assert.equal((await apiA.delete(`/v2/file/${crowd}`)).status, 200);
  for (const job of long) {
    const row = await quoteRow(server, job);
    assert.equal(row.status, 'failed');
    assert.equal(row.error?.code, 'file_deleted');
  }
  const charged = await until('the stopped slice to be charged', 60_000, async () => {
    const rows = await server.deps.db.query<{ outcome: string; seconds: number }>(
      `SELECT outcome, seconds FROM slicer_usage WHERE caller = $1`,
      [`tok:${a.tokenId}`],
    );
    return rows.length ? rows : undefined;
  });
  // The held slice, and the account's second if it had started after the other account's quote: each stopped.
  assert.ok(charged.length <= 2);
  for (const row of charged) {
    assert.equal(row.outcome, 'stopped');
    assert.ok(row.seconds > 0);
  }
});

test("a timed-out slice is charged to its caller and spends the caller's hourly slicer budget", async () => {
  const server = await start({
    SLICER_CONCURRENCY: '1',
    SLICER_TIMEOUT_MS: '1000',
    SLICER_SECONDS_PER_CALLER_HOUR: '1',
  });
  const a = await server.newAccount({ email: 'timeout-a@example.test' });
  const b = await server.newAccount({ email: 'timeout-b@example.test' });
  const apiA = server.client(a.token);
  const benchy = await upload(apiA, BENCHY, 'benchy.stl');
  const slow = await apiA.post(`/v2/file/quote/${benchy}`, {});
  assert.equal(slow.status, 422, JSON.stringify(slow.body));
  assert.equal(slow.body.error.code, 'slice_timeout');
  const [charge] = await server.deps.db.query<{ outcome: string; seconds: number }>(
    'SELECT outcome, seconds FROM slicer_usage WHERE caller = $1',
    [`tok:${a.tokenId}`],
  );
  assert.equal(charge?.outcome, 'timeout');
  assert.ok(charge!.seconds >= 0.9, `charged ${charge!.seconds} s`);

  // The token's budget (1 s an hour) is spent: its next slice is refused before it runs…
  const cube = await upload(apiA, cubeOf(11), 'cube.obj');
  const refused = await apiA.post(`/v2/file/quote/${cube}`, {});
  assert.equal(refused.status, 429, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'slicer_budget_spent');
  const retry = Number(refused.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= 3600, `Retry-After: ${retry}`);
  // …while another account's caller is not affected.
  const apiB = server.client(b.token);
  const theirs = await upload(apiB, cubeOf(11), 'cube.obj');
  assert.equal((await apiB.post(`/v2/file/quote/${theirs}`, {})).status, 200);
});

/** A process's state letter from /proc (T: stopped); undefined once it is gone. */
function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0];
  } catch {
    return undefined;
  }
}

test("two accounts' long slices hold both slots: a third account's short quote is sliced in the short lane, the long ones paused meanwhile, and is priced while both still run", async (t) => {
  const server = await start({ SLICER_CONCURRENCY: '2', SLICER_SHORT_LANE: '1' });
  const [a, b, c] = await Promise.all(
    ['lane-a', 'lane-b', 'lane-c'].map((name) => server.newAccount({ email: `${name}@example.test` })),
  );
  // Two strangers (two free sign-ups, or two shops' keys), each with a long part the cost check accepts. Each
  // slice is held the moment it runs: whatever the machine, both are still running when the third account asks.
  const holds: ReturnType<typeof holdSlicers>[] = [];
  t.after(() => {
    for (const h of holds) h.release();
  });
  const longOnes: { api: ApiClient; file: string; job: Promise<string>; pid: number }[] = [];
  for (const [account, choices] of [
    [a, { layer_height: 0.1 }],
    [b, { layer_height: 0.1, support_material: true }],
  ] as const) {
    const api = server.client(account!.token);
    const file = await upload(api, CROWD, 'crowd.obj');
    const job = api.post(`/v2/file/quote/${file}/async`, { printer_config: choices }).then((r) => {
      assert.equal(r.status, 202, JSON.stringify(r.body));
      return r.body.job_id as string;
    });
    const pid = await until('the long slice to run', 60_000, async () => slicerOf(file));
    holds.push(holdSlicers([pid]));
    longOnes.push({ api, file, job, pid });
  }
  const long = await Promise.all(longOnes.map((l) => l.job));
  for (const id of long) assert.ok((await quoteRow(server, id)).predicted_s! > SHORT_SLICE_S);

  // The third account's 20 mm cube: both slots are taken, so only the short lane can slice it now.
  const apiC = server.client(c!.token);
  const cube = await upload(apiC, cubeOf(20), 'cube.obj');
  const asked = apiC.post(`/v2/file/quote/${cube}/async`, {});
  const cubePid = await until('the short slice to run', 60_000, async () => slicerOf(cube));
  // The cube is held in turn and the long ones let go: the pool, not the test, must now stop them.
  const cubeHold = holdSlicers([cubePid]);
  for (const h of holds.splice(0)) h.release();
  await until('the long slices to be paused', 60_000, () =>
    longOnes.every((l) => stateOf(l.pid) === 'T') ? true : undefined,
  );
  cubeHold.release();
  const theirs = await asked;
  assert.equal(theirs.status, 202, JSON.stringify(theirs.body));
  const done = await until('the cube to be priced', 120_000, async () => {
    const row = await quoteRow(server, theirs.body.job_id);
    return ['completed', 'failed'].includes(row.status) ? row : undefined;
  });
  assert.equal(done.status, 'completed', JSON.stringify(done.error));
  for (const id of long) assert.equal((await quoteRow(server, id)).status, 'processing', 'a long slice still runs');
  // With the short one done, the long ones go on.
  await until('the long slices to be resumed', 60_000, () =>
    longOnes.every((l) => stateOf(l.pid) !== 'T') ? true : undefined,
  );
  for (const l of longOnes) assert.equal((await l.api.delete(`/v2/file/${l.file}`)).status, 200);
});
