// `npm run bench`: parsers, the slicing engine against the bare PrusaSlicer CLI, the API end to end, the hostile
// corpus with the server's peak memory, scale-out over worker processes, and the instant estimator against real
// slices. `npm run bench -- hostile` runs one part.
// Medians and ratios, with the machine noted: these machines are noisy, so compare ratios, not seconds.

import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { abuseTable, benchAbuse, benchTwoAccounts } from './abuse.ts';
import { benchAbuseParse } from './abuse-parse.ts';
import { benchAbusePicture } from './abuse-picture.ts';
import { benchBigUpload, benchUploadAndQuote } from './api.ts';
import { benchEstimate } from './estimate.ts';
import { benchHostile } from './hostile.ts';
import { benchHttp } from './http.ts';
import { benchHttpGuard } from './http-guard.ts';
import { benchHttpProfile } from './http-profile.ts';
import { benchIdleMemory } from './idle-memory.ts';
import { benchParsers } from './parsers.ts';
import { benchPrinters, benchSlicerInstall } from './printers.ts';
import { benchScale } from './scale.ts';
import { benchSliceCost } from './slice-cost.ts';
import { benchSettingChange, benchSlicer } from './slicer.ts';
import { benchWidget } from './widget.ts';

const modelsDir = path.resolve('test', 'fixtures', 'models');
if (!existsSync(modelsDir)) {
  console.error(`bench: the model corpus is missing at ${modelsDir}`);
  process.exit(1);
}

const only = new Set(process.argv.slice(2));
const want = (name: string) => only.size === 0 || only.has(name);

const report: Record<string, unknown> = {
  machine: {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString(),
  },
};
if (want('parsers')) report.parsers = await benchParsers();
if (want('slicer')) report.slicer = await benchSlicer({ meshPath: path.join(modelsDir, 'stl', '3DBenchy.stl') });
if (want('setting-change')) {
  report.setting_change = await benchSettingChange(path.join(modelsDir, 'stl', '3DBenchy.stl'));
}
if (want('api')) report.api = await benchUploadAndQuote(modelsDir);
if (want('big-upload')) report.big_upload = await benchBigUpload(modelsDir);
if (want('widget')) report.widget = await benchWidget();
if (want('hostile')) report.hostile = await benchHostile();
if (want('scale')) report.scale = await benchScale(modelsDir);
if (want('http')) report.http = await benchHttp();
// Several starts of each server both ways (some seven minutes): only when named (`npm run bench -- idle-memory`).
if (only.has('idle-memory')) report.idle_memory = await benchIdleMemory();
// A profile, not a figure: only when asked by name (`npm run bench -- http-profile`).
if (only.has('http-profile')) report.http_profile = await benchHttpProfile();
// The short check of the hot path's ratios to bare Koa (exit 1 when slower than recorded): only when named.
if (only.has('http-guard')) report.http_guard = await benchHttpGuard();
if (want('estimate')) report.estimate = await benchEstimate(modelsDir);
if (want('abuse-parse')) report.abuse_parse = await benchAbuseParse(modelsDir);
if (want('slice-cost')) report.slice_cost = await benchSliceCost(modelsDir);
if (want('abuse-picture')) report.abuse_picture = await benchAbusePicture();
if (want('printers')) report.printers = await benchPrinters(modelsDir);
// Fetches about 330 MB from Debian: only when asked by name (`npm run bench -- slicer-install`).
if (only.has('slicer-install')) report.slicer_install = benchSlicerInstall();
// The two-accounts half of `abuse` on its own: only when asked by name.
if (only.has('abuse-accounts')) report.abuse_accounts = await benchTwoAccounts();
if (want('abuse')) {
  const slicing = await benchAbuse();
  const twoAccounts = await benchTwoAccounts();
  const parsing = (await benchAbuseParse(modelsDir)) as Parameters<typeof abuseTable>[1];
  const picture =
    (report.abuse_picture as Awaited<ReturnType<typeof benchAbusePicture>>) ?? (await benchAbusePicture());
  const healthz = {
    figure: '/healthz p99 from another address while the costliest kept-quote pictures are drawn, ms',
    measured: Math.max(picture.healthz_while_pictures_drawn.p99_ms, picture.healthz_while_largest_drawn.p99_ms),
    target: `≤ ${picture.target_p99_ms}`,
  };
  report.abuse = {
    slicing,
    two_accounts: twoAccounts,
    parsing,
    picture,
    table: [...abuseTable(slicing, parsing, twoAccounts), healthz],
  };
}
console.log(JSON.stringify(report, null, 2));
