// What the widget's browser tests and benchmark share: a fresh widget bundle, Debian's Chromium, and
// a real slicequote server with a merchant (widget key, webhook) plus the demo shop wired to it.
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { embedSnippet } from '../../dashboard/src/lib/snippet.ts';
import { type DemoShop, serveDemoShop } from '../../demo/server.ts';
import { listenOnLoopback } from '../helpers/process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FEATURES_NOT_USED, PLAYWRIGHT_DISABLED_FEATURES } from './chromium-features.ts';
import { reportLongWaits } from './long-waits.ts';

/** A shop's page holding only `body` (the snippet a merchant pasted), as a plain page of another origin serves it. */
export const plainShopPage = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A shop</title></head><body><main>${body}</main></body></html>`;

export const CHROMIUM = '/usr/bin/chromium';
export { FEATURES_NOT_USED };

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Chromium's arguments for the browser tests, which Playwright launches. */
const PLAYWRIGHT_CHROMIUM_ARGS = [
  ...CHROMIUM_ARGS,
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...FEATURES_NOT_USED].join(',')}`,
];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WIDGET_BUNDLE = path.join(root, 'widget', 'dist', 'slice-quote.js');
/** The parse worker's code, which the script fetches from beside itself once the page is idle. */
export const WIDGET_WORKER = path.join(root, 'widget', 'dist', 'slice-quote-worker.js');

/** Why browser tests cannot run here, or null when they can. */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM)
    ? null
    : `skipped: ${CHROMIUM} is missing (install Debian's chromium: apt-get install -y chromium)`;
}

export async function launchChromium(): Promise<Browser> {
  return untimed(
    await chromium.launch({ executablePath: CHROMIUM, headless: true, args: PLAYWRIGHT_CHROMIUM_ARGS, timeout: 0 }),
  );
}

/**
 * The browser, each page it opens waiting on its conditions alone: Playwright's waits otherwise end after 30 s,
 * which a loaded host (two runs of the suite on two cores) passes while the page is still on its way. The one clock
 * is the test runner's hang guard (scripts/test.sh); a call still waiting after a minute says so on stderr
 * (long-waits.ts). `newPage` opens its page through `newContext`.
 */
export function untimed(browser: Browser): Browser {
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(0);
    context.on('page', reportLongWaits);
    return context;
  };
  return browser;
}

/**
 * Resolves once the page has drawn two more frames: a scroll, a new viewport size and what they set off (layout,
 * container queries, ResizeObserver callbacks and the 3D view's redraw) are on screen, as the shopper sees them.
 */
export function painted(page: Page): Promise<void> {
  return page.evaluate(
    () => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))),
  );
}

/** Builds widget/dist when it is missing or older than its sources (as scripts/setup.sh does). */
export async function ensureWidgetBuilt(): Promise<void> {
  const stamp = path.join(root, 'widget', 'dist', '.built');
  const builtAt =
    existsSync(stamp) && existsSync(WIDGET_BUNDLE) && existsSync(WIDGET_WORKER) ? statSync(stamp).mtimeMs : 0;
  const sources = [
    path.join(root, 'widget', 'src'),
    path.join(root, 'widget', 'vite.config.ts'),
    path.join(root, 'scripts', 'vite-precompress.ts'),
    path.join(root, 'shared'),
  ];
  if (builtAt > 0 && !sources.some((s) => newerThan(s, builtAt))) return;
  const { build } = await import('vite');
  await build({ configFile: path.join(root, 'widget', 'vite.config.ts'), logLevel: 'error' });
  writeFileSync(stamp, '');
}

function newerThan(p: string, time: number): boolean {
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs > time;
  return readdirSync(p).some((name) => newerThan(path.join(p, name), time));
}

export interface WidgetEnv {
  server: TestServer;
  shop: DemoShop;
  widgetKey: string;
  apiToken: string;
  /** The merchant's dashboard login. */
  merchant: { email: string; password: string };
  stop(): Promise<void>;
}

/** Answers a request for the test's own shop page; `env` is the environment its snippet points at. */
export type ShopPage = (req: http.IncomingMessage, res: http.ServerResponse, env: WidgetEnv) => void;

/**
 * A widget environment whose shoppers also come from a page the test serves itself (`page`) on an origin of its
 * own, allowed for the widget key; the server started with `settings`. The page listens before the server
 * starts, on a port the kernel chose: a port picked free and bound later could be taken meanwhile by another
 * process on a busy machine. Stopping the environment stops the page.
 */
export async function startWidgetEnvWithPage(
  page: ShopPage,
  settings: Record<string, string> = {},
): Promise<{ env: WidgetEnv; origin: string }> {
  let started: WidgetEnv | undefined;
  const pages = http.createServer((req, res) => {
    if (started) return page(req, res, started);
    res.writeHead(503).end(); // nothing asks before the environment is up
  });
  const origin = await listenOnLoopback(pages);
  try {
    started = await startWidgetEnv({ extraOrigins: [origin], env: settings });
  } catch (e) {
    pages.close();
    throw e;
  }
  const { stop } = started;
  started.stop = async () => {
    pages.closeAllConnections();
    pages.close();
    await stop();
  };
  return { env: started, origin };
}

/**
 * A widget environment and a page of another origin, served by the test at `plainUrl`, holding only the snippet the
 * merchant copies from the dashboard, under a heading (axe judges the whole page).
 */
export async function startWidgetEnvWithPlainPage(): Promise<{ env: WidgetEnv; plainUrl: string }> {
  const { env, origin } = await startWidgetEnvWithPage((_req, res, { server, widgetKey }) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(plainShopPage(`<h1>Custom prints</h1>${embedSnippet(server.url, widgetKey)}`));
  });
  return { env, plainUrl: `${origin}/plain` };
}

/**
 * A real server whose webhooks may reach exactly the demo shop's loopback address, a merchant with a
 * widget key for the shop's origin and a webhook to its backend, and the demo shop itself (listening before its
 * origin is written into the key and the webhook, for the reason startWidgetEnvWithPage gives).
 */
export async function startWidgetEnv(
  opts: { env?: Record<string, string | undefined>; extraOrigins?: string[] } = {},
): Promise<WidgetEnv> {
  await ensureWidgetBuilt();
  const server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', ...opts.env });
  const shopServer = http.createServer();
  try {
    const shopOrigin = await listenOnLoopback(shopServer);
    const merchant = await server.newAccount({ plan: 'pro' });
    const dashboard = server.client();
    const login = await dashboard.post('/dashboard/api/login', { email: merchant.email, password: merchant.password });
    dashboard.csrf = login.body.csrf_token;
    const key = await dashboard.post('/dashboard/api/widget-keys', {
      name: 'Demo shop',
      allowed_origins: [shopOrigin, ...(opts.extraOrigins ?? [])],
    });
    if (key.status !== 201) throw new Error(`creating the widget key answered ${key.status}`);
    const webhookSecret = 'demo-shop-signing-secret-0123456789';
    const hook = await server
      .client(merchant.token)
      .post('/v2/webhooks', { url: `${shopOrigin}/webhooks`, events: ['widget.added_to_cart'], secret: webhookSecret });
    if (hook.status !== 201)
      throw new Error(`creating the webhook answered ${hook.status}: ${JSON.stringify(hook.body)}`);
    const quoteSigningSecret = (await dashboard.get('/dashboard/api/quote-signing-secret')).body.secret;
    const shop = serveDemoShop(shopServer, {
      apiUrl: server.url,
      widgetKey: key.body.key,
      webhookSecret,
      quoteSigningSecret,
      host: '127.0.0.1',
    });
    return {
      server,
      shop,
      widgetKey: key.body.key,
      apiToken: merchant.token,
      merchant: { email: merchant.email, password: merchant.password },
      async stop() {
        await shop.close();
        await server.stop();
      },
    };
  } catch (e) {
    shopServer.close();
    await server.stop();
    throw e;
  }
}

export interface WidgetSuite {
  env: WidgetEnv;
  browser: Browser;
}

/**
 * Registers the file's `before` and `after`: the widget's environment (startWidgetEnv with `opts`) and Chromium,
 * and first the `artifacts` folder for screenshots. The fields are set once `before` has run; nothing starts when
 * `skip` says why not.
 */
export function widgetSuite(
  skip: string | false,
  opts: Parameters<typeof startWidgetEnv>[0] & { artifacts?: string } = {},
): WidgetSuite {
  const suite = {} as Partial<WidgetSuite>;
  before(async () => {
    if (skip) return;
    if (opts.artifacts) mkdirSync(opts.artifacts, { recursive: true });
    suite.env = await startWidgetEnv(opts);
    suite.browser = await launchChromium();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.env?.stop();
  });
  return suite as WidgetSuite;
}
