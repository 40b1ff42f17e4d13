// Builds the dependencies from a Config, migrates, and serves. Used by main.ts and by the tests.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type Koa from 'koa';
import { createRefusedOrigins, createTokenAuthenticator, createWidgetKeyCache, loadPlans } from './accounts/index.ts';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { type Db, migrate, openPglite, openPostgres } from './db/index.ts';
import type { Deps, Logger } from './deps.ts';
import { answerClientError, createLogger, guardConnections } from './http/index.ts';
import { createPartPictures, pictureOptions } from './kept-quotes/index.ts';
import { createLimits } from './limits/index.ts';
import { createModelParser, parserOptions } from './mesh/index.ts';
import { createMetrics } from './metrics/index.ts';
import { seedGlobalProfiles } from './profiles/index.ts';
import { createEstimator, createJobRunner } from './quotes/index.ts';
import { type RetentionSweep, startRetentionSweep } from './retention/index.ts';
import { createSlicePool } from './slicer/index.ts';
import { createDiskStorage, createS3Storage, diskSpaceOf, type FileStorage, sweepLeftovers } from './storage/index.ts';
import { createEventPump } from './webhooks/index.ts';

export interface Running {
  url: string;
  app: Koa;
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
  const s3 = await createS3Storage(config.s3, disk);
  await s3.ready().catch(async (err: Error) => {
    await s3.close();
    throw new Error(`S3_BUCKET: cannot reach bucket "${config.s3!.bucket}" (${err.name}: ${err.message})`);
  });
  return s3;
}

export async function buildDeps(
  config: Config,
  opts: { db?: Db; log?: Logger; now?: () => Date; random?: () => number } = {},
): Promise<Deps> {
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
    disk: diskSpaceOf(config.dataDir),
    parser: createModelParser(parserOptions(config)),
    pictures: createPartPictures(pictureOptions()),
    log,
    metrics: createMetrics(db),
    // Read through base, not captured: a test may replace deps.now after start.
    tokens: createTokenAuthenticator(db, config.jwtSecret, log, (): Date => base.now()),
    widgetKeys: createWidgetKeyCache(db, (): Date => base.now()),
    estimator: createEstimator(db),
    refusedOrigins: createRefusedOrigins(),
    lifecycle: { draining: false },
  };
  await seedGlobalProfiles(base);
  const pool = createSlicePool({
    size: config.slicerConcurrency,
    shortLane: config.slicerShortLane,
    timeoutMs: config.slicerTimeoutMs,
    binary: config.slicerBinary,
    maxQueue: config.slicerConcurrency,
  });
  // Built in order on one object, each service given what exists so far (tests replace deps.now and deps.parser
  // on the finished object, and every service sees the replacement).
  const withEvents = Object.assign(base, { events: createEventPump(base, { random: opts.random }) });
  const withLimits = Object.assign(withEvents, { limits: await createLimits(withEvents) });
  const deps: Deps = Object.assign(withLimits, { jobs: createJobRunner(withLimits, pool) });
  await deps.tokens.start();
  await deps.widgetKeys.start();
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
  guardConnections(server); // slow clients told apart from a busy server; refusals closed gracefully
  server.on('clientError', answerClientError);
  const { port } = server.address() as AddressInfo;
  const host = deps.config.host.includes(':') ? `[${deps.config.host}]` : deps.config.host;
  // PORT=0 picks a free port at listen time; the advertised URL (upload URLs, snippets) must name it.
  if (deps.config.port === 0 && deps.config.publicUrl.endsWith(':0')) deps.config.publicUrl = `http://${host}:${port}`;
  return {
    url: `http://${host}:${port}`,
    app,
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
      await deps.pictures.close();
      await deps.storage.close();
      await deps.db.close();
    },
  };
}
