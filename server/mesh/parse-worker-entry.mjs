// Worker entry in plain JavaScript: sets this thread's niceness first (a shared worker yields the cores while it
// loads, too), registers the TypeScript loader inside the worker thread, then runs the parser worker (worker
// threads do not inherit the parent's --import loader hooks on Node 20). The tests' compiled copy of this entry (a
// .js file, scripts/compile-tests.ts) runs the compiled worker and needs no loader.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';

if (workerData?.niceness) {
  try {
    // On Linux a thread has a niceness of its own, set through its thread id (/proc/thread-self: <pid>/task/<tid>).
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), workerData.niceness);
  } catch {
    /* not Linux, or not permitted: it runs at normal priority */
  }
}
if (import.meta.url.endsWith('.mjs')) (await import('tsx/esm/api')).register();
await import('./parse-worker.ts');
