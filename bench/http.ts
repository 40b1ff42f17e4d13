// `npm run bench -- http`: authenticated reads under load (autocannon, 50 connections, a separate server
// process) on PostgreSQL and PGlite, with plan limits raised so nothing is refused, and the server's idle
// memory. These machines are noisy: compare the runs of one report.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startMeasuredServer } from '../test/helpers/server-process.ts';

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
    ['pglite', 'pglite', {}],
  ] as const;
  for (const [name, kind, env] of setups) {
    const server = await startMeasuredServer(kind, { PLANS_FILE: plans, ...env });
    try {
      await new Promise((r) => setTimeout(r, 3000)); // let start-up work (and a second process) settle first
      const idleRss = server.rss().current;
      const token = server.api.token!;
      out[name] = {
        // With API_PROCESSES the measured process is the supervisor, not the servers: no idle figure.
        idle_rss_mb: 'API_PROCESSES' in env ? undefined : Math.round(idleRss / 2 ** 20),
        'GET /v2/user': await load(`${server.process.url}/v2/user`, token),
        'GET /v2/quotes?limit=20': await load(`${server.process.url}/v2/quotes?limit=20`, token),
        'GET /healthz': await load(`${server.process.url}/healthz`, token),
      };
    } finally {
      await server.stop();
    }
  }
  return out;
}
