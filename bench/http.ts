// `npm run bench -- http`: authenticated reads under load (autocannon, 50 connections, a separate server
// process) on PostgreSQL and PGlite, with plan limits raised so nothing is refused, against a bare Koa process on
// the same machine, and the server's memory just after start and idle. These machines are noisy: compare the runs of one report.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { startMeasuredServer } from '../test/helpers/server-process.ts';
import { freePort } from '../test/helpers/process.ts';
import { idleRss } from './api.ts';

const DURATION_S = 10;
const CONNECTIONS = 50;

/** The bundled plans with every rate limit far above what one machine can send. */
function unlimitedPlans(): string {
  const plans = JSON.parse(readFileSync(new URL('../server/plans.json', import.meta.url), 'utf8'));
  for (const plan of Object.values<any>(plans).filter((p) => typeof p === 'object')) {
    for (const rule of Object.values<any>(plan.rate_limits)) rule.limit = 10_000_000;
  }
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'sq-bench-plans-')), 'plans.json');
  writeFileSync(file, JSON.stringify(plans));
  return file;
}

async function load(url: string, token: string) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    requests_per_s: Math.round(result.requests.average),
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
    non_2xx: result.non2xx,
    errors: result.errors,
  };
}

export async function benchHttp() {
  const plans = unlimitedPlans();
  const out: Record<string, unknown> = { connections: CONNECTIONS, seconds: DURATION_S };
  const setups = [
    ['postgres', 'postgres', {}],
    ['postgres, API_PROCESSES=2', 'postgres', { API_PROCESSES: '2' }],
    // Several processes share their rate-limit counters through Redis, as a multi-process deployment does.
    [
      'postgres + Redis rate limits, API_PROCESSES=2',
      'postgres',
      { API_PROCESSES: '2', REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_PREFIX: `sq-bench-${process.pid}:` },
    ],
    ['pglite', 'pglite', {}],
  ] as const;
  out['bare Koa, one JSON route (the ceiling on this machine)'] = await bareKoa();
  for (const [name, kind, env] of setups) {
    const server = await startMeasuredServer(kind, { PLANS_FILE: plans, ...env });
    try {
      // With API_PROCESSES the measured process is the supervisor, not the servers: no memory figure.
      const memory = 'API_PROCESSES' in env ? undefined : await idleRss(server);
      if (!memory) await new Promise((r) => setTimeout(r, 3000)); // let the second process start
      const token = server.api.token!;
      out[name] = {
        rss: memory,
        'GET /v2/user': await load(`${server.process.url}/v2/user`, token),
        'GET /v2/quotes?limit=20': await load(`${server.process.url}/v2/quotes?limit=20`, token),
        'GET /healthz': await load(`${server.process.url}/healthz`, token),
      };
    } finally {
      await server.stop();
    }
  }
  out.targets = {
    'GET /v2/user, PostgreSQL': '>= 3000 req/s, p99 < 50 ms',
    'GET /v2/user, PGlite': '>= 1500 req/s',
    'idle RSS, PGlite': '<= 300 MB',
  };
  return out;
}

/** A Koa process with one JSON route and nothing else, loaded the same way: what the machine allows at most. */
async function bareKoa() {
  const port = await freePort();
  const code = `const Koa = require('koa'); const app = new Koa();
    app.use((ctx) => { ctx.body = { ok: true }; }); app.listen(${port}, '127.0.0.1', () => console.log('up'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    return await load(`http://127.0.0.1:${port}/`, 'unused');
  } finally {
    child.kill();
  }
}
