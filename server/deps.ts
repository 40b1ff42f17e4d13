// The dependencies every route and service is built with, passed as one parameter (no module singletons). Each
// function takes only the part it uses, its port (`Pick<Deps, 'db' | 'now'>`, named next to it when it is shared,
// as accounts' AccessPorts); only the app's one router and the server are built with all of them.
// This file declares the ports and imports no feature: it names the infrastructure (configuration, database,
// storage, clock, log); each feature that creates a service adds it here from its own folder by declaration
// merging (`declare module '../deps.ts'`), so the arrows run from the features down to this file.
import type { Config, Plans } from './config.ts';
import type { Db } from './db/index.ts';
import type { Logger } from './http/index.ts';
import type { DiskSpace, FileStorage } from './storage/index.ts';

export type { Logger };

export interface Deps {
  config: Config;
  db: Db;
  /** The plans file (plans.json), loaded and checked at start-up. */
  plans: Plans;
  storage: FileStorage;
  /**
   * The free space under DATA_DIR, read by the disk floor and shares. Tests that shrink the disk replace it with
   * one this server alone writes to: other processes sharing the machine's disk would move the figure under them.
   */
  disk: DiskSpace;
  log: Logger;
  /** draining: the process is shutting down; /readyz answers 503 so load balancers stop sending requests. */
  lifecycle: { draining: boolean };
  /**
   * The one clock of every time-dependent decision: expiries (sessions, API tokens, upload ids, quotes, invites,
   * idempotency keys, prefetches), in-memory rate-limit windows and login locks, quota periods, retention and the
   * webhook retry schedule. Leases stay on the database's clock (they must agree across processes) and Redis
   * windows on Redis' clock. Tests start a server with a clock they advance instead of sleeping.
   */
  now: () => Date;
}

/** What a request carries in ctx.state; each folder that sets a key declares it here the same way. */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging from the features
export interface AppState {}
