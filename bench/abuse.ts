// `npm run bench -- abuse`: one visitor against everyone else (docs/limits.md). An attacker holding shop A's public
// widget key from five client addresses (127.0.0.10–14) uploads heavy meshes and asks for the dearest slices,
// and floods the queue with cheap quotes of fresh uploads; meanwhile honest shoppers of shop B (127.0.1.x) upload
// and price small parts and shop B's merchant quotes through the API. The honest traffic runs once alone and once
// beside the attacker, in the same run, on the embedded defaults (PGlite, in-process workers, one slicer slot per
// core). Bounded: a fixed number of requests, loopback only.
import { performance } from 'node:perf_hooks';
import { quantile } from '../shared/estimate/least-squares.ts';
import { boxesObj } from '../test/helpers/meshes.ts';
import { until } from '../test/helpers/poll.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../test/helpers/server.ts';
import { tetraCloudObj, torusGridObj } from '../test/helpers/solids.ts';

const HONEST_SHOP = 'https://honest-shop.example';
const TARGET_SHOP = 'https://target-shop.example';
const ATTACKER_ADDRESSES = ['127.0.0.10', '127.0.0.11', '127.0.0.12', '127.0.0.13', '127.0.0.14'];
const HONEST_PARTS = 8;
const MERCHANT_QUOTES = 4;

const encode = (s: string) => new TextEncoder().encode(s);
/** A cube of its own size, so that no slice is shared with another request. */
let nextSize = 10;
function freshCube(): Uint8Array {
  nextSize += 0.37;
  return encode(boxesObj([[0, 0, 0, nextSize, 12, 8]]));
}

interface Shopper {
  upload(bytes: Uint8Array, name: string): Promise<{ status: number; fileId?: string }>;
  quote(fileId: string, choices: Record<string, unknown>, async?: boolean): Promise<{ status: number; body: any }>;
  job(id: string): Promise<any>;
}

function shopper(server: TestServer, key: string, origin: string, address: string): Shopper {
  const c: ApiClient = server.client();
  c.localAddress = address;
  let token = '';
  const headers = () => ({ 'x-widget-key': key, origin, ...(token ? { 'x-shopper-token': token } : {}) });
  return {
    async upload(bytes, name) {
      const ticket = await c.request('GET', '/v2/file/upload-id', { headers: headers() });
      if (ticket.status !== 200) return { status: ticket.status };
      token = ticket.body.shopper_token;
      const up = await c.uploadBytes(`/v2/file/public/${ticket.body.upload_id}`, bytes, name);
      return { status: up.status, fileId: up.body?.file_id };
    },
    quote: (fileId, choices, async = false) =>
      c.request('POST', `/v2/file/quote/${fileId}${async ? '/async' : ''}`, { json: { choices }, headers: headers() }),
    job: async (id) => (await c.request('GET', `/v2/jobs/${id}`, { headers: headers() })).body,
  };
}

/** Upload to exact price, as a shopper waits for it: the sync quote, then the job until it is done. */
async function timeToExactPrice(s: Shopper, refusals: number[], uploads: number[]): Promise<number | null> {
  const start = performance.now();
  const up = await s.upload(freshCube(), 'part.obj');
  uploads.push(performance.now() - start);
  if (up.status !== 201 || !up.fileId) {
    refusals.push(up.status);
    return null;
  }
  const q = await s.quote(up.fileId, {});
  if (q.status === 200) return performance.now() - start;
  if (q.status !== 202) {
    refusals.push(q.status);
    return null;
  }
  const done = await until('the honest quote', 600_000, async () => {
    const job = await s.job(q.body.job_id);
    return ['completed', 'failed'].includes(job.status) ? job : undefined;
  });
  return done.status === 'completed' ? performance.now() - start : null;
}

/** Where an honest shopper's quote spent its time: waiting for a slot, and slicing. */
async function quoteStages(server: TestServer, accountId: string, since: Date) {
  const rows = await server.deps.db.query<{ wait: number; run: number }>(
    `SELECT extract(epoch FROM started_at - created_at)::float8 * 1000 AS wait,
       extract(epoch FROM finished_at - started_at)::float8 * 1000 AS run
     FROM quotes WHERE account_id = $1 AND widget_key_id IS NOT NULL AND created_at >= $2 AND status = 'completed'`,
    [accountId, since],
  );
  const p = (xs: number[], q: number) =>
    Math.round(
      quantile(
        xs.sort((a, b) => a - b),
        q,
      ),
    );
  const waits = rows.map((r) => r.wait);
  const runs = rows.map((r) => r.run);
  return {
    slot_wait_p50_ms: p(waits, 0.5),
    slot_wait_p95_ms: p(waits, 0.95),
    slice_p50_ms: p(runs, 0.5),
    slice_p95_ms: p(runs, 0.95),
  };
}

async function honestTraffic(server: TestServer, shop: { key: string; api: ApiClient; accountId: string }) {
  const since = new Date();
  const refusals: number[] = [];
  const times: number[] = [];
  const uploads: number[] = [];
  const shoppers = [0, 1].map((i) => shopper(server, shop.key, HONEST_SHOP, `127.0.1.${i + 1}`));
  const merchant = async () => {
    for (let i = 0; i < MERCHANT_QUOTES; i++) {
      const up = await shop.api.uploadBytes('/v2/file', freshCube(), 'api.obj');
      const q = await shop.api.post(`/v2/file/quote/${up.body.file_id}`, {});
      if (q.status >= 400) refusals.push(q.status);
    }
  };
  const shopping = shoppers.map(async (s) => {
    for (let i = 0; i < HONEST_PARTS / shoppers.length; i++) {
      const t = await timeToExactPrice(s, refusals, uploads);
      if (t !== null) times.push(t);
    }
  });
  await Promise.all([...shopping, merchant()]);
  const sorted = times.sort((a, b) => a - b);
  return {
    parts: times.length,
    exact_price_p50_ms: Math.round(quantile(sorted, 0.5)),
    exact_price_p95_ms: Math.round(quantile(sorted, 0.95)),
    upload_p50_ms: Math.round(
      quantile(
        uploads.sort((a, b) => a - b),
        0.5,
      ),
    ),
    upload_p95_ms: Math.round(quantile(uploads, 0.95)),
    ...(await quoteStages(server, shop.accountId, since)),
    refusals_503_429: refusals.filter((s) => s === 503 || s === 429).length,
    other_refusals: refusals.filter((s) => s !== 503 && s !== 429),
  };
}

/** The attacker, until stopped: heavy parts at the dearest choices, and a flood of cheap fresh quotes. */
function attack(server: TestServer, key: string) {
  let stopped = false;
  const answers: Record<string, number> = {};
  const count = (what: string) => {
    answers[what] = (answers[what] ?? 0) + 1;
  };
  const heavy = encode(tetraCloudObj(20_000, 100, 1.5, 5));
  const runs = ATTACKER_ADDRESSES.map(async (address, i) => {
    const s = shopper(server, key, TARGET_SHOP, address);
    for (let round = 0; !stopped && round < 40; round++) {
      const bytes = i === 0 && round % 4 === 0 ? heavy : freshCube();
      const up = await s.upload(bytes, 'x.obj');
      count(`upload ${up.status}`);
      if (!up.fileId) continue;
      const q = await s.quote(up.fileId, { quality: 'fine', infill: 50 }, true);
      count(`quote ${q.status}${q.status >= 400 ? ` ${q.body?.error?.code}` : ''}`);
    }
  });
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(runs);
    },
  };
}

async function attackerSeconds(server: TestServer, accountId: string) {
  const rows = await server.deps.db.query<{ caller: string; seconds: number; slices: number }>(
    `SELECT caller, sum(seconds)::float8 AS seconds, count(*)::int AS slices FROM slicer_usage
     WHERE account_id = $1 GROUP BY caller ORDER BY caller`,
    [accountId],
  );
  return Object.fromEntries(rows.map((r) => [r.caller, { seconds: Math.round(r.seconds), slices: r.slices }]));
}

export async function benchAbuse() {
  const server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business' });
  try {
    const honest = await merchantShop(server, 'honest@example.test', HONEST_SHOP);
    const target = await merchantShop(server, 'target@example.test', TARGET_SHOP);
    const offer = (await target.api.get('/v2/offer')).body;
    const { source: _source, ...body } = offer;
    const fine = { id: 'fine', label: 'Fine 0.1 mm', printer_config: { layer_height: 0.1 } };
    await target.api.put('/v2/offer', {
      ...body,
      qualities: [...body.qualities.filter((q: { id: string }) => q.id !== 'fine'), fine],
      infill_options: [...new Set([...body.infill_options, 50])],
    });
    await honestTraffic(server, honest); // warm-up: parser workers started, slicer speed measured
    const alone = await honestTraffic(server, honest);
    const attacker = attack(server, target.key);
    const beside = await honestTraffic(server, honest);
    await attacker.stop();
    return {
      setup: `${ATTACKER_ADDRESSES.length} attacker addresses on one shop's widget key; ${HONEST_PARTS} honest parts from 2 addresses of another shop and ${MERCHANT_QUOTES} merchant API quotes, alone then beside the attacker`,
      honest_alone: alone,
      honest_beside_attacker: beside,
      p95_ratio: +(beside.exact_price_p95_ms / alone.exact_price_p95_ms).toFixed(2),
      attacker_answers: attacker.answers,
      attacker_slicer_seconds: await attackerSeconds(server, target.accountId),
      attacker_budget_seconds_per_hour_per_address: server.deps.config.slicerSecondsPerShopperHour,
    };
  } finally {
    await server.stop();
  }
}

/** One 20 mm cube of the honest merchant, upload to exact price (async quote, polled), ms. */
async function cubeToPrice(api: ApiClient, mm: number): Promise<number> {
  const start = performance.now();
  const up = await api.uploadBytes('/v2/file', encode(boxesObj([[0, 0, 0, mm, mm, 20]])), 'cube.obj');
  if (up.status !== 201) throw new Error(`cube upload: ${up.status}`);
  const q = await api.post(`/v2/file/quote/${up.body.file_id}/async`, {});
  if (q.status !== 202) throw new Error(`cube quote: ${q.status} ${JSON.stringify(q.body)}`);
  const done = await until('the cube', 900_000, async () => {
    const job = (await api.get(`/v2/jobs/${q.body.job_id}`)).body;
    return ['completed', 'failed'].includes(job.status) ? job : undefined;
  });
  if (done.status !== 'completed') throw new Error(`cube: ${JSON.stringify(done.error)}`);
  return Math.round(performance.now() - start);
}

const CUBES = 3;

/**
 * Two accounts against a third (docs/limits.md, "The short lane"): two sign-ups each ask for a long slice (64 tori
 * at 0.1 mm, about a minute of slicer time each: both slots), then a third account's merchant prices 20 mm cubes,
 * one after another. The cubes are timed alone first, then beside the two long slices, on one server with the
 * defaults (a slot per core, the short lane).
 */
export async function benchTwoAccounts() {
  const server = await startTestServer();
  try {
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => server.newAccount()));
    const honest = server.client(c!.token);
    let mm = 20;
    const cubes = async () => {
      const times: number[] = [];
      for (let i = 0; i < CUBES; i++) {
        mm += 0.01;
        times.push(await cubeToPrice(honest, mm));
      }
      return times;
    };
    await cubeToPrice(honest, 19.5); // warm-up: parser workers, slicer speed
    const alone = await cubes();
    const crowd = encode(torusGridObj(8, 5, 1.5, 1));
    const heavy = await Promise.all(
      [a!, b!].map(async (account, i) => {
        const api = server.client(account.token);
        const up = await api.uploadBytes('/v2/file', crowd, 'crowd.obj');
        const choices = { layer_height: 0.1, fill_density: 20 + i };
        const q = await api.post(`/v2/file/quote/${up.body.file_id}/async`, { printer_config: choices });
        return { api, file: up.body.file_id as string, job: q.body.job_id as string };
      }),
    );
    await until('both long slices to run', 120_000, async () => {
      const rows = await server.deps.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM quotes WHERE id = ANY($1) AND status = 'processing'`,
        [heavy.map((h) => h.job)],
      );
      return rows[0]!.n === 2 ? true : undefined;
    });
    const beside = await cubes();
    const longStatus = await Promise.all(heavy.map(async (h) => (await h.api.get(`/v2/jobs/${h.job}`)).body.status));
    for (const h of heavy) await h.api.delete(`/v2/file/${h.file}`);
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    return {
      setup: `two accounts' long slices (64 tori at 0.1 mm) in both slots; ${CUBES} 20 mm cubes of a third account, alone then beside`,
      cube_alone_ms: alone,
      cube_beside_ms: beside,
      cube_median_ratio: +(median(beside) / median(alone)).toFixed(2),
      long_slices_when_cubes_done: longStatus,
    };
  } finally {
    await server.stop();
  }
}

type Honest = { p95_ms: number; not_stored: string[] };

/** The issue's table: each figure beside its target, from the slicing and the parsing halves of one run. */
export function abuseTable(
  slicing: Awaited<ReturnType<typeof benchAbuse>>,
  parsing: {
    ratio_bombs: { honest: Honest };
    slowest_admitted: { honest: Honest };
    many_addresses: { honest: Honest & { max_ms: number } };
  },
  twoAccounts: Awaited<ReturnType<typeof benchTwoAccounts>>,
) {
  const worstParse = Math.max(parsing.ratio_bombs.honest.p95_ms, parsing.slowest_admitted.honest.p95_ms);
  const perAddress = Object.entries(slicing.attacker_slicer_seconds).filter(([caller]) => caller.startsWith('ip:'));
  const refusedHonest =
    slicing.honest_alone.refusals_503_429 +
    slicing.honest_beside_attacker.refusals_503_429 +
    parsing.ratio_bombs.honest.not_stored.length +
    parsing.slowest_admitted.honest.not_stored.length +
    parsing.many_addresses.honest.not_stored.length;
  return [
    {
      figure: 'honest shopper, time to exact price p95 with attacker ÷ without',
      measured: slicing.p95_ratio,
      target: '≤ 1.5',
    },
    { figure: 'honest upload (3 KB) p95 during a parse flood, ms', measured: worstParse, target: '≤ 1000' },
    {
      figure: "honest upload (3 KB), slowest, beside 30 addresses' small slow 3MFs, ms",
      measured: parsing.many_addresses.honest.max_ms,
      target: '≤ 2000',
    },
    {
      figure: "a third account's 20 mm cube, slowest, beside two accounts' long slices, ms",
      measured: Math.max(...twoAccounts.cube_beside_ms),
      target: '≤ 20000',
    },
    { figure: '503/429 (or unstored uploads) for honest callers', measured: refusedHonest, target: 0 },
    {
      figure: "attacker's slicer seconds in the run, most of one address (its hourly budget)",
      measured: Math.max(0, ...perAddress.map(([, v]) => v.seconds)),
      target: `≤ ${slicing.attacker_budget_seconds_per_hour_per_address}`,
    },
  ];
}
