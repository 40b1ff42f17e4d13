// Parses uploads in a small pool of long-lived worker threads (heap-capped), one job per worker at a time, in
// fair turns between callers, with a worker kept for small files and a CPU-time budget from each file's size
// (docs/limits.md, "Fair parsing"). A worker that runs out of its budget or memory is terminated and replaced; the
// API process is never at risk. A large binary STL may be read as it arrives, on a worker nobody else waits for.

import { EventEmitter } from 'node:events';
import { open, readFile } from 'node:fs/promises';
import type { Worker } from 'node:worker_threads';
import type { Features } from '../../shared/estimate/index.ts';
import {
  type Measurements,
  type ModelFormat,
  type ModelWarning,
  type ParseLimits,
  statedBinaryStlBytes,
} from '../../shared/model/index.ts';
import type { Config } from '../config.ts';
import { ApiError } from '../http/index.ts';
import {
  PARSE_STALL_MS,
  parseBudgetMs,
  SHARED_WORKER_NICENESS,
  SMALL_FILE_BYTES,
  SMALL_LANE_LIMITS,
  SMALL_LANE_OUTGROWN,
} from './budget.ts';
import { statedUncompressedBytes } from './compression.ts';
import { type CallerState, FairQueue, type Task } from './fair-queue.ts';
import type { ModelShape } from './footprint.ts';
import type { FeaturesJob, ParseJob } from './parse-worker.ts';
import { ParseTimeout, runOn, spawn, streamOn, tooComplex } from './worker-thread.ts';

export interface ParsedUpload {
  format: ModelFormat;
  unit: string;
  measurements: Measurements;
  warnings: ModelWarning[];
  /** Which canonical mesh the parser wrote. */
  canonical: 'obj' | '3mf';
  meshSha256: string;
  footprint: [number, number][];
  shape: ModelShape;
}

/** An upload read as it arrives (a binary STL, welded record by record on a worker of its own). */
export interface UploadStream {
  /** The upload's next bytes, in order (copied: the caller's buffer stays its own). */
  write(bytes: Uint8Array): void;
  /**
   * The upload is complete and on disk at `job.sourcePath`: its parse, as `parse` answers it. What arrived is used
   * when it is the whole binary STL its header stated; otherwise (or once dropped) the file is parsed in its turn.
   */
  parse(job: ParseJob): Promise<ParsedUpload>;
  /** The upload ended without a parse (refused, aborted): the worker is free again. */
  cancel(): void;
}

/** The bytes an upload's body may hold around its file: at least `atLeast`, at most `atMost`. */
export interface BodyBytes {
  atLeast: number;
  atMost: number;
}

export interface ModelParser {
  /** Parses an upload for `caller` (tok:…, acct:…, ip:…), in its turn; 503 parse_queue_full when it has too many waiting. */
  parse(job: ParseJob, caller: string): Promise<ParsedUpload>;
  /**
   * Reads `caller`'s upload as it arrives, given its first 84 bytes and what its body holds, when they begin a binary
   * STL of that size beyond the small-file worker's and a shared worker is free with nobody waiting for it; null
   * otherwise (the file is parsed once it has arrived). A stream never keeps a parse waiting: while one waits for a
   * worker, the oldest stream still receiving is dropped and its file parsed in its turn.
   */
  stream(caller: string, preamble: Uint8Array, body: BodyBytes): UploadStream | null;
  /**
   * The instant estimate's features of a stored canonical mesh (docs/estimate.md), measured in `caller`'s turn:
   * measuring a large mesh's layer polygons takes about a second of CPU, so it is shared out like parsing.
   */
  features(job: Omit<FeaturesJob, 'kind'>, caller: string): Promise<Features>;
  state(): ParserState;
  /** Emits `change` whenever a task is queued, starts or ends. */
  readonly changes: EventEmitter;
  close(): Promise<void>;
}

export type Lane = 'shared' | 'small';

export interface ParserOptions {
  /** Workers any file may use (PARSE_WORKERS); one more is kept for small files. */
  sharedWorkers: number;
  /** Uploads of one caller that may wait while its parse runs (PARSE_QUEUE_PER_CALLER); more answer 503. */
  queuePerCaller: number;
  /** The most CPU time any parse may use (PARSE_MAX_SECONDS), whatever its size justifies. */
  maxParseMs: number;
  /** The CPU time a small file may use on the small-file worker; one that needs more is handed to the shared workers. */
  smallSliceMs: number;
  /** The work (counted by the parser) a file may do on the small-file worker before it is handed on (budget.ts). */
  smallLimits: Partial<ParseLimits>;
  /** V8 heap of one worker (old generation; the young generation is capped at YOUNG_GENERATION_MB). */
  maxHeapMb: number;
  /** A parse is stopped after this many times its CPU budget in wall time, whatever it used (budget.ts). */
  /** Wall ms a parse may use no CPU time before it is stopped (at least its CPU budget). */
  stallMs: number;
  /**
   * Test seam: awaited once a task holds a worker slot, before the worker reads the file (it stands for a slow parse);
   * for a stream, once its upload has arrived.
   */
  hold?: (caller: string, lane: Lane) => Promise<void>;
}

/**
 * The memory bound of parsing (shared/model/README.md, "Memory"). Strings and objects live in a worker's
 * V8 heap, capped here; the parsers keep every string small (XML tokens are capped). Meshes live in typed
 * arrays outside that heap, bounded by the vertex and triangle caps. The shared workers and the small-file worker
 * are the parses that may run at once (docs/limits.md, "Fair parsing").
 */
export function parserOptions(config: Config): ParserOptions {
  return {
    sharedWorkers: config.parseWorkers,
    queuePerCaller: config.parseQueuePerCaller,
    maxParseMs: config.parseMaxSeconds * 1000,
    smallSliceMs: 1000,
    smallLimits: SMALL_LANE_LIMITS,
    maxHeapMb: 256,
    stallMs: PARSE_STALL_MS,
  };
}

/** What the pool is doing: each caller with work, and the busy workers of each lane. */
export interface ParserState {
  callers: CallerState[];
  busy: Record<Lane, number>;
}

/** A caller's turn in the queue: a parse, or a stream (which runs at once or not at all, never waiting). */
interface Turn extends Task {
  /** The CPU ms its parse may use (budget.ts). */
  budgetMs: number;
  /** May use the small-file worker. */
  small: boolean;
  /** The bytes its parse reads (a 3MF's stated uncompressed size): the small-file worker takes the least first. */
  reads: number;
}

interface ParseTask extends Turn {
  message: ParseJob | FeaturesJob;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

const isParseTask = (turn: Turn): turn is ParseTask => 'message' in turn;

/** Workers of one lane: how many may run, how many do, the idle ones, and the niceness they run at. */
interface Pool {
  lane: Lane;
  slots: number;
  busy: number;
  idle: Worker[];
  niceness: number;
}

/** The file's size and whether it is a zip (a 3MF, whose size justifies more reading), without reading it. */
async function sizeOf(path: string): Promise<{ bytes: number; zip: boolean }> {
  const file = await open(path);
  try {
    const magic = Buffer.alloc(4);
    await file.read(magic, 0, 4, 0);
    return { bytes: (await file.stat()).size, zip: magic.readUInt32LE(0) === 0x04034b50 };
  } finally {
    await file.close();
  }
}

/**
 * The bytes parsing a small file reads: its size, or for a 3MF the uncompressed size its zip directory states (read
 * without inflating anything: a walk of at most 1,000 entries of a file of at most 1 MiB). A directory that
 * understates is caught by the parser's count of inflated bytes.
 */
async function readsOf(path: string, file: { bytes: number; zip: boolean }): Promise<number> {
  if (!file.zip || file.bytes > SMALL_FILE_BYTES) return file.bytes;
  return statedUncompressedBytes(new Uint8Array(await readFile(path))) ?? file.bytes;
}

/**
 * The small-file worker's order: the files that read least first, by powers of two from 8 KiB (a 3 KB STL is
 * never behind a 3MF stating megabytes of XML); the callers of one class take turns.
 */
const readClass = (task: Turn) => Math.max(0, Math.ceil(Math.log2(task.reads / 8192)));

/** How many callers whose small file was slow the pool remembers (the oldest are forgotten first). */
const SLOW_CALLERS_REMEMBERED = 10_000;

/** A set that keeps its `max` latest members. */
class RecentSet {
  private readonly members = new Set<string>();
  constructor(private readonly max: number) {}
  has = (key: string) => this.members.has(key);
  add(key: string) {
    this.members.delete(key);
    this.members.add(key);
    if (this.members.size > this.max) this.members.delete(this.members.values().next().value!);
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** An upload's turn (a parse or a stream), not an estimate's. */
const isUpload = (turn: Turn) => !isParseTask(turn) || turn.message.kind !== 'features';

function queueFull(limit: number, retryAfter: number): ApiError {
  return new ApiError(
    503,
    'parse_queue_full',
    `Your uploads are read one at a time with at most ${limit} waiting, and that many already are; retry in ${retryAfter} s.`,
    { limit, retry_after: retryAfter },
    { 'Retry-After': String(retryAfter) },
  );
}

export function createModelParser(opts: ParserOptions): ModelParser {
  const queue = new FairQueue<Turn>();
  // A shared worker runs niced: its slow parses yield the cores to the small-file worker's and to requests.
  const pools: Record<Lane, Pool> = {
    shared: { lane: 'shared', slots: opts.sharedWorkers, busy: 0, idle: [], niceness: SHARED_WORKER_NICENESS },
    small: { lane: 'small', slots: 1, busy: 0, idle: [], niceness: 0 },
  };
  /**
   * The workers of streams, which take the shared workers' slots (counted in their `busy`) but run at the API's own
   * niceness: a stream's work comes as its bytes do, a little at a time (welding 3DBenchy's 11 MB is about 0.3 s of
   * CPU over its upload), and its shopper waits for its end. Niced, it fell behind a busy host's other work and left
   * its backlog for after the last byte. One is kept idle.
   */
  const streaming: Pool = { lane: 'shared', slots: 1, busy: 0, idle: [], niceness: 0 };
  const all = new Set<Worker>();
  const changes = new EventEmitter();
  // Callers whose small file outgrew its slice use the shared workers only from then on, so each of an attacker's
  // addresses can hold the small-file worker for one slice, once.
  const slowOnSmall = new RecentSet(SLOW_CALLERS_REMEMBERED);
  /** The streams still receiving their upload, oldest first, each by its drop. */
  const receiving = new Set<() => void>();
  let closed = false;

  async function startWorker(pool: Pool): Promise<Worker> {
    const worker = await spawn(opts.maxHeapMb, pool.niceness);
    all.add(worker);
    worker.once('exit', () => all.delete(worker));
    return worker;
  }

  const acquire = (pool: Pool) => Promise.resolve(pool.idle.pop() ?? startWorker(pool));

  /** A replacement loads now (about half a second), not when the next file is already waiting for it. */
  async function replace(pool: Pool) {
    const fresh = await startWorker(pool).catch(() => null); // a worker that cannot start fails the next file instead
    if (fresh && closed) void fresh.terminate();
    else if (fresh) keep(pool, fresh);
  }

  function release(pool: Pool, worker: Worker, healthy: boolean) {
    if (healthy && !closed) return keep(pool, worker);
    void worker.terminate();
    all.delete(worker);
    if (!closed) void replace(pool);
  }

  function keep(pool: Pool, worker: Worker) {
    if (pool.idle.length < pool.slots) pool.idle.push(worker);
    else {
      void worker.terminate();
      all.delete(worker);
    }
  }

  /**
   * Fills free slots: the small-file worker with small files first (the least reading first), then the shared
   * workers with anything, in the callers' turns.
   */
  function pump() {
    fill();
    // A parse waits while every worker is busy: the oldest stream still receiving gives its worker up.
    while (receiving.size && queue.ready(() => true)) {
      receiving.values().next().value!();
      fill();
    }
    changes.emit('change');
  }

  function fill() {
    for (const pool of [pools.small, pools.shared]) {
      while (pool.busy < pool.slots) {
        const task = pool.lane === 'small' ? queue.take((t) => t.small, readClass) : queue.take(() => true);
        if (!task || !isParseTask(task)) break; // streams never wait, so never come out here
        pool.busy++;
        void run(task, pool);
      }
    }
  }

  /** A stream's turn starts now if its caller has nothing under way and a shared worker is free for nobody else. */
  function streamTurn(caller: string, bytes: number): Turn | null {
    const free = pools.shared.busy < pools.shared.slots && !queue.ready(() => true);
    if (closed || bytes <= SMALL_FILE_BYTES || !free || queue.first(caller)) return null;
    const turn = { caller, budgetMs: parseBudgetMs(bytes, false, opts.maxParseMs), small: false, reads: bytes };
    queue.add(turn);
    queue.take((t) => t === turn);
    pools.shared.busy++;
    changes.emit('change');
    return turn;
  }

  /** The stream of one upload on a shared worker; its CPU time counts from its first byte. */
  function openStream(turn: Turn): UploadStream {
    let state: 'receiving' | 'ended' | 'dropped' = 'receiving';
    let worker: Worker | undefined;
    const limit = { cpuMs: turn.budgetMs, stallMs: Math.max(opts.stallMs, turn.budgetMs) };
    const stream = acquire(streaming).then((w) => {
      worker = w;
      return streamOn<ParsedUpload | null>(w, limit);
    });
    stream.catch(() => {}); // a worker that cannot start fails the parse at the end
    const giveBack = () => {
      pools.shared.busy--;
      queue.finished(turn.caller);
    };
    const drop = () => {
      if (state !== 'receiving') return;
      state = 'dropped';
      receiving.delete(drop);
      giveBack();
      void stream.then(
        (s) => release(streaming, worker!, s.drop()),
        () => {},
      );
    };
    receiving.add(drop);
    return {
      write(bytes) {
        if (state !== 'receiving') return;
        const copy = new Uint8Array(bytes); // handed over to the worker: a Buffer's slice would share its memory
        void stream.then(
          (s) => s.write(copy),
          () => {},
        );
      },
      async parse(job) {
        if (state === 'dropped') return parser.parse(job, turn.caller);
        state = 'ended';
        receiving.delete(drop);
        let healthy = false;
        let parsed: ParsedUpload | null;
        try {
          const held = opts.hold?.(turn.caller, 'shared');
          changes.emit('change'); // its parse is under way now
          await held;
          parsed = await (await stream).end(job);
          healthy = true;
        } catch (err) {
          healthy = err instanceof ApiError && err.code !== 'model_too_complex';
          throw err instanceof ParseTimeout ? tooSlow(turn.budgetMs, limit.stallMs, err) : err;
        } finally {
          if (worker) release(streaming, worker, healthy);
          giveBack();
          pump();
        }
        // Not the binary STL its first bytes stated: the whole file is read, in its turn.
        return parsed ?? parser.parse(job, turn.caller);
      },
      cancel() {
        drop();
        pump();
      },
    };
  }

  async function run(task: ParseTask, pool: Pool) {
    // On the small-file worker a parse may do a small amount of counted work, and has a short slice of CPU time as
    // a backstop; past either, the file is handed to the shared workers.
    const small = pool.lane === 'small';
    const cpuMs = small ? Math.min(task.budgetMs, opts.smallSliceMs) : task.budgetMs;
    const message =
      small && task.message.kind !== 'features' ? { ...task.message, laneLimits: opts.smallLimits } : task.message;
    let worker: Worker | undefined;
    let healthy = false;
    try {
      await opts.hold?.(task.caller, pool.lane);
      worker = await acquire(pool);
      const result = await runOn(worker, message, { cpuMs, stallMs: Math.max(opts.stallMs, cpuMs) });
      healthy = true;
      task.resolve(result);
    } catch (err) {
      // A refused model leaves the worker healthy; a timeout, crash or memory exhaustion does not.
      healthy = err instanceof ApiError && err.code !== 'model_too_complex';
      const outgrown = err instanceof ApiError && err.code === SMALL_LANE_OUTGROWN;
      if (outgrown || (err instanceof ParseTimeout && cpuMs < task.budgetMs)) {
        slowOnSmall.add(task.caller);
        queue.add({ ...task, small: false }, true);
      } else
        task.reject(err instanceof ParseTimeout ? tooSlow(task.budgetMs, Math.max(opts.stallMs, cpuMs), err) : err);
    } finally {
      if (worker) release(pool, worker, healthy);
      pool.busy--;
      queue.finished(task.caller);
      pump();
    }
  }

  function enqueue<T>(
    caller: string,
    message: ParseJob | FeaturesJob,
    budgetMs: number,
    bytes: number,
    reads = bytes,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // A file that would read more than the small-file worker's count goes to the shared workers at once.
      const withinCount = reads <= (opts.smallLimits.maxInflatedBytes ?? Number.POSITIVE_INFINITY);
      const small = bytes <= SMALL_FILE_BYTES && withinCount && !slowOnSmall.has(caller);
      const task: ParseTask = {
        caller,
        message,
        budgetMs,
        small,
        reads,
        resolve: resolve as (r: unknown) => void,
        reject,
      };
      queue.add(task);
      pump();
    });
  }

  const parser: ModelParser = {
    async parse(job, caller) {
      const file = await sizeOf(job.sourcePath);
      const budgetMs = parseBudgetMs(file.bytes, file.zip, opts.maxParseMs);
      const reads = await readsOf(job.sourcePath, file);
      const ahead = queue.first(caller); // its running parse, or the first one waiting for a worker
      // Only uploads count toward the bound: the estimates of a caller's own quotes, still measured after a fast
      // slice has finished, wait in its turn too but never refuse its next upload.
      if (ahead && queue.waiting(caller, isUpload) >= opts.queuePerCaller)
        throw queueFull(opts.queuePerCaller, seconds(ahead.budgetMs));
      return enqueue<ParsedUpload>(caller, job, budgetMs, file.bytes, reads);
    },
    // Stored canonical meshes are the service's own files: the longest budget and no queue bound, but in the turn of
    // the caller who wants them, one at a time per caller, so nobody's estimates crowd out others' parses.
    async features(job, caller) {
      // A mesh that cannot be opened is not small; the worker reports why it cannot read it.
      const bytes = await sizeOf(job.meshPath).then(
        (file) => file.bytes,
        () => Number.POSITIVE_INFINITY,
      );
      return enqueue<Features>(caller, { kind: 'features', ...job }, opts.maxParseMs, bytes);
    },
    stream(caller, preamble, body) {
      const bytes = statedBinaryStlBytes(preamble);
      if (bytes === null || bytes < body.atLeast || bytes > body.atMost) return null;
      const turn = streamTurn(caller, bytes);
      return turn && openStream(turn);
    },
    state: () => ({ callers: queue.state(), busy: { shared: pools.shared.busy, small: pools.small.busy } }),
    changes,
    async close() {
      closed = true;
      await Promise.all([...all].map((w) => w.terminate()));
    },
  };
  return parser;
}

/** A parse stopped by its budget: the work it took, not the time (a busy server takes longer for the same work). */
function tooSlow(budgetMs: number, stallMs: number, timeout: ParseTimeout): ApiError {
  const limit = seconds(budgetMs);
  if (timeout.why === 'cpu')
    return tooComplex(
      `The model took more work to read than its size allows (${limit} s of processor time); it is too complex or malformed.`,
      { limit_seconds: limit },
    );
  const stalled = seconds(stallMs);
  return tooComplex(
    `Reading the model made no progress for ${stalled} s (its size allows ${limit} s of processor time); the server could not read it: try again later.`,
    { limit_seconds: limit, stalled_seconds: stalled },
  );
}

declare module '../deps.ts' {
  interface Deps {
    /** Parses uploads in worker threads, in fair turns between callers. */
    parser: ModelParser;
  }
}
