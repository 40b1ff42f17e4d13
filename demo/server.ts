// The demo merchant: a shop page embedding the widget by script tag, exactly as a real shop would,
// and the shop's backend, which receives slicequote's webhooks on loopback, verifies their signatures
// and keeps the widget.added_to_cart orders (served at /orders for the page's orders panel).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface DemoShopOptions {
  /** Base URL of the slicequote API, which also serves /widget/slice-quote.js. */
  apiUrl: string;
  /** Publishable widget key (pk_...) whose allowed origins include this shop's origin. */
  widgetKey: string;
  /** The signing secret of the webhook registered for `webhookUrl`. */
  webhookSecret: string;
  /** The account's quote signing secret: each order's quote signature is checked with it when given. */
  quoteSigningSecret?: string;
  port?: number;
  host?: string;
}

export interface DemoOrder {
  delivery_id: string | null;
  received_at: string;
  /** The event body as slicequote signed it: {event, timestamp, data}. */
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
  /** The quote signature: verified (and what it signs), invalid, or unchecked without a secret. */
  quote: { status: 'verified'; signed: SignedQuote } | { status: 'invalid' | 'expired' | 'unchecked' };
}

export interface DemoShop {
  url: string;
  webhookUrl: string;
  orders(): DemoOrder[];
  close(): Promise<void>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const MAX_WEBHOOK_BYTES = 1024 * 1024;

export async function startDemoShop(opts: DemoShopOptions): Promise<DemoShop> {
  const server = http.createServer();
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, resolve);
  });
  return serveDemoShop(server, opts);
}

/**
 * The demo shop on `server`, which already listens: a shop's origin (in its widget key's allowed origins and its
 * webhook's URL) is then known before the shop is, without picking a port that another process may take meanwhile.
 */
export function serveDemoShop(server: http.Server, opts: Omit<DemoShopOptions, 'port'>): DemoShop {
  const orders: DemoOrder[] = [];
  const apiUrl = opts.apiUrl.replace(/\/+$/, '');
  const ctx: Context = {
    page: renderShopPage(apiUrl, opts.widgetKey),
    partsPage: renderShopPage(apiUrl, opts.widgetKey, true),
    csp: contentSecurityPolicy(apiUrl),
    secret: opts.webhookSecret,
    quoteSecret: opts.quoteSigningSecret ?? null,
    orders,
  };
  server.on('request', (req, res) => {
    handle(req, res, ctx).catch(() => {
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error');
    });
  });
  const host = opts.host ?? '127.0.0.1';
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    webhookUrl: `${url}/webhooks`,
    orders: () => orders.slice(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Context {
  page: string;
  partsPage: string;
  csp: string;
  secret: string;
  quoteSecret: string | null;
  orders: DemoOrder[];
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, ctx: Context): Promise<void> {
  const { pathname } = new URL(req.url ?? '/', 'http://shop');
  if (req.method === 'POST' && pathname === '/webhooks') return receiveWebhook(req, res, ctx);
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed');
  if (pathname === '/' || pathname === '/shop.html' || pathname === '/parts')
    return send(res, 200, 'text/html; charset=utf-8', pathname === '/parts' ? ctx.partsPage : ctx.page, {
      'content-security-policy': ctx.csp,
      'cache-control': 'no-store',
    });
  if (pathname === '/shop.js')
    return send(res, 200, 'text/javascript; charset=utf-8', readFileSync(path.join(here, 'shop.js')));
  if (pathname === '/shop.css')
    return send(res, 200, 'text/css; charset=utf-8', readFileSync(path.join(here, 'shop.css')));
  if (pathname === '/orders')
    return send(res, 200, 'application/json', JSON.stringify({ data: ctx.orders }), { 'cache-control': 'no-store' });
  const sample = /^\/models\/([\w.-]+)$/.exec(pathname)?.[1];
  if (sample && sampleModels().includes(sample)) {
    return send(res, 200, 'application/octet-stream', readFileSync(path.join(here, 'models', sample)), {
      'content-disposition': `attachment; filename="${sample}"`,
    });
  }
  send(res, 404, 'text/plain', 'not found');
}

async function receiveWebhook(req: http.IncomingMessage, res: http.ServerResponse, ctx: Context): Promise<void> {
  const raw = await readBody(req, MAX_WEBHOOK_BYTES);
  if (raw === null) return send(res, 413, 'text/plain', 'too large');
  if (!signatureMatches(raw, req.headers['x-webhook-signature'], ctx.secret))
    return send(res, 401, 'text/plain', 'bad signature');
  let body: { event?: unknown; timestamp?: unknown; data?: unknown };
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return send(res, 400, 'text/plain', 'not json');
  }
  const deliveryId = typeof req.headers['x-webhook-delivery'] === 'string' ? req.headers['x-webhook-delivery'] : null;
  // Retries carry the same delivery id: record each order once (docs/webhooks.md: process duplicates idempotently).
  const duplicate = deliveryId !== null && ctx.orders.some((o) => o.delivery_id === deliveryId);
  if (body.event === 'widget.added_to_cart' && !duplicate) {
    const data = (body.data ?? {}) as Record<string, unknown>;
    ctx.orders.push({
      delivery_id: deliveryId,
      received_at: new Date().toISOString(),
      event: body.event,
      timestamp: String(body.timestamp),
      data,
      quote: checkQuote(data.signature, ctx.quoteSecret),
    });
  }
  send(res, 200, 'text/plain', 'ok');
}

function checkQuote(signature: unknown, secret: string | null): DemoOrder['quote'] {
  if (!secret) return { status: 'unchecked' };
  const signed = verifyQuoteSignature(signature, secret);
  if (!signed) return { status: 'invalid' };
  return signed.expiresAt < new Date() ? { status: 'expired' } : { status: 'verified', signed };
}

export interface SignedQuote {
  quoteId: string;
  fileId: string;
  /** The file's revision and placement that were priced: the size of part the price is for. */
  fileRevision: number;
  unit: string;
  scale: number;
  orientation: string;
  settingsDigest: string;
  unitAmountMinor: number;
  currency: string;
  /** The lead-time option chosen ('' when the shop offers none) and its business days (v3; v2: '' and 0). */
  leadTime: string;
  businessDays: number;
  expiresAt: Date;
}

/** The fields of a v2 signature payload (docs/quote-signatures.md), in order; v3 adds lead time and days before expires. */
type PayloadFields = [
  version: string,
  quoteId: string,
  fileId: string,
  fileRevision: string,
  unit: string,
  scale: string,
  orientation: string,
  settingsDigest: string,
  unitAmountMinor: string,
  currency: string,
  expires: string,
];

/**
 * What a merchant's backend does before charging for a quote it got from a browser (docs/quote-signatures.md):
 * recompute the HMAC of the payload with the quote signing secret, compare in constant time, then trust only
 * the payload's fields. Returns them, or null when the signature does not match.
 */
export function verifyQuoteSignature(signature: unknown, secret: string): SignedQuote | null {
  const s = signature as { payload?: unknown; hmac_sha256?: unknown } | null;
  if (typeof s?.payload !== 'string' || typeof s.hmac_sha256 !== 'string') return null;
  const expected = createHmac('sha256', secret).update(s.payload).digest();
  const given = Buffer.from(s.hmac_sha256, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  // A v3 payload has thirteen fields, a v2 one (signed before lead times) eleven; any other names no price (or not
  // the size priced) and is refused.
  const fields = s.payload.split(':');
  const v3 = fields[0] === 'v3' && fields.length === 13;
  if (!v3 && !(fields[0] === 'v2' && fields.length === 11)) return null;
  const [leadTime, businessDays] = v3 ? fields.splice(10, 2) : ['', '0'];
  const [, quoteId, fileId, revision, unit, scale, orientation, settingsDigest, minor, currency, expires] =
    fields as PayloadFields;
  return {
    quoteId,
    fileId,
    fileRevision: Number(revision),
    unit,
    scale: Number(scale),
    orientation,
    settingsDigest,
    unitAmountMinor: Number(minor),
    currency,
    leadTime: leadTime!,
    businessDays: Number(businessDays),
    expiresAt: new Date(Number(expires) * 1000),
  };
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, compared in constant time. */
export function signatureMatches(raw: Buffer, header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The product page: one part (`/`) or several parts in one widget (`/parts`, `<slice-quote multiple>`). */
function renderShopPage(apiUrl: string, widgetKey: string, several = false): string {
  const words = several
    ? {
        HEADING: 'Custom 3D prints: a whole project',
        INTRO:
          'Drop all the STL, 3MF or OBJ models of your project below: each part gets its own material, colour, ' +
          'quantity and a price computed from a real slice, and one button adds them all to the cart.',
        SWITCH: 'Only one part? <a href="/">Quote a single part</a>.',
        MULTIPLE: ' multiple',
      }
    : {
        HEADING: 'Custom 3D print',
        INTRO:
          'Drop your STL, 3MF or OBJ model below, pick a material and colour, and get a price computed from a real slice.',
        SWITCH: 'Several parts? <a href="/parts">Quote a whole project at once</a>.',
        MULTIPLE: '',
      };
  let page = readFileSync(path.join(here, 'shop.html'), 'utf8');
  for (const [name, value] of Object.entries(words)) page = page.replaceAll(`{{${name}}}`, value);
  return page.replaceAll('{{API}}', escapeAttr(apiUrl)).replaceAll('{{KEY}}', escapeAttr(widgetKey));
}

/**
 * A strict CSP, as a careful merchant would set: serving the page under it proves the widget needs no
 * more (its styles are constructed stylesheets, its parser a blob: worker).
 */
function contentSecurityPolicy(apiUrl: string): string {
  const api = new URL(apiUrl).origin;
  return [
    "default-src 'self'",
    `script-src 'self' ${api}`,
    `connect-src 'self' ${api}`,
    'worker-src blob:',
    "img-src 'self' data:",
    "style-src 'self'",
  ].join('; ');
}

function sampleModels(): string[] {
  try {
    return readdirSync(path.join(here, 'models')).filter((f) => /\.(stl|3mf|obj)$/i.test(f));
  } catch {
    return [];
  }
}

function escapeAttr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function send(
  res: http.ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': type, 'x-content-type-options': 'nosniff', ...headers });
  res.end(body);
}
