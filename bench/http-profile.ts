// `npm run bench -- http-profile`: where a request's CPU time goes. A server process runs under --cpu-prof while
// autocannon loads one route the way `bench -- http` does; its profile is then summed by who caused the work:
// each sample is charged to the nearest frame on its stack that is ours (a server file) or a package's, so
// JSON.stringify inside pino counts as pino and an HMAC inside jsonwebtoken as jsonwebtoken. What no such frame
// claims is Node's own (its HTTP parser and sockets, Koa's core) or the garbage collector.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type MeasuredServer, startMeasuredServer } from '../test/helpers/server-process.ts';
import { growHistory, HISTORY_QUOTES, load, unlimitedPlans } from './http.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock, the one process.hrtime reads. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const ROOT = path.resolve('.');
const microseconds = () => Number(process.hrtime.bigint() / 1000n);

/** The package or server file a frame belongs to, or null for Node's internals and V8's own. */
function owner(url: string): string | null {
  if (!url) return null;
  const file = url.startsWith('file://') ? new URL(url).pathname : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1]!;
  if (file.startsWith(ROOT)) return path.relative(ROOT, file);
  return null;
}

/** Node's internal module a frame is in (node:internal/http... → http), for the work nothing of ours claims. */
function internal(url: string, name: string): string {
  if (name.startsWith('(')) return name; // (garbage collector), (program), (idle)
  const mod = /^node:(?:internal\/)?([^/]+)/.exec(url)?.[1];
  return `node: ${mod ?? (url || 'native')}`;
}

/**
 * Milliseconds of CPU per owner within [from, to] (µs, monotonic), biggest first, with their share of the busy
 * (non-idle) time.
 */
export function summarise(profile: CpuProfile, from: number, to: number, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const claimed = new Map<number, string>();
  const claim = (id: number): string => {
    const known = claimed.get(id);
    if (known) return known;
    let at: number | undefined = id;
    let found: string | null = null;
    while (at !== undefined && !found) {
      found = owner(byId.get(at)!.callFrame.url);
      at = parent.get(at);
    }
    const leaf = byId.get(id)!.callFrame;
    const who = found ?? internal(leaf.url, leaf.functionName);
    claimed.set(id, who);
    return who;
  };
  const ms = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) return;
    const who = claim(id);
    ms.set(who, (ms.get(who) ?? 0) + delta / 1000);
  });
  ms.delete('(idle)');
  const busy = [...ms.values()].reduce((a, b) => a + b, 0);
  return {
    busy_ms: Math.round(busy),
    by_owner: [...ms.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([who, t]) => ({ who, ms: Math.round(t), share: `${((100 * t) / busy).toFixed(1)} %` })),
  };
}

/**
 * Profiles the server while it answers `route` under load, after `prepare` (the data the route reads); the profile
 * is written when the server stops.
 */
async function profileRoute(
  kind: 'pglite' | 'postgres',
  route: string,
  prepare: (server: MeasuredServer) => Promise<void> = async () => {},
) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-profile-'));
  const server = await startMeasuredServer(kind, { PLANS_FILE: unlimitedPlans(), PREFETCH_MAX_SECONDS: '0' }, [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
  ]);
  try {
    await prepare(server);
    await load(`${server.process.url}${route}`, server.api.token!, 3); // warm: compiled code, caches filled
    const from = microseconds();
    const measured = await load(`${server.process.url}${route}`, server.api.token!);
    const to = microseconds();
    // SIGTERM: the server stops gracefully and Node writes the profile on exit.
    await server.process.kill('SIGTERM');
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no profile written in ${dir}`);
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const summary = summarise(profile, from, to);
    const requests = measured.requests_per_s * ((to - from) / 1e6);
    return {
      requests_per_s: measured.requests_per_s,
      server_cpu_us_per_request: Math.round((summary.busy_ms * 1000) / requests),
      ...summary,
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchHttpProfile() {
  const out: Record<string, unknown> = {};
  for (const [kind, route] of [
    ['postgres', '/healthz'],
    ['postgres', '/v2/user'],
    ['postgres', '/v2/quotes?limit=20'],
    ['pglite', '/v2/user'],
    // What a storefront page asks first (here with the token, which the route also takes): its configuration.
    ['postgres', '/v2/widget/config'],
  ] as const) {
    out[`${route}, ${kind}`] = await profileRoute(kind, route);
  }
  out[`/v2/quotes?limit=20 of ${HISTORY_QUOTES} quotes, postgres`] = await profileRoute(
    'postgres',
    '/v2/quotes?limit=20',
    (server) => growHistory(server, HISTORY_QUOTES),
  );
  return out;
}
