// Demo mode (DEMO_ACCOUNT, on by default outside production): on an empty database start-up creates a demo
// merchant with an API token, a widget key for the demo shop and a webhook to the demo merchant backend,
// and writes DATA_DIR/demo-credentials.json.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  accountByEmail,
  accountById,
  countAccounts,
  createApiToken,
  hashPassword,
  insertAccount,
  insertWidgetKey,
} from './accounts/index.ts';
import type { Config } from './config.ts';
import type { Queryable } from './db/index.ts';
import type { Deps } from './deps.ts';
import { newId } from './ids.ts';
import { signingSecret } from './quotes/index.ts';
import { generateSecret, insertWebhook } from './webhooks/index.ts';

export interface DemoCredentials {
  /** Absent in files written by 0.1; demoAccountId falls back to the email then. */
  account_id?: string;
  email: string;
  password: string;
  api_token: string;
  widget_key: string;
  webhook_secret: string;
  quote_signing_secret: string;
  shop_port: number;
}

/**
 * The private address the demo account's webhooks may reach: the demo merchant backend on loopback. The
 * allowance is the demo account's alone (Config.webhookAccountAllowances); every other account keeps the
 * operator's WEBHOOK_ALLOW_PRIVATE_CIDRS rule.
 */
export const DEMO_RECEIVER_CIDR = '127.0.0.1/32';

export function demoCredentialsPath(dataDir: string) {
  return path.join(dataDir, 'demo-credentials.json');
}

export function readDemoCredentials(dataDir: string): DemoCredentials | null {
  const file = demoCredentialsPath(dataDir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials) : null;
}

export async function ensureDemoAccount(
  deps: Pick<Deps, 'db' | 'config' | 'now'>,
  shopPort: number,
): Promise<DemoCredentials | null> {
  if (!deps.config.demoAccount || (await countAccounts(deps.db)) > 0) return null;
  const password = randomBytes(12).toString('base64url');
  const shopOrigin = `http://127.0.0.1:${shopPort}`;
  const creds = await deps.db.transaction(async (tx) => {
    const account = await insertAccount(tx, {
      id: newId('usr'),
      email: 'demo@slicequote.local',
      password_hash: await hashPassword(password),
      plan: 'pro',
      shop_name: 'Demo Print Shop',
    });
    const { token } = await createApiToken(tx, deps.config.jwtSecret, account.id, 'demo token', deps.now());
    const widgetKey = `pk_${randomBytes(24).toString('base64url')}`;
    await insertWidgetKey(tx, {
      id: newId('wk'),
      account_id: account.id,
      name: 'Demo shop',
      key: widgetKey,
      allowed_origins: [shopOrigin, `http://localhost:${shopPort}`],
    });
    const secret = generateSecret();
    await insertWebhook(tx, {
      id: newId('wh'),
      account_id: account.id,
      url: `${shopOrigin}/webhooks`,
      events: ['widget.added_to_cart', 'quote.completed'],
      secret,
      token_id: null,
    });
    const quoteSigningSecret = await signingSecret(tx, account.id);
    return {
      account_id: account.id,
      email: account.email,
      password,
      api_token: token,
      widget_key: widgetKey,
      webhook_secret: secret,
      quote_signing_secret: quoteSigningSecret,
      shop_port: shopPort,
    };
  });
  writeFileSync(demoCredentialsPath(deps.config.dataDir), `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  return creds;
}

/**
 * The id of the demo account the credentials describe, when that account exists in this database with that
 * email (a credentials file left over from another database grants nothing).
 */
export async function demoAccountId(db: Queryable, creds: DemoCredentials): Promise<string | null> {
  const account = creds.account_id ? await accountById(db, creds.account_id) : await accountByEmail(db, creds.email);
  return account && account.email.toLowerCase() === creds.email.toLowerCase() ? account.id : null;
}

/** The configuration with the demo account's loopback allowance (and no allowance for anyone else). */
export function withDemoAllowance(config: Config, accountId: string | null): Config {
  if (!accountId) return config;
  return {
    ...config,
    webhookAccountAllowances: { ...config.webhookAccountAllowances, [accountId]: [DEMO_RECEIVER_CIDR] },
  };
}
