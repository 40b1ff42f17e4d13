// Says on stderr what a test process let through uncaught, as it happens. node:test fails the running test on such
// an error, but one thrown while a hook awaits (a server's 'error' event with no listener, say) leaves the hook
// waiting until the runner's hang guard, whose report names neither the error nor the step. Imported for this
// effect by test/helpers/server.ts, which nearly every server and browser test file loads.
process.on('uncaughtExceptionMonitor', (err, origin) => {
  process.stderr.write(`${origin} in a test process: ${err instanceof Error ? err.stack : String(err)}\n`);
});
