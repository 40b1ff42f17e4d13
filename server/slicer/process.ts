// Runs one child process with no shell, a time limit and an abort signal. The child leads its own process
// group (detached) so a kill reaches everything it started; output is kept only as a bounded tail.
import { spawn } from 'node:child_process';

export interface RunOptions {
  binary: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of stdout and of stderr kept (the tail). */
  maxOutput?: number;
}

export interface RunResult {
  code: number | null;
  exitSignal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Why we killed it, if we did. */
  killed: 'timeout' | 'abort' | null;
  spawnError?: Error;
}

class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}
  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    while (this.size - this.chunks[0].length >= this.max) this.size -= this.chunks.shift()!.length;
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
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}

/** Resolves when the process has exited and its pipes are closed; never rejects. */
export function runProcess(o: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    const out = new TailBuffer(o.maxOutput ?? 16384);
    const err = new TailBuffer(o.maxOutput ?? 16384);
    let killed: RunResult['killed'] = null;
    let spawnError: Error | undefined;
    const child = spawn(o.binary, o.args, { cwd: o.cwd, env: o.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const stop = (why: 'timeout' | 'abort') => {
      killed ??= why;
      killGroup(child.pid);
    };
    const timer = setTimeout(() => stop('timeout'), o.timeoutMs);
    const onAbort = () => stop('abort');
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => { spawnError = e; });
    child.on('close', (code, exitSignal) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      resolve({ code, exitSignal, stdout: out.toString(), stderr: err.toString(), killed, spawnError });
    });
  });
}
