// Worker entry in plain JavaScript: registers the TypeScript loader inside the worker thread, then runs the printer
// library's worker (worker threads do not inherit the parent's --import loader hooks on Node 20).
import { register } from 'tsx/esm/api';

register();
await import('./library-worker.ts');
