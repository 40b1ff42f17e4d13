// One webhook delivery attempt over HTTP(S), pinned to a checked address.
//
// Why each guard exists:
// - resolveSafeTarget resolves the host once and checks every address; the
//   request then gets a `lookup` that can only answer that address, so DNS
//   rebinding between check and connect is impossible.
// - agent: false gives every attempt a fresh socket, so a pooled connection
//   made for an earlier (differently resolved) attempt is never reused.
// - 3xx responses are failures: following a Location would skip the checks.
// - One timer covers connect, headers and body; the body read is capped and
//   the socket destroyed after the cap so a receiver cannot stream us megabytes.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { canonicalAddress, parseAddress } from './address-policy.ts';
import { type AddressPolicy, hostOf, type Resolver, resolveSafeTarget, UnsafeUrlError } from './url-guard.ts';

export interface SendResult {
  ok: boolean;
  status?: number;
  error?: string;
  bodySnippet?: string;
  /** The answer's Content-Type header, when it had one: decides whether the snippet is shown as text. */
  contentType?: string;
  durationMs: number;
  address?: string;
}

export interface SendOptions {
  url: string;
  body: Uint8Array | string;
  headers: Record<string, string>;
  timeoutMs: number;
  policy: AddressPolicy;
  resolver?: Resolver;
  maxResponseBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 4096;

/** Sends a POST; never throws for URL, network or receiver problems (ok=false with a reason). */
export async function sendWebhook(opts: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: Awaited<ReturnType<typeof resolveSafeTarget>>;
  try {
    target = await resolveSafeTarget(opts.url, opts.policy, opts.resolver);
  } catch (err) {
    if (err instanceof UnsafeUrlError) return { ok: false, error: err.message, durationMs: elapsed() };
    throw err; // a malformed policy is a configuration bug, not a delivery failure
  }
  const outcome = await post(target, opts);
  return { ...outcome, durationMs: elapsed(), address: target.address };
}

type Target = { url: URL; address: string; family: 4 | 6 };
type Outcome = Omit<SendResult, 'durationMs' | 'address'>;

function post(target: Target, opts: SendOptions): Promise<Outcome> {
  const body = typeof opts.body === 'string' ? Buffer.from(opts.body, 'utf8') : Buffer.from(opts.body);
  const cap = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const timeoutMs = opts.timeoutMs > 0 ? opts.timeoutMs : DEFAULT_TIMEOUT_MS;

  return new Promise<Outcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy(); // also closes a half-read response: the rest is discarded
      resolve(outcome);
    };

    // Until the status line arrives a timeout is a failure; once the receiver
    // has answered, a slow body only cuts the snippet short (the delivery
    // itself was accepted, and retrying it would only produce a duplicate).
    let onTimeout = () => finish({ ok: false, error: `timeout after ${timeoutMs} ms` });
    const timer = setTimeout(() => onTimeout(), timeoutMs);

    const req = requestFor(target, body.length, opts.headers);
    req.on('socket', (socket) => refuseUnpinnedPeer(socket, target.address, finish));
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({ ok: false, error: `request failed: ${err.code ?? err.message}` }),
    );
    req.on('response', (res) => {
      onTimeout = onResponse(res, cap, finish);
    });
    req.end(body);
  });
}

function requestFor(target: Target, length: number, headers: Record<string, string>): http.ClientRequest {
  const { url, address, family } = target;
  const host = hostOf(url);
  const options: https.RequestOptions = {
    method: 'POST',
    hostname: host, // keeps the Host header the receiver expects
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: {
      'user-agent': 'slicequote-webhooks',
      ...headers,
      'content-length': String(length),
      connection: 'close',
    },
    agent: false,
    lookup: pinnedLookup(address, family),
  };
  if (url.protocol === 'https:') {
    // SNI and certificate verification use the name, never the pinned IP.
    // (SNI must not carry an IP literal, RFC 6066 section 3.)
    if (isIP(host) === 0) options.servername = host;
    return https.request(options);
  }
  return http.request(options);
}

/** A lookup that can only ever answer the address that was checked. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    // With autoSelectFamily (default since Node 20) net asks for all addresses.
    if (options.all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    } else {
      callback(null, address, family);
    }
  };
}

// Belt and braces: if anything ever connected elsewhere than the pinned
// address, abort before a byte of the body goes out.
function refuseUnpinnedPeer(socket: Socket, address: string, finish: (o: Outcome) => void): void {
  socket.once('connect', () => {
    const peer = socket.remoteAddress;
    if (peer !== undefined && !sameAddress(peer, address)) {
      finish({ ok: false, error: `connected to ${peer}, not the checked address ${address}` });
    }
  });
}

/** Reads the capped body and settles; returns what to do if the timer fires meanwhile. */
function sameAddress(a: string, b: string): boolean {
  const pa = parseAddress(a);
  const pb = parseAddress(b);
  return pa !== null && pb !== null && canonicalAddress(pa).toString() === canonicalAddress(pb).toString();
}

function onResponse(res: http.IncomingMessage, cap: number, finish: (o: Outcome) => void): () => void {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    const location = res.headers.location ? ` to ${res.headers.location.slice(0, 200)}` : '';
    finish({ ok: false, status, error: `redirect not followed (${status}${location})` });
    return () => {};
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () => {
    const bodySnippet = Buffer.concat(chunks).subarray(0, cap).toString('utf8');
    const ok = status >= 200 && status < 300;
    const contentType = res.headers['content-type'];
    const answer = contentType === undefined ? { status, bodySnippet } : { status, bodySnippet, contentType };
    finish(ok ? { ok, ...answer } : { ok, ...answer, error: `receiver answered ${status}` });
  };
  res.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= cap) done();
  });
  res.on('end', done);
  res.on('error', done);
  res.on('aborted', done);
  return done;
}
