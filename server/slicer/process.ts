// Runs one child process with no shell, a CPU-time limit (and a stall limit: no CPU used for as long) and an abort signal. The
// child leads its own process group (detached) so a kill reaches everything it started; output is kept only as a
// bounded tail. Where util-linux's setpriv exists, the child also gets SIGKILL when our process dies, even by SIGKILL.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { type CpuLimit, type CpuWatch, processCpuMs, watchCpu } from '../mesh/index.ts';

export interface RunOptions {
  binary: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * The CPU time the child may use (all its threads and the children it waited for), so that a host busy with
   * other work does not cut an honest run short; and the wall time after which it is killed whatever it used (a
   * child stalled or starved). Without /proc the CPU time is judged on wall time.
   */
  limit: CpuLimit;
  signal?: AbortSignal;
  /** Bytes of stdout and of stderr kept (the tail). */
  maxOutput?: number;
  /** Start the child through `setpriv --pdeathsig KILL` (see parentDeathSignal). */
  dieWithParent?: boolean;
  /** Called with the child's pid (= its process group) once it is spawned. */
  onSpawn?: (pid: number) => void;
  /** Called once the child is spawned with the means to pause, resume and renice it while it runs. */
  onControl?: (control: ChildControl) => void;
  /**
   * Called with each chunk the child writes to stdout, as it comes. A C or C++ program's stdout into a pipe is
   * block-buffered (PrusaSlicer's progress would arrive all at once at the end), so where coreutils' stdbuf
   * exists the child runs line-buffered.
   */
  onStdout?: (chunk: string) => void;
  /** Scheduling niceness (0–19): a child above 0 yields the cores to the others; its threads inherit it. */
  niceness?: number;
}

/** A running child, as its scheduler sees it (server/slicer/pool.ts pauses long slices while short ones run). */
export interface ChildControl {
  pid: number;
  /**
   * Stops the child's process group (SIGSTOP): it uses no CPU, and the time paused never counts as stalled. False, and
   * nothing done, when it is stopped already by someone else (an operator, a test's hold): only what this paused
   * is resumed.
   */
  pause(): boolean;
  /** Lets a child this paused go on (SIGCONT). */
  resume(): void;
  /** Sets the niceness of every thread it has now (threads it starts later inherit their parent thread's). */
  renice(niceness: number): void;
  /** The CPU ms it has used so far (null without /proc). */
  cpuMs(): number | null;
}

const STDBUF = ['/usr/bin/stdbuf', '/bin/stdbuf'].find((p) => existsSync(p));

export interface RunResult {
  code: number | null;
  exitSignal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Why we killed it, if we did: its CPU time spent, no CPU used for its stall time, or the abort signal. */
  killed: 'cpu' | 'stalled' | 'abort' | null;
  /** The CPU ms it used, as last read (sampled while it runs and once as its output ends); null without /proc. */
  cpuMs: number | null;
  spawnError?: Error;
}

class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}
  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    while (this.size - this.chunks[0]!.length >= this.max) this.size -= this.chunks.shift()!.length;
  }
  toString(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.max)).toString('utf8');
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

let deathSignal: Promise<boolean> | undefined;
/**
 * Whether `setpriv --pdeathsig KILL` works here. It sets PR_SET_PDEATHSIG and execs the command in place, so
 * the kernel kills the child when the thread that spawned it (our main thread) dies: a killed server's slicer
 * dies with it. Without it (no util-linux), workdirs.ts reaps such a slicer at the next start.
 */
export function parentDeathSignal(): Promise<boolean> {
  deathSignal ??= new Promise((resolve) => {
    execFile('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], (err) => resolve(!err));
  });
  return deathSignal;
}

/** Before the child starts its threads (it is still exec-ing the slicer), so they are all as nice as it is. */
function lowerPriority(pid: number, niceness: number): void {
  try {
    setPriority(pid, niceness);
  } catch {
    /* gone already, or not permitted: it runs at normal priority */
  }
}

/** Whether a process is stopped (state T, or t while traced), from /proc; false when unknown. */
function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return /^[Tt]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    /* it has exited */
  }
}

function control(pid: number, watch: CpuWatch): ChildControl {
  return {
    pid,
    pause() {
      if (isStopped(pid)) return false;
      signalGroup(pid, 'SIGSTOP');
      watch.pause();
      return true;
    },
    resume() {
      watch.resume();
      signalGroup(pid, 'SIGCONT');
    },
    renice(niceness) {
      let tasks: string[] = [];
      try {
        tasks = readdirSync(`/proc/${pid}/task`);
      } catch {
        /* no /proc: the main thread only */
      }
      for (const tid of tasks.length ? tasks.map(Number) : [pid]) lowerPriority(tid, niceness);
    },
    cpuMs: () => watch.used(),
  };
}

/** Resolves when the process has exited and its pipes are closed; never rejects. */
export function runProcess(o: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    const out = new TailBuffer(o.maxOutput ?? 16384);
    const err = new TailBuffer(o.maxOutput ?? 16384);
    let killed: RunResult['killed'] = null;
    let spawnError: Error | undefined;
    let watch: CpuWatch | undefined;
    const command = o.onStdout && STDBUF ? [STDBUF, '-oL', o.binary, ...o.args] : [o.binary, ...o.args];
    const [binary = o.binary, ...args] = o.dieWithParent
      ? ['setpriv', '--pdeathsig', 'KILL', '--', ...command]
      : command;
    const child = spawn(binary, args, { cwd: o.cwd, env: o.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const stop = (why: NonNullable<RunResult['killed']>) => {
      killed ??= why;
      killGroup(child.pid);
    };
    const pid = child.pid;
    if (pid !== undefined) {
      if (o.niceness) lowerPriority(pid, o.niceness);
      o.onSpawn?.(pid);
      watch = watchCpu(() => processCpuMs(pid), o.limit, stop);
      o.onControl?.(control(pid, watch));
      // The process is reaped before 'close', and its /proc entry with it: read its time once more as it exits.
      child.stdout.once('end', () => watch?.used());
    }
    const onAbort = () => stop('abort');
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (b: Buffer) => {
      out.push(b);
      o.onStdout?.(b.toString('latin1'));
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      spawnError = e;
    });
    child.on('close', (code, exitSignal) => {
      const cpuMs = watch?.used() ?? null;
      watch?.stop();
      o.signal?.removeEventListener('abort', onAbort);
      resolve({ code, exitSignal, stdout: out.toString(), stderr: err.toString(), killed, cpuMs, spawnError });
    });
  });
}
