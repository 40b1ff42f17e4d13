// Makes a single-use sign-up invite for a server running with SIGNUP=invite, and prints the code and the
// dashboard link to send to the new merchant. Run it with the server's environment (DATABASE_URL or DATA_DIR,
// PUBLIC_URL, SIGNUP):
//   npm run invite                  a code valid for 7 days
//   npm run invite -- --days 30     valid for 30 days (1 to 365)
// With the embedded database (no DATABASE_URL) the database belongs to the running server: stop it first.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createInvite, DEFAULT_INVITE_DAYS } from '../server/accounts/invites.ts';
import { type Config, ConfigError, loadConfig } from '../server/config.ts';
import { migrate } from '../server/db/migrate.ts';
import { openDatabase } from '../server/start.ts';

function fail(message: string, code = 2): never {
  console.error(`invite: ${message}`);
  process.exit(code);
}

function validDays(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_INVITE_DAYS;
  const days = Number(raw);
  if (!/^\d+$/.test(raw) || days < 1 || days > 365) fail(`--days must be a whole number from 1 to 365, got "${raw}"`);
  return days;
}

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(`configuration error: ${err.message}`);
    throw err;
  }
}

const { values } = parseArgs({ options: { days: { type: 'string' } } });
const days = validDays(values.days);
const config = configOrExit();
// PGlite marks the database folder in use while a process holds it; two processes on one folder corrupt it.
if (!config.databaseUrl && existsSync(path.join(config.dataDir, 'pglite', 'postmaster.pid')))
  fail(
    `the embedded database in ${config.dataDir} is in use by a running server: stop the server, then run this again (or use PostgreSQL with DATABASE_URL)`,
    1,
  );
const db = await openDatabase(config);
try {
  await migrate(db);
  const { code, expiresAt } = await createInvite(db, new Date(), days);
  if (config.signup !== 'invite')
    console.error(
      `invite: note: SIGNUP is "${config.signup}"; the server accepts invite codes only with SIGNUP=invite`,
    );
  console.log(`Invite code (signs up one account, until ${expiresAt.toISOString()}):`);
  console.log(`  ${code}`);
  console.log('Sign-up link:');
  console.log(`  ${config.publicUrl}/dashboard/#/signup?invite=${code}`);
} finally {
  await db.close();
}
