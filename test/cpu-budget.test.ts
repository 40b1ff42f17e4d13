// Budgets count work, not time (docs/limits.md, "Fair parsing" and "Slicer time"): a thread's and a process's CPU
// time are read from /proc, and a watch stops only what used its CPU time. A worker or a child that sleeps uses
// next to no CPU and is left to finish while a busy one beside it, on the same budget, is stopped; a hostile
// parse is refused for the work it took. Every wait is on an event (a watch firing, a gate opened), never on time.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../server/http/index.ts';
import { SMALL_LANE_LIMITS } from '../server/mesh/budget.ts';
import { currentThread, processCpuMs, type Spent, statCpuMs, threadCpuMs, watchCpu } from '../server/mesh/cpu-time.ts';
import { createModelParser, type ParserOptions } from '../server/mesh/parse.ts';
import { runProcess } from '../server/slicer/process.ts';
import { largestAccepted3mf } from './helpers/hostile.ts';
import { CUBE_OBJ } from './helpers/meshes.ts';
import { until } from './helpers/poll.ts';

const dir = mkdtempSync(join(tmpdir(), 'sq-cpu-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Far beyond any wait here: only the CPU limit may stop the work under test. */
const NO_STALL_MS = 10 * 60_000;

test('the CPU time of a /proc stat line is utime + stime (with children: + cutime + cstime), in ms at 100 ticks/s', () => {
  // Fields 3 to 17 after a command name holding spaces and parentheses.
  const line = `4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 25 7 3 20 0 1 0`;
  assert.equal(statCpuMs(line, false), 1750);
  assert.equal(statCpuMs(line, true), 1850);
});

test('this thread is found under /proc, and its CPU time grows with work done', () => {
  const thread = currentThread();
  assert.equal(thread, `${process.pid}/task/${process.pid}`, 'the main thread is the task of the pid');
  const before = threadCpuMs(thread!)!;
  let x = 0;
  while (threadCpuMs(thread!)! - before < 50) x += Math.sqrt(x + 1);
  assert.ok(x > 0);
  assert.equal(threadCpuMs('0/task/0'), null, 'a thread that does not exist has no CPU time');
});

/** A worker thread that reports its /proc thread, then spins, or sleeps until its gate opens and says so. */
function worker(kind: 'busy' | 'asleep', gate: Int32Array) {
  const w = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     parentPort.postMessage(require('node:fs').readlinkSync('/proc/thread-self'));
     if (workerData.kind === 'busy') for (;;) {}
     Atomics.wait(workerData.gate, 0, 0);
     parentPort.postMessage('woke');`,
    { eval: true, workerData: { kind, gate } },
  );
  const thread = new Promise<string>((resolve) => w.once('message', resolve));
  const woke = thread.then(() => new Promise((resolve) => w.once('message', resolve)));
  return { w, thread, woke };
}

test('a sleeping worker uses next to no CPU and is not stopped, while a busy one on the same budget is', async () => {
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const busy = worker('busy', gate);
  const asleep = worker('asleep', gate);
  const limit = { cpuMs: 300, stallMs: NO_STALL_MS };
  const watch = async (thread: string) => {
    let spent: Spent | null = null;
    let fired!: () => void;
    const firing = new Promise<void>((resolve) => {
      fired = resolve;
    });
    const w = watchCpu(
      () => threadCpuMs(thread),
      limit,
      (why) => {
        spent = why;
        fired();
      },
    );
    return { w, firing, spent: () => spent };
  };
  const sleeper = await watch(await asleep.thread);
  const spinner = await watch(await busy.thread);
  try {
    await spinner.firing;
    assert.equal(spinner.spent(), 'cpu', 'the busy worker is stopped for its CPU time');
    assert.ok(spinner.w.used()! >= 300, `the busy worker used ${spinner.w.used()} ms`);
    // The sleeper has been alive at least as long as the busy worker took to use 300 ms of CPU.
    assert.equal(sleeper.spent(), null, 'the sleeping worker is not stopped');
    assert.ok(sleeper.w.used()! < 100, `the sleeping worker used ${sleeper.w.used()} ms of CPU`);
    Atomics.notify(gate, 0);
    assert.equal(await asleep.woke, 'woke');
    assert.equal(sleeper.spent(), null);
  } finally {
    sleeper.w.stop();
    spinner.w.stop();
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await Promise.all([busy.w.terminate(), asleep.w.terminate()]);
  }
});

test('a child process is killed for its CPU time, not its wall time: a sleeping one on the same budget runs to its end', async () => {
  const fifo = join(dir, 'gate');
  execFileSync('mkfifo', [fifo]);
  const run = (script: string, ...args: string[]) =>
    runProcess({
      binary: 'sh',
      args: ['-c', script, 'sh', ...args],
      cwd: dir,
      env: { PATH: process.env.PATH },
      limit: { cpuMs: 300, stallMs: NO_STALL_MS },
    });
  // Blocks reading the gate until it is written: no CPU meanwhile.
  const asleep = run('read line < "$1"; echo "$line"', fifo);
  const busy = await run('while :; do :; done');
  assert.equal(busy.killed, 'cpu', 'the busy child is killed for its CPU time');
  assert.ok(busy.cpuMs! >= 300, `the busy child used ${busy.cpuMs} ms`);
  await writeFile(fifo, 'open\n');
  const slept = await asleep;
  assert.equal(slept.killed, null, 'the sleeping child is not killed');
  assert.equal(slept.code, 0);
  assert.equal(slept.stdout.trim(), 'open');
  assert.ok(slept.cpuMs !== null && slept.cpuMs < 100, `the sleeping child used ${slept.cpuMs} ms of CPU`);
  assert.equal(processCpuMs(2 ** 22 + 1), null, 'a process that does not exist has no CPU time');
});

/**
 * A worker thread that works in short bursts with long rests between them (a thread on a host so loaded that it
 * runs now and then) until it has used `cpuMs` of CPU time, then says so and waits to be released; or that never
 * works at all.
 */
function intermittent(cpuMs: number) {
  const go = new Int32Array(new SharedArrayBuffer(4));
  const w = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const { readFileSync, readlinkSync } = require('node:fs');
     const self = readlinkSync('/proc/thread-self');
     const used = () => { const f = readFileSync('/proc/' + self + '/stat', 'latin1'); const x = f.slice(f.lastIndexOf(')') + 2).split(' '); return (Number(x[11]) + Number(x[12])) * 10; };
     parentPort.postMessage(self);
     Atomics.wait(workerData.go, 0, 0);
     const rest = new Int32Array(new SharedArrayBuffer(4));
     const start = used();
     while (used() - start < workerData.cpuMs) {
       const burst = used();
       while (used() - burst < 10) {}
       Atomics.wait(rest, 0, 0, 200);
     }
     parentPort.postMessage('done');
     Atomics.wait(workerData.go, 0, 1); // stays alive, so its CPU time can still be read, until released`,
    { eval: true, workerData: { cpuMs, go } },
  );
  const thread = new Promise<string>((resolve) => w.once('message', resolve));
  const done = thread.then(() => new Promise((resolve) => w.once('message', resolve)));
  /** Lets it begin: its work is counted from here, after the watch's first reading. */
  const start = () => {
    Atomics.store(go, 0, 1);
    Atomics.notify(go, 0);
  };
  /** Lets it end. */
  const release = () => {
    Atomics.store(go, 0, 2);
    Atomics.notify(go, 0);
  };
  return { w, thread, done, start, release };
}

test('a thread that goes on, however slowly, is never stopped for the time it takes; one that uses no CPU is stopped as stalled', async () => {
  // 150 ms of CPU in 10 ms bursts, 200 ms of rest after each: about 3 s, past the stall limit of 2 s many times over
  // in wall time, never 2 s without CPU.
  const slow = intermittent(150);
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const stuck = worker('asleep', gate);
  const limit = { cpuMs: NO_STALL_MS, stallMs: 2000 };
  const spent: Record<string, Spent | null> = { slow: null, stuck: null };
  let stalled!: () => void;
  const stuckStopped = new Promise<void>((resolve) => {
    stalled = resolve;
  });
  const slowThread = await slow.thread;
  const stuckThread = await stuck.thread;
  const slowWatch = watchCpu(
    () => threadCpuMs(slowThread),
    limit,
    (why) => {
      spent.slow = why;
    },
  );
  const stuckWatch = watchCpu(
    () => threadCpuMs(stuckThread),
    limit,
    (why) => {
      spent.stuck = why;
      stalled();
    },
  );
  try {
    slow.start();
    await slow.done;
    assert.equal(spent.slow, null, 'the slow thread was not stopped');
    const used = slowWatch.used()!;
    assert.ok(used >= 150, `it used ${used} ms of CPU since the watch began`);
    await stuckStopped;
    assert.equal(spent.stuck, 'stalled', 'the thread that used no CPU is stopped as stalled');
  } finally {
    slowWatch.stop();
    stuckWatch.stop();
    slow.release();
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await Promise.all([slow.w.terminate(), stuck.w.terminate()]);
  }
});

test("without /proc a paused watch's budget, judged on wall time, stands still: one started after it fires first; resumed, it fires", async () => {
  const fired: string[] = [];
  const limit = { cpuMs: 20, stallMs: 20 };
  const firing = (name: string) => {
    let done!: () => void;
    const promise = new Promise<void>((resolve) => {
      done = resolve;
    });
    const onSpent = () => {
      fired.push(name);
      done();
    };
    return { promise, onSpent };
  };
  const a = firing('paused');
  const b = firing('running');
  // Without /proc the CPU limit is judged on wall time, which a pause stops.
  const paused = watchCpu(() => null, limit, a.onSpent);
  paused.pause();
  watchCpu(() => null, limit, b.onSpent);
  await b.promise;
  assert.deepEqual(fired, ['running'], 'the paused watch did not fire while paused');
  paused.resume();
  await a.promise;
  assert.deepEqual(fired, ['running', 'paused']);
});

test('a hostile parse is refused for the work it took, within its CPU budget; the next file parses', async () => {
  const options: ParserOptions = {
    sharedWorkers: 1,
    queuePerCaller: 2,
    maxParseMs: 500, // the budget of every file, whatever its size
    smallSliceMs: 1000,
    smallLimits: SMALL_LANE_LIMITS,
    maxHeapMb: 256,
    stallMs: NO_STALL_MS,
  };
  const parser = createModelParser(options);
  const job = (name: string, bytes: Uint8Array | string) => {
    const sourcePath = join(dir, name);
    writeFileSync(sourcePath, bytes);
    return {
      sourcePath,
      fileName: name,
      canonical: { obj: join(dir, `${name}.canonical.obj`), '3mf': join(dir, `${name}.canonical.3mf`) },
    };
  };
  try {
    // 100 KB placing a torus 2,490 times: 9.96 million triangles, seconds of work.
    const refused = await parser.parse(job('instances.3mf', largestAccepted3mf()), 'ip:a').then(
      () => assert.fail('the parse was not stopped'),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof ApiError, String(refused));
    assert.equal(refused.status, 422);
    assert.equal(refused.code, 'model_too_complex');
    assert.match(refused.message, /more work to read than its size allows \(1 s of processor time\)/);
    assert.deepEqual(refused.details, { limit_seconds: 1 });
    const cube = await parser.parse(job('cube.obj', CUBE_OBJ), 'ip:a');
    assert.equal(cube.measurements.triangles, 12);
  } finally {
    await parser.close();
  }
});

test("a caller's own estimates waiting never refuse its next upload; its uploads waiting do", async () => {
  // The first task of the caller holds its worker until let go, so the others wait behind it.
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let held = false;
  const parser = createModelParser({
    sharedWorkers: 1,
    queuePerCaller: 2,
    maxParseMs: 10_000,
    smallSliceMs: 1000,
    smallLimits: SMALL_LANE_LIMITS,
    maxHeapMb: 256,
    stallMs: NO_STALL_MS,
    hold: async () => {
      if (held) return;
      held = true;
      await gate;
    },
  });
  const cube = (name: string) => {
    const sourcePath = join(dir, name);
    writeFileSync(sourcePath, CUBE_OBJ);
    const canonical = { obj: join(dir, `${name}.canonical.obj`), '3mf': join(dir, `${name}.canonical.3mf`) };
    return { sourcePath, fileName: name, canonical };
  };
  // Estimates of meshes already stored (here none is: each one fails once it runs, which is not what is tested).
  const estimate = () =>
    parser
      .features({ meshPath: join(dir, 'not-stored.obj'), placement: null, settings: {} as never }, 'tok:merchant')
      .catch(() => 'measured');
  // Each request is asked once the one before it waits: a parse first reads its file's size, and two asked at once
  // may join the queue in either order.
  const waiting = (n: number, what: string) =>
    until(what, 20_000, () =>
      parser.state().callers.find((c) => c.caller === 'tok:merchant')?.waiting === n ? true : undefined,
    );
  try {
    const estimates = [estimate(), estimate(), estimate()];
    await waiting(2, 'one estimate running (held), two waiting');
    const upload = parser.parse(cube('after-estimates.obj'), 'tok:merchant');
    await waiting(3, 'the upload waiting behind the estimates');
    const uploads = [parser.parse(cube('second.obj'), 'tok:merchant')];
    await waiting(4, 'two uploads waiting');
    const refused = await parser.parse(cube('third.obj'), 'tok:merchant').then(
      () => assert.fail('a third upload waiting was not refused'),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof ApiError && refused.code === 'parse_queue_full', String(refused));
    letGo();
    assert.equal((await upload).measurements.triangles, 12, 'the upload behind three estimates is read');
    assert.equal((await uploads[0]!).measurements.triangles, 12);
    await Promise.all(estimates);
  } finally {
    letGo();
    await parser.close();
  }
});
