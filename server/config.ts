// Configuration from the environment, validated once at start-up.
// A bad value stops start-up with a message naming the variable; nothing else reads process.env.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import path from 'node:path';

/** S3-compatible storage for model files (storage/s3.ts). */
export interface S3Settings {
  bucket: string;
  /** Key prefix, e.g. "slicequote/" ('' for the bucket's root). */
  prefix: string;
  region: string;
  /** Custom endpoint (MinIO, R2, Ceph); null: AWS. */
  endpoint: string | null;
  forcePathStyle: boolean;
  /** null: the SDK's default credential chain (AWS_* variables, instance or task roles). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
}

/** The SMTP server links to priced quote requests are e-mailed through (mail/smtp.ts). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte; smtp://: plain, upgraded with STARTTLS whenever the server offers it. */
  secure: boolean;
  /** AUTH PLAIN credentials; null: none. */
  auth: { user: string; pass: string } | null;
  /** The sender address (SMTP_FROM). */
  from: string;
  /** Accept a certificate no trusted authority signed (SMTP_TLS_INSECURE; a relay on the same host). */
  tlsInsecure: boolean;
}

// The plans file's shape (plans.json; loaded and checked by accounts/plans.ts).
export type EndpointClass = 'quote' | 'upload' | 'read' | 'write';
export interface RateLimit {
  limit: number;
  window_seconds: number;
}
export interface Plan {
  id: string;
  label: string;
  monthly_quotes: number;
  storage_bytes: number;
  rate_limits: Record<EndpointClass, RateLimit>;
}
/** Plans by id. free, pro and business always exist (loadPlans checks), so `plans[id] ?? plans.free` is a Plan. */
export type Plans = Record<string, Plan> & Record<'free' | 'pro' | 'business', Plan>;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | null;
  maxUploadBytes: number;
  /** Parse workers any upload may use; one more is kept for small files (docs/limits.md, "Fair parsing"). */
  parseWorkers: number;
  /** Uploads of one caller that may wait while its parse runs; more answer 503 parse_queue_full. */
  parseQueuePerCaller: number;
  /** The longest any parse may take, whatever the file's size justifies. */
  parseMaxSeconds: number;
  jwtSecret: string;
  demoAccount: boolean;
  production: boolean;
  uploadIdTtlSeconds: number;
  /** The PrusaSlicer every slice runs (PRUSA_SLICER_BIN; default: see slicerChoice). */
  slicerBinary: string;
  /**
   * The vendor profiles directory (PrusaResearch.ini, …) of that slicer, for readers of its printer presets:
   * the 2.9 tree's usr/share/PrusaSlicer/profiles, or /usr/share/PrusaSlicer/profiles for Debian's 2.5.
   */
  slicerProfilesDir: string;
  slicerConcurrency: number;
  /** Slicer slots beyond SLICER_CONCURRENCY that only quotes predicted short may take (docs/limits.md). */
  slicerShortLane: number;
  slicerTimeoutMs: number;
  /** Quotes waiting to be sliced, all accounts together: the database's safety bound, not a share. */
  slicerQueueSize: number;
  /** Quotes one account may have waiting; past it that account (only) is answered 503 queue_full. */
  slicerQueuePerAccount: number;
  /** Quotes one shopper (client address) of a shop may have waiting; past it 429 caller_queue_full. */
  slicerQueuePerShopper: number;
  /** Slicer seconds per hour, failed and timed-out slices included: one shopper (client address) of a shop. */
  slicerSecondsPerShopperHour: number;
  /** Slicer seconds per hour for one API token or dashboard session. */
  slicerSecondsPerCallerHour: number;
  /** Predicted slicer seconds above which a shopper's upload is never pre-sliced. */
  prefetchMaxSeconds: number;
  /** Slicer seconds per hour a shop's prefetches may use, all its shoppers' uploads together (its own budget). */
  prefetchSecondsPerShopHour: number;
  quoteSyncWaitMs: number;
  /**
   * The longest a 202 waits for the quote's instant estimate (QUOTE_ESTIMATE_WAIT_MS); one not made by then is
   * answered null and shown by the job read once made (docs/estimate.md).
   */
  quoteEstimateWaitMs: number;
  jobLeaseMs: number;
  workerRole: 'all' | 'api' | 'worker';
  webhookSweepIntervalMs: number;
  webhookTimeoutMs: number;
  webhookAllowPrivateCidrs: string;
  /**
   * Private CIDRs that only one account's receivers may reach, on top of WEBHOOK_ALLOW_PRIVATE_CIDRS: demo mode
   * lets the demo merchant (and no one else) deliver to its backend on loopback. Not read from the environment.
   */
  webhookAccountAllowances: Record<string, string[]>;
  redisUrl: string | null;
  /** Plans file (plans.json format); null: the bundled server/plans.json. */
  plansFile: string | null;
  /** Prefix of the rate-limit counter keys in Redis (several deployments or test runs can share one Redis). */
  rateLimitPrefix: string;
  /** Plan whose rate limits apply to requests without a valid token, counted per client address. */
  rateLimitAnonymousPlan: string;
  usageFlushMs: number;
  usageRetentionDays: number;
  /**
   * Trusted reverse-proxy hops in front of the server: the client address is the hops-th X-Forwarded-For entry
   * counted from the right (the one the nearest trusted proxy saw). 0 ignores the header.
   */
  trustProxy: number;
  /** Bearer token GET /metrics asks for; null: /metrics is open in demo mode and not served outside it. */
  metricsToken: string | null;
  /** Who may create an account in the dashboard: anyone, holders of an invite code (npm run invite), nobody. */
  signup: SignupMode;
  /** Object storage for model files (S3_BUCKET set); null: local disk in DATA_DIR/files. */
  s3: S3Settings | null;
  /** Processes serving HTTP on the one port (node:cluster); above 1 needs PostgreSQL. */
  apiProcesses: number;
  /** info logs every request (access log); warn and error log less. */
  logLevel: LogLevel;
  /** How often the retention sweep runs (docs/limits.md, "Retention"). */
  retentionSweepIntervalMs: number;
  /** Days a shopper upload that was not added to a cart is kept; null: the account's quote validity. */
  shopperUploadRetentionDays: number | null;
  /** Days an outbox event is kept once handed to the webhooks. */
  outboxRetentionDays: number;
  /** Days a kept quote's link (POST /v2/quotes/{quote_id}/link) opens the quote and its PDF. */
  quoteLinkDays: number;
  /** Where links to priced quote requests are e-mailed from; null: not e-mailed (the dashboard copies them). */
  smtp: SmtpSettings | null;
  /** Uploads are refused (507) when they would leave less free space than this on DATA_DIR's disk; 0: no floor. */
  diskFreeFloorBytes: number;
  /** The most of the disk above the floor one account's stored files may hold (docs/limits.md, "The disk floor"). */
  diskAccountSharePercent: number;
  /** The same for the uploads of one widget key's shoppers. */
  diskWidgetSharePercent: number;
}

/**
 * How long a 202 waits for the instant estimate unless QUOTE_ESTIMATE_WAIT_MS says otherwise: about three times what
 * measuring 3DBenchy (11 MB) takes on an idle host (1.5 s), so a typical part's 202 carries its estimate even on a
 * moderately busy one, while a loaded host still answers within seconds; a later estimate is read from the job.
 */
export const DEFAULT_QUOTE_ESTIMATE_WAIT_MS = 5000;

export const SIGNUP_MODES = ['open', 'invite', 'off'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A whole number, or null when the variable is unset or empty. */
function optionalInt(env: Env, name: string, min: number, max: number): number | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : int(env, name, 0, min, max);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** TRUST_PROXY: a hop count; true/yes/on mean one proxy, false/no/off (or empty) none. */
function proxyHops(env: Env): number {
  const raw = env.TRUST_PROXY?.trim().toLowerCase();
  if (raw === undefined || raw === '') return 0;
  if (['true', 'yes', 'on'].includes(raw)) return 1;
  if (['false', 'no', 'off'].includes(raw)) return 0;
  return int(env, 'TRUST_PROXY', 0, 0, 10);
}

function databaseUrl(env: Env): string | null {
  const raw = env.DATABASE_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a URL: "${raw}"`);
  }
  if (!['postgres:', 'postgresql:'].includes(url.protocol)) {
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://, got "${url.protocol}"`);
  }
  return raw;
}

function optionalUrl(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if (!protocols.includes(url.protocol)) throw new Error();
    return raw;
  } catch {
    throw new ConfigError(`${name} must be a ${protocols.join(' or ')} URL, got "${raw}"`);
  }
}

/** S3-compatible object storage, when S3_BUCKET is set; keys and secret both or neither. */
function s3Settings(env: Env): S3Settings | null {
  const bucket = env.S3_BUCKET?.trim();
  if (!bucket) return null;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(
      `S3_BUCKET must be a bucket name (3-63 lower-case letters, digits, dots, hyphens), got "${bucket}"`,
    );
  const endpoint = optionalUrl(env, 'S3_ENDPOINT', ['http:', 'https:']);
  const accessKeyId = env.S3_ACCESS_KEY_ID?.trim() ?? '';
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY?.trim() ?? '';
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all');
  const prefix = env.S3_PREFIX?.trim() ?? '';
  if (prefix && !/^[\w./-]+\/$/.test(prefix))
    throw new ConfigError(`S3_PREFIX must end with / and hold only letters, digits and ._-/, got "${prefix}"`);
  return {
    bucket,
    prefix,
    region: env.S3_REGION?.trim() || 'us-east-1',
    endpoint,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== null),
    credentials: accessKeyId ? { accessKeyId, secretAccessKey } : null,
  };
}

/** A plain e-mail address: no spaces, no angle brackets, one @ (it goes into SMTP commands and headers). */
const MAIL_ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9.-]+$/;

/** SMTP_URL (smtp:// or smtps://, user and password URL-encoded) with SMTP_FROM, or null when unset. */
function smtpSettings(env: Env): SmtpSettings | null {
  const raw = optionalUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  if (!raw) return null;
  const url = new URL(raw);
  const from = env.SMTP_FROM?.trim() ?? '';
  if (!MAIL_ADDRESS.test(from))
    throw new ConfigError(`SMTP_FROM must be an e-mail address when SMTP_URL is set, got "${from}"`);
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth: user ? { user, pass: decodeURIComponent(url.password) } : null,
    from,
    tlsInsecure: bool(env, 'SMTP_TLS_INSECURE', false),
  };
}

/** SIGNUP: off by default in production, where a stranger's account would spend the operator's slicers. */
function signupMode(env: Env, production: boolean): SignupMode {
  const raw = env.SIGNUP?.trim().toLowerCase() || (production ? 'off' : 'open');
  if (!(SIGNUP_MODES as readonly string[]).includes(raw))
    throw new ConfigError(`SIGNUP must be one of ${SIGNUP_MODES.join(', ')}, got "${env.SIGNUP}"`);
  return raw as SignupMode;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

function logLevel(env: Env): LogLevel {
  const raw = env.LOG_LEVEL?.trim().toLowerCase() || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw as LogLevel;
}

/** API_PROCESSES: several processes share the port; PGlite belongs to one process, so they need PostgreSQL. */
function apiProcesses(env: Env, role: Config['workerRole']): number {
  const n = int(env, 'API_PROCESSES', 1, 1, 64);
  if (n > 1 && !env.DATABASE_URL?.trim())
    throw new ConfigError(
      'API_PROCESSES above 1 needs DATABASE_URL: the embedded PGlite database belongs to one process',
    );
  if (n > 1 && role === 'worker')
    throw new ConfigError('API_PROCESSES applies to WORKER_ROLE=all or api; a worker serves no API');
  return n;
}

/** The JWT secret: from the environment, else generated once and kept in DATA_DIR so tokens survive restarts. */
function jwtSecret(env: Env, dataDir: string): string {
  const given = env.JWT_SECRET;
  if (given !== undefined && given !== '') {
    if (given.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters long');
    return given;
  }
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The trixie PrusaSlicer version scripts/setup.sh installs (the Debian package version). */
const TREE_VERSION = readFileSync(new URL('../scripts/prusa-slicer.version', import.meta.url), 'utf8').trim();

/** Where setup puts the PrusaSlicer tree, shared by the clones of this machine (docs/deployment.md). */
export function slicerTreeDir(env: Env = process.env): string {
  const cache = env.SLICEQUOTE_CACHE?.trim() || path.join(env.HOME?.trim() || homedir(), '.cache', 'slicequote');
  return path.join(path.resolve(cache), `prusa-slicer-${TREE_VERSION}`);
}

/** A command as the slicer process would find it: through PATH unless it names a path; null if absent. */
function whichSync(command: string, env: Env): string | null {
  const dirs = command.includes('/') ? [''] : (env.PATH ?? '/usr/bin:/bin').split(':');
  for (const dir of dirs) {
    try {
      return realpathSync(path.resolve(dir, command));
    } catch {
      /* not there: next */
    }
  }
  return null;
}

/**
 * The slicer a server runs and its vendor profiles: PRUSA_SLICER_BIN if set, else the 2.9 tree's launcher when
 * setup installed it, else Debian's `prusa-slicer` (2.5). The profiles sit beside the binary the command resolves
 * to (the tree's usr/share/PrusaSlicer, or ../share/PrusaSlicer of /usr/bin); PRUSA_SLICER_PROFILES_DIR overrides.
 */
export function slicerChoice(env: Env = process.env): { binary: string; profilesDir: string } {
  const tree = slicerTreeDir(env);
  const launcher = path.join(tree, 'prusa-slicer');
  const binary = env.PRUSA_SLICER_BIN?.trim() || (existsSync(launcher) ? launcher : 'prusa-slicer');
  const override = env.PRUSA_SLICER_PROFILES_DIR?.trim();
  if (override) return { binary, profilesDir: path.resolve(override) };
  const real = whichSync(binary, env);
  const beside = real
    ? [
        path.join(path.dirname(real), 'usr/share/PrusaSlicer/profiles'),
        path.join(path.dirname(real), '../share/PrusaSlicer/profiles'),
      ]
    : [];
  const profilesDir = beside.find((dir) => existsSync(dir)) ?? '/usr/share/PrusaSlicer/profiles';
  return { binary, profilesDir: path.resolve(profilesDir) };
}

function slicerSettings(env: Env): Pick<Config, 'slicerBinary' | 'slicerProfilesDir'> {
  const { binary, profilesDir } = slicerChoice(env);
  return { slicerBinary: binary, slicerProfilesDir: profilesDir };
}

export function loadConfig(env: Env = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const dataDir = path.resolve(env.DATA_DIR?.trim() || './data');
  mkdirSync(dataDir, { recursive: true });
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST?.trim() || '127.0.0.1';
  const role = (env.WORKER_ROLE?.trim() || 'all') as Config['workerRole'];
  if (!['all', 'api', 'worker'].includes(role))
    throw new ConfigError(`WORKER_ROLE must be all, api or worker, got "${role}"`);
  const publicUrl =
    optionalUrl(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    port,
    host,
    publicUrl: publicUrl.replace(/\/$/, ''),
    dataDir,
    databaseUrl: databaseUrl(env),
    maxUploadBytes: int(env, 'MAX_UPLOAD_MB', 200, 1, 10_240) * 1024 * 1024,
    parseWorkers: int(env, 'PARSE_WORKERS', 2, 1, 64),
    parseQueuePerCaller: int(env, 'PARSE_QUEUE_PER_CALLER', 2, 0, 1000),
    parseMaxSeconds: int(env, 'PARSE_MAX_SECONDS', 120, 10, 3600),
    jwtSecret: jwtSecret(env, dataDir),
    demoAccount: bool(env, 'DEMO_ACCOUNT', !production),
    production,
    uploadIdTtlSeconds: int(env, 'UPLOAD_ID_TTL_SECONDS', 900, 10, 7 * 86_400),
    ...slicerSettings(env),
    slicerConcurrency: int(env, 'SLICER_CONCURRENCY', availableParallelism(), 1, 256),
    slicerShortLane: int(env, 'SLICER_SHORT_LANE', 1, 0, 64),
    slicerTimeoutMs: int(env, 'SLICER_TIMEOUT_MS', 300_000, 1000, 3_600_000),
    slicerQueueSize: int(env, 'SLICER_QUEUE_SIZE', 10_000, 1, 1_000_000),
    slicerQueuePerAccount: int(env, 'SLICER_QUEUE_PER_ACCOUNT', 100, 1, 100_000),
    slicerQueuePerShopper: int(env, 'SLICER_QUEUE_PER_SHOPPER', 3, 1, 1000),
    slicerSecondsPerShopperHour: int(env, 'SLICER_SECONDS_PER_SHOPPER_HOUR', 300, 1, 1_000_000),
    slicerSecondsPerCallerHour: int(env, 'SLICER_SECONDS_PER_CALLER_HOUR', 3600, 1, 10_000_000),
    prefetchMaxSeconds: int(env, 'PREFETCH_MAX_SECONDS', 20, 0, 3600),
    prefetchSecondsPerShopHour: int(env, 'PREFETCH_SECONDS_PER_SHOP_HOUR', 900, 0, 10_000_000),
    quoteSyncWaitMs: int(env, 'QUOTE_SYNC_WAIT_MS', 60_000, 0, 600_000),
    quoteEstimateWaitMs: int(env, 'QUOTE_ESTIMATE_WAIT_MS', DEFAULT_QUOTE_ESTIMATE_WAIT_MS, 0, 60_000),
    jobLeaseMs: int(env, 'JOB_LEASE_MS', 60_000, 1000, 3_600_000),
    workerRole: role,
    webhookSweepIntervalMs: int(env, 'WEBHOOK_SWEEP_INTERVAL_MS', 30_000, 50, 86_400_000),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookAllowPrivateCidrs: env.WEBHOOK_ALLOW_PRIVATE_CIDRS?.trim() ?? '',
    webhookAccountAllowances: {},
    redisUrl: optionalUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    plansFile: env.PLANS_FILE?.trim() ? path.resolve(env.PLANS_FILE.trim()) : null,
    rateLimitPrefix: env.RATE_LIMIT_PREFIX?.trim() || 'sq:rl:',
    rateLimitAnonymousPlan: env.RATE_LIMIT_ANON_PLAN?.trim() || 'free',
    usageFlushMs: int(env, 'USAGE_FLUSH_MS', 2000, 50, 600_000),
    usageRetentionDays: int(env, 'USAGE_RETENTION_DAYS', 400, 1, 36_500),
    trustProxy: proxyHops(env),
    metricsToken: env.METRICS_TOKEN?.trim() || null,
    signup: signupMode(env, production),
    s3: s3Settings(env),
    apiProcesses: apiProcesses(env, role),
    logLevel: logLevel(env),
    retentionSweepIntervalMs: int(env, 'RETENTION_SWEEP_INTERVAL_MS', 3_600_000, 1000, 7 * 86_400_000),
    shopperUploadRetentionDays: optionalInt(env, 'SHOPPER_UPLOAD_RETENTION_DAYS', 1, 36_500),
    outboxRetentionDays: int(env, 'OUTBOX_RETENTION_DAYS', 30, 1, 36_500),
    quoteLinkDays: int(env, 'QUOTE_LINK_DAYS', 30, 1, 365),
    smtp: smtpSettings(env),
    diskFreeFloorBytes: int(env, 'DISK_FREE_FLOOR_MB', 1024, 0, 16 * 1024 * 1024) * 1024 * 1024,
    diskAccountSharePercent: int(env, 'DISK_ACCOUNT_SHARE_PERCENT', 50, 1, 100),
    diskWidgetSharePercent: int(env, 'DISK_WIDGET_SHARE_PERCENT', 10, 1, 100),
  };
}
