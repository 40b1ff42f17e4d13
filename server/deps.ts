// Everything a route or service needs, passed as one parameter (no module singletons).
import type { Config } from './config.ts';
import type { Db } from './db/index.ts';
import type { Plans } from './limits/plans.ts';
import type { FileStorage } from './storage/disk.ts';
import type { ModelParser } from './mesh/parse.ts';
import type { AccountRow } from './accounts/sql.ts';
import type { EventPump } from './webhooks/dispatcher.ts';
import type { JobRunner } from './quotes/job-runner.ts';
import type { Limits } from './limits/index.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { TokenAuthenticator } from './accounts/api-tokens.ts';
import type { Estimator } from './quotes/estimate.ts';
import type { RefusedOrigins } from './widget/refused-origins.ts';

export interface Logger {
  info(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, err?: unknown): void;
}

export interface Deps {
  config: Config;
  db: Db;
  plans: Plans;
  storage: FileStorage;
  parser: ModelParser;
  log: Logger;
  /** Delivers outbox events; wake() after committing a transaction that wrote events. */
  events: EventPump;
  /** Claims and runs quote jobs (in-process worker). */
  jobs: JobRunner;
  /** Rate limiter, request log and the new-month alert sweep. */
  limits: Limits;
  /** API token checks with a revocation-aware cache of token rows (the hot path of every API call). */
  tokens: TokenAuthenticator;
  /** The instant estimate's calibrations (fitted on each account's real slices) and recent features. */
  estimator: Estimator;
  /** Prometheus metrics of this process and of the service's state (served at /metrics). */
  metrics: Metrics;
  /** The origins each widget key was recently refused from (shown on the dashboard's widget keys page). */
  refusedOrigins: RefusedOrigins;
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

/** Who is calling: an API token, a dashboard session (cookie + CSRF), or a storefront's widget key. */
export interface Auth {
  account: AccountRow;
  tokenId: string | null;
  widgetKeyId: string | null;
  via: 'token' | 'session' | 'widget';
  /** Widget calls: SHA-256 of the shopper token (X-Shopper-Token); a shopper sees only their own uploads and quotes. */
  shopperHash?: string | null;
  /**
   * Who slicer time, parse time and queue places are charged to (docs/limits.md): tok:<token id>, acct:<account
   * id> for a dashboard session, ip:<client address, IPv6 per /64> for a shop's shoppers.
   */
  caller: string;
}

export interface AppState {
  auth: Auth;
}
