// `npm run bench -- http-guard`: a short run of `bench -- http` that judges ratios only, and exits 1 when /healthz or
// GET /v2/user (PostgreSQL, one process) answers more than 15 % slower, against a bare Koa process measured in the
// same run, than the ratios recorded in http-guard.json. The ceiling and the two routes take turns in short rounds
// (the order rotated each round), so a machine that gets busier or quieter during the run moves all three alike;
// the median round decides, and a failing run is measured once more before it fails.
// A timing on a shared machine can still mislead when its load swings within seconds; the test suite's guard counts
// the work instead (test/api/hot-path.test.ts), which no load changes. See docs/performance.md.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startMeasuredServer } from '../test/helpers/server-process.ts';
import { load, startBareKoa, unlimitedPlans } from './http.ts';

const ROUNDS = 5;
const ROUND_S = 1;
const ALLOWED_SLOWDOWN = 0.15;
const ROUTES = ['/healthz', '/v2/user'] as const;

/** The ratios to the ceiling this machine's runs were measured at (update after a change that speeds them up). */
const recorded = (): Record<(typeof ROUTES)[number], number> =>
  JSON.parse(readFileSync(new URL('./http-guard.json', import.meta.url), 'utf8')).ratios;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function rounds(ceilingUrl: string, serverUrl: string, token: string) {
  const ratios: Record<string, number[]> = Object.fromEntries(ROUTES.map((r) => [r, []]));
  const subjects = [null, ...ROUTES] as const;
  for (let round = 0; round < ROUNDS; round++) {
    const perS: Record<string, number> = {};
    for (let i = 0; i < subjects.length; i++) {
      const subject = subjects[(i + round) % subjects.length]!;
      const url = subject === null ? ceilingUrl : `${serverUrl}${subject}`;
      perS[subject ?? 'ceiling'] = (await load(url, token, ROUND_S)).requests_per_s;
    }
    for (const route of ROUTES) ratios[route]!.push(perS[route]! / perS.ceiling!);
  }
  return Object.fromEntries(ROUTES.map((r) => [r, median(ratios[r]!)])) as Record<(typeof ROUTES)[number], number>;
}

export async function benchHttpGuard() {
  const koa = await startBareKoa();
  const server = await startMeasuredServer('postgres', { PLANS_FILE: unlimitedPlans() });
  const baseline = recorded();
  try {
    // Warm: compiled code, the token's cache, the connection pool.
    for (const route of ROUTES) await load(`${server.process.url}${route}`, server.api.token!, ROUND_S);
    await load(koa.url, 'unused', ROUND_S);
    const verdict = (ratios: Record<string, number>) =>
      ROUTES.filter((r) => ratios[r]! < baseline[r] * (1 - ALLOWED_SLOWDOWN));
    const runs = [await rounds(koa.url, server.process.url, server.api.token!)];
    if (verdict(runs[0]!).length) runs.push(await rounds(koa.url, server.process.url, server.api.token!));
    const slower = verdict(runs.at(-1)!);
    if (slower.length) process.exitCode = 1;
    return {
      load_average: loadavg().map((l) => l.toFixed(2)),
      recorded: baseline,
      runs: runs.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, +v.toFixed(3)]))),
      verdict: slower.length
        ? `FAILED: ${slower.join(', ')} more than ${ALLOWED_SLOWDOWN * 100} % below the recorded ratio to bare Koa`
        : 'ok',
    };
  } finally {
    koa.stop();
    await server.stop();
  }
}
