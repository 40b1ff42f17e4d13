// Worker entry in plain JavaScript: registers the TypeScript loader inside the worker thread, then runs the picture
// worker (worker threads do not inherit the parent's --import loader hooks on Node 20). The tests' compiled copy of
// this entry (a .js file, scripts/compile-tests.ts) runs the compiled worker and needs no loader.
if (import.meta.url.endsWith('.mjs')) (await import('tsx/esm/api')).register();
await import('./picture-worker.ts');
