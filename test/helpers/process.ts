// Loopback ports and the real server (server/main.ts) as a child process, for crash and multi-process tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { type AddressInfo, createServer, type Server } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './poll.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A loopback port free now. Only for a process that cannot say which port it bound (a supervisor of several API
 * processes, redis-server): until it binds, another process on the machine may take the same port. A server of
 * the test's own listens with listenOnLoopback instead, and a spawned slicequote server with PORT=0 (servingUrl).
 */
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

/**
 * Listens on a loopback port the kernel chooses and resolves to the server's origin, or rejects when it cannot
 * listen (unhandled, the error would leave a test's hook waiting for ever).
 */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Where a slicequote server started with PORT=0 serves, once its output says so. */
export const servingUrl = (output: string): string | undefined =>
  /slicequote is serving (http:\/\/[\d.]+:\d+)/.exec(output)?.[1];

/**
 * Where a server process serves (`at`: its URL, or undefined until its output says) once it answers /healthz there;
 * rejects when the process exits first. Generous in its reports: on a loaded machine compiling and migrating at
 * start-up takes a while.
 */
export function answeringAt(child: ChildProcess, at: () => string | undefined): Promise<string> {
  return until('the server to answer /healthz', 180_000, async () => {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const url = at();
    if (!url) return undefined;
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false, // not listening yet
    );
    return ok ? url : undefined;
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * A spawned server compiles WebAssembly (PGlite) as the process that spawns it does: a test run's servers with V8's
 * baseline compiler only, as its test files (scripts/test.sh says why); the benchmarks' servers as `npm start` does.
 */
export const WASM_TIERS = process.execArgv.filter((arg) => arg === '--liftoff-only');

/**
 * Starts the server as `npm start` does (scripts/serve.sh, with this process's node) with env and resolves once it
 * serves /healthz. `nodeArgs`: options for node itself that NODE_OPTIONS does not take (--cpu-prof, for the bench's
 * profile). serve.sh ends in exec, so the child's pid is the server's.
 *
 * The server binds a port of its own choosing (PORT=0) and says which when it serves: a port picked free here and
 * handed over could be taken meanwhile by another process on a busy machine, and the requests meant for this server
 * would reach that one. Only a supervisor of several API processes (API_PROCESSES) or a set PUBLIC_URL gets a port
 * picked here, as neither announces the port it bound.
 */
export async function spawnServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
  const announced = !env.API_PROCESSES && !env.PUBLIC_URL && env.PORT === undefined;
  const port = announced ? 0 : Number(env.PORT ?? (await freePort()));
  const child = spawn('bash', ['scripts/serve.sh', ...WASM_TIERS, ...nodeArgs], {
    cwd: repoRoot,
    env: {
      ...process.env,
      NODE: process.execPath,
      NODE_OPTIONS: '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DEMO_ACCOUNT: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = await answeringAt(child, () => (announced ? servingUrl(out) : `http://127.0.0.1:${port}`)).catch(
    (err: Error) => {
      child.kill('SIGKILL'); // a server that never answered is not left behind
      throw new Error(`${err.message}:\n${out}`);
    },
  );
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
