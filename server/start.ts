// Builds the dependencies from a Config, migrates, and serves. Used by main.ts and by the tests.
import { createEstimator } from './quotes/estimate.ts';
import { createRefusedOrigins } from './widget/refused-origins.ts';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Config } from './config.ts';
import { openPglite, openPostgres, type Db } from './db/index.ts';
import { migrate } from './db/migrate.ts';
import { loadPlans } from './limits/plans.ts';
import { createDiskStorage, sweepLeftovers, type FileStorage } from './storage/disk.ts';
import { createS3Storage } from './storage/s3.ts';
import { createModelParser, parserOptions } from './mesh/parse.ts';
import { createApp } from './app.ts';
import { answerClientError } from './http/errors.ts';
import type { Deps, Logger } from './deps.ts';
import { createLogger } from './http/logging.ts';
import { createEventPump } from './webhooks/dispatcher.ts';
import { createJobRunner } from './quotes/job-runner.ts';
import { createSlicePool } from './slicer/pool.ts';
import { seedGlobalProfiles } from './profiles/service.ts';
import { createLimits } from './limits/index.ts';
import { createMetrics } from './metrics/metrics.ts';
import { createTokenAuthenticator } from './accounts/api-tokens.ts';
import { startRetentionSweep, type RetentionSweep } from './retention/sweep.ts';

export interface Running {
  url: string;
  deps: Deps;
  server: Server;
  /** The retention sweep on its schedule; sweepNow() runs one at once (tests, operators' scripts). */
  retention: RetentionSweep;
  close(): Promise<void>;
}

export async function openDatabase(config: Config): Promise<Db> {
  return config.databaseUrl ? openPostgres(config.databaseUrl) : openPglite(path.join(config.dataDir, 'pglite'));
}

/** Local disk, or S3-compatible object storage with the local disk as its working area and cache. */
async function openStorage(config: Config): Promise<FileStorage> {
  const disk = await createDiskStorage(config.dataDir);
  if (!config.s3) return disk;
  const s3 = createS3Storage(config.s3, disk);
  await s3.ready().catch(async (err: Error) => {
    await s3.close();
    throw new Error(`S3_BUCKET: cannot reach bucket "${config.s3!.bucket}" (${err.name}: ${err.message})`);
  });
  return s3;
}

export async function buildDeps(config: Config, opts: { db?: Db; log?: Logger; now?: () => Date } = {}): Promise<Deps> {
  const db = opts.db ?? (await openDatabase(config));
  await migrate(db);
  // What killed processes left behind (their tmp folders, empty file folders); a live process's stay.
  const swept = await sweepLeftovers(config.dataDir);
  const storage = await openStorage(config);
  const log = opts.log ?? createLogger(config.logLevel);
  if (swept.tmpFolders.length || swept.emptyFileFolders)
    log.info('start-up: removed leftovers of stopped processes', {
      tmp: swept.tmpFolders,
      empty_file_folders: swept.emptyFileFolders,
    });
  const base = {
    config,
    db,
    plans: loadPlans(config.plansFile ? pathToFileURL(config.plansFile) : undefined),
    now: opts.now ?? (() => new Date()),
    storage,
    parser: createModelParser(parserOptions(config)),
    log,
    metrics: createMetrics(db),
    // Read through base, not captured: a test may replace deps.now after start.
    tokens: createTokenAuthenticator(db, config.jwtSecret, log, (): Date => base.now()),
    estimator: createEstimator(db),
    refusedOrigins: createRefusedOrigins(),
    lifecycle: { draining: false },
  };
  await seedGlobalProfiles(base);
  const pool = createSlicePool({
    size: config.slicerConcurrency,
    timeoutMs: config.slicerTimeoutMs,
    binary: config.slicerBinary,
    maxQueue: config.slicerConcurrency,
  });
  // The event pump and the job runner each hold the finished deps object (the runner wakes the pump).
  const deps = base as Deps;
  deps.events = createEventPump(deps);
  deps.jobs = createJobRunner(deps, pool);
  deps.limits = await createLimits(deps);
  await deps.tokens.start();
  return deps;
}

export async function serve(deps: Deps): Promise<Running> {
  const app = createApp(deps);
  deps.events.start();
  deps.jobs.start();
  deps.limits.start();
  const retention = startRetentionSweep(deps);
  const server = app.listen(deps.config.port, deps.config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  server.requestTimeout = 30 * 60_000; // large uploads on slow links
  server.on('clientError', answerClientError);
  const { port } = server.address() as AddressInfo;
  const host = deps.config.host.includes(':') ? `[${deps.config.host}]` : deps.config.host;
  // PORT=0 picks a free port at listen time; the advertised URL (upload URLs, snippets) must name it.
  if (deps.config.port === 0 && deps.config.publicUrl.endsWith(':0')) deps.config.publicUrl = `http://${host}:${port}`;
  return {
    url: `http://${host}:${port}`,
    deps,
    server,
    retention,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await retention.stop();
      await deps.jobs.stop();
      await deps.events.stop();
      await deps.limits.stop();
      await deps.storage.close();
      await deps.db.close();
    },
  };
}
