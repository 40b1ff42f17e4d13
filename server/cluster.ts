// API_PROCESSES=n: a supervisor forks n processes that share the HTTP port (node:cluster hands connections to
// them in turn), so the API uses every core. The first keeps WORKER_ROLE (and the demo), the others serve the API
// only; slicing and webhook workers stay where WORKER_ROLE puts them. A process that dies is started again.
// docs/deployment.md, "Processes".
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.ts';

const RESTART_DELAY_MS = 1000;

export function superviseApiProcesses(config: Config): void {
  let stopping = false;
  const start = (index: number) => {
    const worker = cluster.fork(index === 0 ? {} : { WORKER_ROLE: 'api', DEMO_ACCOUNT: 'false' });
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      console.error(
        `slicequote: API process ${index} (pid ${worker.process.pid}) exited (${signal ?? code}); starting it again`,
      );
      setTimeout(() => start(index), RESTART_DELAY_MS);
    });
  };
  for (let i = 0; i < config.apiProcesses; i++) start(i);
  const stop = async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM'); // each drains as a single process does
          }),
      ),
    );
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** True in the supervisor of API_PROCESSES > 1, which serves nothing itself. */
export const isSupervisor = (config: Config) => config.apiProcesses > 1 && cluster.isPrimary;
