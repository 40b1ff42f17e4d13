// `npm run bench -- http`: authenticated reads under load (autocannon, 50 connections, a separate server
// process) on PostgreSQL and PGlite, with plan limits raised so nothing is refused, each printed beside a bare Koa
// process on the same machine measured in the same run (before the servers and after them): the ceiling. These
// machines are noisy, and the load generator shares the cores with the server, so the ratio to the ceiling is the
// figure to compare across runs, not the requests per second. Also the server's memory 3 s and 30 s after start.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from '../test/helpers/process.ts';
import { type MeasuredServer, startMeasuredServer } from '../test/helpers/server-process.ts';
import { idleRss, upload } from './api.ts';

const DURATION_S = 10;
/**
 * Each process is loaded this long before it is measured: a server answers at its steady pace once V8 has compiled
 * its hot code, which takes a second or two of load, and every process here (the ceiling's too) is measured so.
 */
const WARM_S = 2;
const CONNECTIONS = 50;
/** The quotes in the history measured a second time on PostgreSQL: a shop's few months of API quotes. */
export const HISTORY_QUOTES = 1000;
const HISTORY_ROUTE = '/v2/quotes?limit=20';

/** The bundled plans with every rate limit far above what one machine can send. */
export function unlimitedPlans(): string {
  const plans = JSON.parse(readFileSync(new URL('../server/plans.json', import.meta.url), 'utf8'));
  for (const plan of Object.values<any>(plans).filter((p) => typeof p === 'object')) {
    for (const rule of Object.values<any>(plan.rate_limits)) rule.limit = 10_000_000;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-bench-plans-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true })); // read by servers stopped before then
  const file = path.join(dir, 'plans.json');
  writeFileSync(file, JSON.stringify(plans));
  return file;
}

export interface Load {
  requests_per_s: number;
  latency_ms: { p50: number; p99: number };
  non_2xx: number;
  errors: number;
}

export async function load(url: string, token: string, seconds = DURATION_S): Promise<Load> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    requests_per_s: Math.round(result.requests.average),
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
    non_2xx: result.non2xx,
    errors: result.errors,
  };
}

/** A Koa process with one JSON route and nothing else: what the machine allows at most. Stopped by the caller. */
export async function startBareKoa(): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const code = `const Koa = require('koa'); const app = new Koa();
    app.use((ctx) => { ctx.body = { ok: true }; }); app.listen(${port}, '127.0.0.1', () => console.log('up'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill() };
}

async function bareKoa(seconds = DURATION_S, start = startBareKoa): Promise<Load> {
  const koa = await start();
  try {
    await load(koa.url, 'unused', WARM_S);
    return await load(koa.url, 'unused', seconds);
  } finally {
    koa.stop();
  }
}

/**
 * The floor (bench/koa-floor.ts): a Koa process with one route that answers what every answer of ours carries and
 * nothing else. The same response headers (the request id, nosniff, the frame policy, the three X-RateLimit-* of a
 * counter), the access log line written by the server's own logger (gathered in 12 KB batches on a pipe the
 * benchmark reads) and one observation of a request histogram; no routing, no rate limit, no credentials, no
 * database. Its share of the ceiling is what the contract's headers, the access log and the metrics alone leave.
 */
export async function startKoaFloor(): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const script = fileURLToPath(new URL('./koa-floor.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.resume(); // its log lines are read, as a server's are
  await new Promise((resolve) => child.stderr!.once('data', resolve));
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill() };
}

const percent = (ratio: number) => `${(100 * ratio).toFixed(1)} %`;
const uptime = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** What each figure is aimed at, as a share of the ceiling (p99 in ms where one is aimed at too). */
const TARGETS: Record<string, { ratio: number; p99_ms?: number }> = {
  'GET /healthz, postgres': { ratio: 0.6 },
  'GET /v2/user, postgres': { ratio: 0.25, p99_ms: 50 },
  'GET /v2/quotes?limit=20, postgres': { ratio: 0.15 },
  [`GET /v2/quotes?limit=20, ${HISTORY_QUOTES} quotes, postgres`]: { ratio: 0.15 },
  'GET /v2/user, pglite': { ratio: 0.15 },
};
export const RSS_TARGET_MB: Record<string, number> = { pglite: 250, postgres: 150 };

/**
 * The measured account's history grown to `n` quotes: one real quote of a 20 mm cube through the API (its stored
 * result is what every completed quote stores: price, breakdown, statistics, settings), copied at earlier times.
 * On PostgreSQL only, which another process may write to while the server runs.
 */
export async function growHistory(server: MeasuredServer, n: number): Promise<void> {
  const { url } = server.process;
  const token = server.api.token!;
  const cube = readFileSync(new URL('../test/fixtures/models/stl/cube20_ascii.stl', import.meta.url));
  const { file_id } = await upload(url, token, cube, 'cube20.stl');
  const res = await fetch(`${url}/v2/file/quote/${file_id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const quote = (await res.json()) as { quote_id?: string };
  if (res.status !== 200 || !quote.quote_id) throw new Error(`the history's quote failed: ${JSON.stringify(quote)}`);
  const db = await server.sideDb!();
  try {
    await db.query(
      `INSERT INTO quotes
         SELECT (jsonb_populate_record(q, jsonb_build_object('id', q.id || '_' || i,
                   'created_at', q.created_at - i * interval '1 hour', 'finished_at', q.finished_at - i * interval '1 hour'))).*
           FROM quotes q, generate_series(1, $2::int) i WHERE q.id = $1`,
      [quote.quote_id, n - 1],
    );
    // As autovacuum leaves a table that has grown: its statistics and visibility map up to date.
    await db.exec('VACUUM ANALYZE quotes');
  } finally {
    await db.close();
  }
}

export async function benchHttp() {
  const plans = unlimitedPlans();
  const setups = [
    // No prefetches: the history's one real quote must leave no slices running behind it.
    ['postgres', 'postgres', { PREFETCH_MAX_SECONDS: '0' }, ['/healthz', '/v2/user', HISTORY_ROUTE]],
    ['postgres, API_PROCESSES=2', 'postgres', { API_PROCESSES: '2' }, ['/v2/user']],
    // Several processes share their rate-limit counters through Redis, as a multi-process deployment does.
    [
      'postgres + Redis rate limits, API_PROCESSES=2',
      'postgres',
      { API_PROCESSES: '2', REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_PREFIX: `sq-bench-${process.pid}:` },
      ['/v2/user'],
    ],
    ['pglite', 'pglite', {}, ['/healthz', '/v2/user', '/v2/quotes?limit=20']],
  ] as const;
  const loadBefore = uptime();
  const ceilingBefore = await bareKoa();
  const measured: { setup: string; route: string; load: Load }[] = [];
  const memory: Record<string, unknown> = {};
  for (const [name, kind, env, routes] of setups) {
    const server = await startMeasuredServer(kind, { PLANS_FILE: plans, ...env });
    try {
      // With API_PROCESSES the measured process is the supervisor, not the servers: no memory figure.
      if ('API_PROCESSES' in env)
        await new Promise((r) => setTimeout(r, 3000)); // let the second process start
      else memory[name] = await idleRss(server);
      for (const route of routes) {
        await load(`${server.process.url}${route}`, server.api.token!, WARM_S);
        measured.push({ setup: name, route, load: await load(`${server.process.url}${route}`, server.api.token!) });
      }
      // Runs 1 to 4 (docs/performance.md) measured an empty history only; the same page of a long one follows it.
      if (name === 'postgres') {
        await growHistory(server, HISTORY_QUOTES);
        await load(`${server.process.url}${HISTORY_ROUTE}`, server.api.token!, WARM_S);
        const l = await load(`${server.process.url}${HISTORY_ROUTE}`, server.api.token!);
        measured.push({ setup: `${HISTORY_QUOTES} quotes, ${name}`, route: HISTORY_ROUTE, load: l });
      }
    } finally {
      await server.stop();
    }
  }
  const floor = await bareKoa(DURATION_S, startKoaFloor);
  const ceilingAfter = await bareKoa();
  const ceiling = Math.round((ceilingBefore.requests_per_s + ceilingAfter.requests_per_s) / 2);
  const rows = measured.map(({ setup, route, load: l }) => {
    const ratio = l.requests_per_s / ceiling;
    const target = TARGETS[`GET ${route}, ${setup}`];
    const met = target && ratio >= target.ratio && (target.p99_ms === undefined || l.latency_ms.p99 < target.p99_ms);
    return {
      figure: `GET ${route}, ${setup}`,
      requests_per_s: l.requests_per_s,
      of_ceiling: percent(ratio),
      p99_ms: l.latency_ms.p99,
      ...(target
        ? { target: `≥ ${percent(target.ratio)}${target.p99_ms ? `, p99 < ${target.p99_ms} ms` : ''}`, met }
        : {}),
      ...(l.non_2xx || l.errors ? { non_2xx: l.non_2xx, errors: l.errors } : {}),
    };
  });
  return {
    connections: CONNECTIONS,
    seconds: DURATION_S,
    load_average: { before: loadBefore, after: uptime() },
    'bare Koa, one JSON route (the ceiling on this machine)': {
      before: ceilingBefore,
      after: ceilingAfter,
      requests_per_s: ceiling,
    },
    'the floor: bare Koa with our headers, access log line and metric': {
      ...floor,
      of_ceiling: percent(floor.requests_per_s / ceiling),
    },
    table: rows,
    memory: Object.fromEntries(
      Object.entries(memory).map(([name, m]) => {
        const target = RSS_TARGET_MB[name];
        const idle = (m as { idle_mb: number }).idle_mb;
        return [name, { ...(m as object), ...(target ? { target_idle_mb: `≤ ${target}`, met: idle <= target } : {}) }];
      }),
    ),
  };
}
