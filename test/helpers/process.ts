// Runs the real server (server/main.ts) as a child process, for crash and multi-process tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './poll.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `node --import tsx server/main.ts` with env and resolves once it serves /healthz. `nodeArgs`: options for
 * node itself that NODE_OPTIONS does not take (--cpu-prof, for the bench's profile).
 */
export async function spawnServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'server/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, NODE_OPTIONS: '', HOST: '127.0.0.1', PORT: String(port), DEMO_ACCOUNT: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  // Generous: on a loaded machine compiling and migrating at start-up takes a while.
  await until('the server to answer /healthz', 180_000, async () => {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    return ok || undefined;
  }).catch((err: Error) => {
    child.kill('SIGKILL'); // a server that never answered is not left behind
    throw new Error(`${err.message}:\n${out}`);
  });
  return {
    child,
    url,
    output: () => out,
    kill: (signal = 'SIGKILL') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
