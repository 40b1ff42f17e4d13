// Start-up allocates far more than the running server keeps: modules are compiled, the migrations and the global
// profiles are read, the contract is assembled. V8 grows its young generation to the maximum (two 16 MB semi-spaces)
// on the way and keeps it, and its freed pages stay mapped until a full collection hands them back: about 25 MB of
// resident memory that an idle server holds for nothing. One full collection once the server has been up a few
// seconds, and quiet long enough for V8 to judge that it may shrink (at 5 s it did not), gives them back; traffic
// grows the young generation again when it needs it.
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Runs one full garbage collection `afterMs` after start (a pause of some milliseconds, once). */
export function settleMemoryAfterStart(afterMs = 10_000): void {
  const timer = setTimeout(() => {
    // V8 exposes gc() to contexts created after the flag is set; the process's own context stays without it.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options: object) => void;
    // The last-resort flavour compacts and reduces memory: a plain full collection gave back a third as much at this
    // moment, the rest only in V8's own steps some 8 s apart (docs/performance.md, "Idle memory").
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  }, afterMs);
  timer.unref();
}
