// With DEMO_ACCOUNT on and an empty database, start-up creates a demo merchant and writes its credentials.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Deps } from './deps.ts';
import { countAccounts, insertAccount } from './db/queries/accounts.ts';
import { hashPassword } from './auth/passwords.ts';
import { createApiToken } from './auth/api-tokens.ts';
import { newId } from './ids.ts';

export interface DemoCredentials {
  email: string;
  password: string;
  api_token: string;
}

export function demoCredentialsPath(dataDir: string) {
  return path.join(dataDir, 'demo-credentials.json');
}

export async function ensureDemoAccount(deps: Deps): Promise<DemoCredentials | null> {
  if (!deps.config.demoAccount || (await countAccounts(deps.db)) > 0) return null;
  const password = randomBytes(12).toString('base64url');
  const creds = await deps.db.transaction(async (tx) => {
    const account = await insertAccount(tx, {
      id: newId('usr'),
      email: 'demo@slicequote.local',
      password_hash: await hashPassword(password),
      plan: 'pro',
      shop_name: 'Demo Print Shop',
    });
    const { token } = await createApiToken(tx, deps.config.jwtSecret, account.id, 'demo token');
    return { email: account.email, password, api_token: token };
  });
  writeFileSync(demoCredentialsPath(deps.config.dataDir), JSON.stringify(creds, null, 2) + '\n', { mode: 0o600 });
  return creds;
}
