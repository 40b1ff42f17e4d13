// Entry point of `npm start`: validate configuration, migrate, serve, and tell the user how to try it.

import { chmodSync, existsSync } from 'node:fs';
import path from 'node:path';
import { isSupervisor, superviseApiProcesses } from './cluster.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { migrate } from './db/index.ts';
import {
  type DemoCredentials,
  demoAccountId,
  demoCredentialsPath,
  ensureDemoAccount,
  readDemoCredentials,
  withDemoAllowance,
} from './demo.ts';
import { settleMemoryAfterStart } from './settle-memory.ts';
import { buildDeps, openDatabase, serve } from './start.ts';

/**
 * DATA_DIR holds webhook secrets (in the database files), the JWT secret and merchants' models: everything this
 * process creates is private to the service user (folders 700, files 600) whatever umask it was started with,
 * and the root folder is closed even when it existed before with wider permissions.
 */
function privateDataDir(config: Config) {
  chmodSync(config.dataDir, 0o700);
}

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`slicequote: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

async function startDemo(config: Config, creds: DemoCredentials) {
  const shopModule = path.resolve('demo', 'server.ts');
  if (!existsSync(shopModule)) return null;
  const { startDemoShop } = await import(shopModule);
  try {
    return await startDemoShop({
      apiUrl: config.publicUrl,
      widgetKey: creds.widget_key,
      webhookSecret: creds.webhook_secret,
      quoteSigningSecret: creds.quote_signing_secret,
      port: creds.shop_port,
      host: '127.0.0.1',
    });
  } catch (err) {
    console.warn(
      `slicequote: the demo shop could not start on port ${creds.shop_port} (${(err as Error).message}); the API runs without it.`,
    );
    return null;
  }
}

function printWelcome(config: Config, dbKind: string, creds: DemoCredentials | null, shopUrl: string | null) {
  const url = config.publicUrl;
  console.log(`\nslicequote is serving ${url}  (database: ${dbKind}, data: ${config.dataDir})`);
  console.log(`  API reference: ${url}/docs    Dashboard: ${url}/dashboard/`);
  if (!creds) return;
  if (shopUrl) console.log(`  Demo shop (widget + merchant backend): ${shopUrl}`);
  // The log is read by more people and tools than the data directory (it is shipped, pasted, kept): it names
  // where the secrets are, never the secrets themselves.
  const file = path.resolve(demoCredentialsPath(config.dataDir));
  console.log(`  Demo account: ${creds.email}; its password and API token are in ${file} (readable by you only)`);
  const sample = path.resolve('demo', 'models', 'calibration-cube.stl');
  console.log(`\nTry it: upload a model and measure it:`);
  console.log(`  TOKEN=$(node -p "require('${file}').api_token")`);
  console.log(`  curl -s -H "Authorization: Bearer $TOKEN" -F "file=@${sample}" ${url}/v2/file`);
  console.log(`then quote it from a real slice:`);
  console.log(
    `  curl -s -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -d '{"material_config":{"filament_type":"PLA"}}' ${url}/v2/file/quote/<file_id>\n`,
  );
}

async function main() {
  process.umask(0o077); // before anything is created: loadConfig writes DATA_DIR and jwt-secret
  const loaded = configOrExit();
  privateDataDir(loaded);
  if (isSupervisor(loaded)) return superviseApiProcesses(loaded);
  const db = await openDatabase(loaded);
  // The process's one clock, made before the demo account (its token's issue time) and handed to every service.
  const now = () => new Date();
  await migrate(db);
  // The demo account exists before the webhook rules are built: its loopback allowance names its id.
  const demoPort = loaded.port === 0 ? 0 : loaded.port + 1;
  const creds = loaded.demoAccount
    ? ((await ensureDemoAccount({ db, config: loaded, now }, demoPort)) ?? readDemoCredentials(loaded.dataDir))
    : null;
  const config = withDemoAllowance(loaded, creds ? await demoAccountId(db, creds) : null);
  const deps = await buildDeps(config, { db, now });
  const running = await serve(deps);
  settleMemoryAfterStart();
  const shop = creds ? await startDemo(config, creds) : null;
  printWelcome(config, deps.db.kind, creds, shop?.url ?? null);
  const stop = async () => {
    // /readyz answers 503 from now on; the server stops accepting, finishes what is in flight, and hands its
    // jobs back to the other workers (docs/deployment.md, "Stopping").
    deps.lifecycle.draining = true;
    await shop?.close();
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  console.error('slicequote failed to start:', err);
  process.exit(1);
});
