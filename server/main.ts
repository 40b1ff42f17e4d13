// Entry point of `npm start`: validate configuration, migrate, serve, and tell the user how to try it.
import { loadConfig, ConfigError } from './config.ts';
import { buildDeps, serve } from './start.ts';
import { ensureDemoAccount, demoCredentialsPath } from './demo.ts';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`slicequote: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const deps = await buildDeps(config);
  await ensureDemoAccount(deps);
  const running = await serve(deps);
  const url = config.publicUrl;
  console.log(`\nslicequote is serving ${url}  (database: ${deps.db.kind}, data: ${config.dataDir})`);
  console.log(`  API reference: ${url}/docs`);
  const credsFile = demoCredentialsPath(config.dataDir);
  if (config.demoAccount && existsSync(credsFile)) {
    const creds = JSON.parse(readFileSync(credsFile, 'utf8'));
    const sample = path.resolve('demo', 'models', 'calibration-cube.stl');
    console.log(`  Demo account: ${creds.email} / ${creds.password}  (saved in ${credsFile})`);
    console.log(`  Demo API token: ${creds.api_token}`);
    console.log(`\nTry it: upload a model and measure it:`);
    console.log(`  curl -s -H "Authorization: Bearer ${creds.api_token}" -F "file=@${existsSync(sample) ? sample : 'your-model.stl'}" ${url}/v2/file`);
    console.log(`then quote it from a real slice:`);
    console.log(`  curl -s -H "Authorization: Bearer ${creds.api_token}" -H "Content-Type: application/json" -d '{"material_config":{"filament_type":"PLA"}}' ${url}/v2/file/quote/<file_id>\n`);
  }
  const stop = async () => {
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
