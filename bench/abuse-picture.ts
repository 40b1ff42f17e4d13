// `npm run bench -- abuse-picture` (and part of `abuse`): /healthz latency while the costliest kept-quote pictures
// are drawn (docs/security.md, "Kept quotes' pictures"). Five attacker addresses each upload a 1 MB mesh of
// plate-sized flat triangles (nearly free to slice, costly to draw), price it, keep a link and open it at once;
// meanwhile another address asks /healthz, one request after another, until every picture is answered. Then the
// largest mesh a picture reads (16 MiB of the same triangles; PrusaSlicer cannot load such a mesh, so it has no
// quote and is handed to the server's picture maker directly) while /healthz is asked again. The same /healthz
// loop runs alone first. Bounded: 200 requests alone, at most 5000 in each run, loopback only.

import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pictureBombObj } from '../test/helpers/picture-bomb.ts';
import { merchantShop, startTestServer, type TestServer } from '../test/helpers/server.ts';
import { widgetShopper } from '../test/helpers/shopper.ts';

const SHOP = 'https://picture-bomb.example';
const ATTACKERS = ['127.0.0.40', '127.0.0.41', '127.0.0.42', '127.0.0.43', '127.0.0.44'];
const WATCHER = '127.0.0.49';
/** 10,000 sheets of two faces, 1 MB: PrusaSlicer (2.7) crashes loading 40,000 triangles of them. */
const TRIANGLES = 20_000;
/** Triangles in 16 MiB of the same OBJ: the largest mesh a picture reads. */
const LARGEST_TRIANGLES = 280_000;
const ALONE = 200;
const MAX_DURING = 5000;

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return +sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!.toFixed(1);
};
const summary = (ms: number[]) => ({ requests: ms.length, median_ms: quantile(ms, 0.5), p99_ms: quantile(ms, 0.99) });

async function keptLink(server: TestServer, key: string, address: string, bytes: Uint8Array) {
  const s = widgetShopper(server, key, SHOP, address);
  const fileId = await s.upload(bytes, 'slivers.obj');
  const q = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  if (q.status !== 200) throw new Error(`quote: ${q.status} ${JSON.stringify(q.body)}`);
  const link = await s.post(`/v2/quotes/${q.body.quote_id}/link`, {});
  if (link.status !== 201) throw new Error(`link: ${link.status} ${JSON.stringify(link.body)}`);
  return { s, url: link.body.url as string };
}

/** /healthz, one request after another from the watcher's address, until `work` settles (at most MAX_DURING). */
async function healthzDuring(healthz: () => Promise<number>, work: Promise<unknown>): Promise<number[]> {
  let settled = false;
  void work.finally(() => {
    settled = true;
  });
  const ms: number[] = [];
  while (!settled && ms.length < MAX_DURING) ms.push(await healthz());
  return ms;
}

export async function benchAbusePicture() {
  const server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business' });
  try {
    const shop = await merchantShop(server, 'picture-bomb@example.test', SHOP);
    const bomb = new TextEncoder().encode(pictureBombObj(TRIANGLES));
    const links = [];
    for (const address of ATTACKERS) links.push(await keptLink(server, shop.key, address, bomb));
    const watcher = server.client();
    watcher.localAddress = WATCHER;
    const healthz = async () => {
      const started = performance.now();
      const res = await watcher.get('/healthz');
      if (res.status !== 200) throw new Error(`/healthz: ${res.status}`);
      return performance.now() - started;
    };
    const alone: number[] = [];
    for (let i = 0; i < ALONE; i++) alone.push(await healthz());

    const started = performance.now();
    const pictures = Promise.all(
      links.map(async ({ s, url }) => {
        const res = await s.get(url);
        return { ms: Math.round(performance.now() - started), kind: res.body?.picture ? 'picture' : 'none' };
      }),
    );
    const during = await healthzDuring(healthz, pictures);
    const opened = await pictures;
    const reopenStarted = performance.now();
    await links[0]!.s.get(links[0]!.url);
    const reopenMs = Math.round(performance.now() - reopenStarted);

    const largest = path.join(await server.deps.storage.makeWorkDir('bench-picture'), 'canonical.obj');
    await writeFile(largest, pictureBombObj(LARGEST_TRIANGLES));
    const largestStarted = performance.now();
    const drawing = server.deps.pictures.of(
      { id: 'file_benchlargest', bbox: { min: [0, 0, 0], max: [100, 100, 2] }, meshPath: async () => largest },
      'ip:127.0.0.45',
    );
    const duringLargest = await healthzDuring(healthz, drawing);
    const largestMs = Math.round(performance.now() - largestStarted);
    return {
      setup: `${ATTACKERS.length} addresses each open a kept link to their ${(bomb.length / 1e6).toFixed(1)} MB mesh of ${TRIANGLES} plate-sized flat triangles at once, then a ${((await stat(largest)).size / 2 ** 20).toFixed(1)} MiB one is drawn; another address asks /healthz one request after another`,
      healthz_alone: summary(alone),
      healthz_while_pictures_drawn: summary(during),
      healthz_while_largest_drawn: summary(duringLargest),
      target_p99_ms: 100,
      pictures_answered_ms: opened.map((o) => o.ms),
      largest_picture_ms: largestMs,
      pictures_made: server.deps.pictures.state().made,
      reopen_ms: reopenMs,
    };
  } finally {
    await server.stop();
  }
}
