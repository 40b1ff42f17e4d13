// Delivery attempts against real receivers on loopback only. Loopback is
// "private", so the receivers are reached through allowPrivateCidrs; every
// name used here is answered by a stub resolver, and every refusal is proven
// by a listening receiver that must see zero connections.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import { sendWebhook } from '../server/webhooks/send.ts';
import { generateSecret, signBody, verifySignature } from '../server/webhooks/signature.ts';
import type { Resolver } from '../server/webhooks/url-guard.ts';
import { until } from './helpers/poll.ts';

const LOOPBACK_ONLY = { allowPrivateCidrs: ['127.0.0.1/32'] };
const NO_POLICY = { allowPrivateCidrs: [] };

interface Receiver {
  port: number;
  connections: number;
  requests: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: Buffer }[];
  sockets: Set<Socket>;
  close(): Promise<void>;
}

/** A receiver that records every connection; `handler` answers after the body is read. */
async function receiver(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  host = '127.0.0.1',
  port = 0,
): Promise<Receiver> {
  const server = http.createServer();
  const r: Receiver = { port: 0, connections: 0, requests: [], sockets: new Set(), close: async () => {} };
  server.on('connection', (s) => {
    r.connections++;
    r.sockets.add(s);
    s.on('close', () => r.sockets.delete(s));
  });
  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      r.requests.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      handler(req, res);
    });
  });
  await new Promise<void>((ok) => server.listen(port, host, ok));
  r.port = (server.address() as AddressInfo).port;
  r.close = () =>
    new Promise<void>((ok) => {
      for (const s of r.sockets) s.destroy();
      server.close(() => ok());
    });
  return r;
}

const answer =
  (status: number, body = '', headers: Record<string, string> = {}) =>
  (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(status, headers);
    res.end(body);
  };

const stub =
  (answers: Record<string, string[]>, calls: string[] = []): Resolver =>
  async (host) => {
    calls.push(host);
    const a = answers[host];
    if (!a) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return a;
  };

/** Records every outgoing TCP connection made by this process while `fn` runs. */
async function watchOutbound<T>(fn: () => Promise<T>): Promise<{ result: T; peers: string[]; sockets: number }> {
  const peers: string[] = [];
  let sockets = 0;
  const onSocket = (msg: unknown) => {
    sockets++;
    const socket = (msg as { socket: Socket }).socket;
    socket.once('connect', () => peers.push(`${socket.remoteAddress}:${socket.remotePort}`));
  };
  diagnostics.subscribe('net.client.socket', onSocket);
  try {
    const result = await fn();
    return { result, peers, sockets };
  } finally {
    diagnostics.unsubscribe('net.client.socket', onSocket);
  }
}

describe('sendWebhook: delivery', () => {
  it('POSTs the exact body and headers to the pinned address, Host header from the URL', async () => {
    const rx = await receiver(answer(200, 'thanks'));
    after(() => rx.close());
    const body = JSON.stringify({ event: 'quote.completed', data: { n: 'é' } });
    const calls: string[] = [];
    const res = await sendWebhook({
      // ".invalid" can never resolve in real DNS: success proves the stub's pinned answer was used.
      url: `http://receiver.invalid:${rx.port}/hooks/in?src=sq#frag`,
      body,
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signBody('s3cret', body) },
      timeoutMs: 5000,
      policy: LOOPBACK_ONLY,
      resolver: stub({ 'receiver.invalid': ['127.0.0.1'] }, calls),
    });
    assert.equal(res.ok, true, res.error);
    assert.equal(res.status, 200);
    assert.equal(res.bodySnippet, 'thanks');
    assert.equal(res.address, '127.0.0.1');
    assert.ok(res.durationMs >= 0);
    assert.deepEqual(calls, ['receiver.invalid']);
    const got = rx.requests[0];
    assert.ok(got, 'the receiver got the request');
    assert.equal(got.method, 'POST');
    assert.equal(got.url, '/hooks/in?src=sq');
    assert.equal(got.headers.host, `receiver.invalid:${rx.port}`);
    assert.equal(got.body.toString('utf8'), body);
    assert.equal(verifySignature('s3cret', got.body, String(got.headers['x-webhook-signature'])), true);
  });

  it('a non-2xx answer is a failure that records status and snippet', async () => {
    const rx = await receiver(answer(503, 'busy'));
    after(() => rx.close());
    const res = await sendWebhook({
      url: `http://127.0.0.1:${rx.port}/`,
      body: new Uint8Array([1, 2, 3]),
      headers: {},
      timeoutMs: 5000,
      policy: LOOPBACK_ONLY,
    });
    assert.deepEqual([res.ok, res.status, res.bodySnippet], [false, 503, 'busy']);
    assert.match(res.error ?? '', /503/);
    const [got] = rx.requests;
    assert.ok(got, 'the receiver got the request');
    assert.deepEqual([...got.body], [1, 2, 3]);
  });

  it('a closed port is a recorded failure, not an exception', async () => {
    const rx = await receiver(answer(200));
    const port = rx.port;
    await rx.close();
    const res = await sendWebhook({
      url: `http://127.0.0.1:${port}/`,
      body: '{}',
      headers: {},
      timeoutMs: 5000,
      policy: LOOPBACK_ONLY,
    });
    assert.equal(res.ok, false);
    assert.match(res.error ?? '', /ECONNREFUSED/);
  });
});

describe('sendWebhook: refused targets are never contacted', () => {
  const notations = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://2130706433:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://127.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://localhost:${port}/`,
    `http://localhost.:${port}/`,
    `http://rebind.invalid:${port}/`,
  ];

  it('every loopback notation is refused with the default policy, zero connections', async () => {
    const rx = await receiver(answer(200, 'SECRET'));
    after(() => rx.close());
    for (const url of notations(rx.port)) {
      const res = await sendWebhook({
        url,
        body: '{}',
        headers: {},
        timeoutMs: 2000,
        policy: NO_POLICY,
        resolver: stub({ 'rebind.invalid': ['127.0.0.1'] }),
      });
      assert.equal(res.ok, false, url);
      assert.match(res.error ?? '', /^url_private_address/, url);
      assert.equal(res.bodySnippet, undefined, url);
      assert.equal(res.status, undefined, url);
    }
    assert.equal(rx.connections, 0);
  });

  it('a resolver answering the allowed address first and another one later never leads to the other', async () => {
    // 127.0.0.1 plays the checked public address, 127.0.0.2 the private one.
    const good = await receiver(answer(200, 'good'), '127.0.0.1');
    const evil = await receiver(answer(200, 'EVIL'), '127.0.0.2', good.port);
    after(() => Promise.all([good.close(), evil.close()]));
    let calls = 0;
    const flipping: Resolver = async () => (++calls === 1 ? ['127.0.0.1'] : ['127.0.0.2']);
    const send = () =>
      sendWebhook({
        url: `http://flip.invalid:${good.port}/`,
        body: '{}',
        headers: {},
        timeoutMs: 5000,
        policy: LOOPBACK_ONLY,
        resolver: flipping,
      });

    const first = await watchOutbound(send);
    assert.equal(first.result.ok, true, first.result.error);
    assert.equal(calls, 1, 'resolved exactly once for the attempt');
    assert.deepEqual(first.peers, [`127.0.0.1:${good.port}`]);

    // The next attempt resolves again (docs/webhooks.md, endpoint rules) and refuses the new answer.
    const second = await watchOutbound(send);
    assert.equal(second.result.ok, false);
    assert.match(second.result.error ?? '', /^url_private_address.*127\.0\.0\.2/);
    assert.equal(second.sockets, 0);
    assert.equal(good.connections, 1);
    assert.equal(evil.connections, 0);
  });

  it('a single answer mixing an allowed and a refused address is refused as a whole', async () => {
    const good = await receiver(answer(200), '127.0.0.1');
    const evil = await receiver(answer(200), '127.0.0.2', good.port);
    after(() => Promise.all([good.close(), evil.close()]));
    for (const answers of [
      ['127.0.0.1', '127.0.0.2'],
      ['127.0.0.2', '127.0.0.1'],
    ]) {
      const res = await sendWebhook({
        url: `http://mixed.invalid:${good.port}/`,
        body: '{}',
        headers: {},
        timeoutMs: 5000,
        policy: LOOPBACK_ONLY,
        resolver: stub({ 'mixed.invalid': answers }),
      });
      assert.equal(res.ok, false);
      assert.match(res.error ?? '', /^url_private_address/);
    }
    assert.equal(good.connections + evil.connections, 0);
  });
});

describe('sendWebhook: redirects', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`${status} to the metadata address is not followed`, async () => {
      const rx = await receiver(answer(status, 'moved', { location: 'http://169.254.169.254/latest/meta-data/' }));
      after(() => rx.close());
      const calls: string[] = [];
      const { result, peers, sockets } = await watchOutbound(() =>
        sendWebhook({
          url: `http://127.0.0.1:${rx.port}/hook`,
          body: '{}',
          headers: {},
          timeoutMs: 5000,
          policy: LOOPBACK_ONLY,
          resolver: stub({}, calls),
        }),
      );
      assert.equal(result.ok, false);
      assert.equal(result.status, status);
      assert.match(result.error ?? '', /redirect not followed/);
      assert.match(result.error ?? '', /169\.254\.169\.254/);
      assert.equal(result.bodySnippet, undefined);
      assert.equal(rx.requests.length, 1);
      assert.equal(sockets, 1, 'exactly one outgoing connection');
      assert.deepEqual(peers, [`127.0.0.1:${rx.port}`]);
      assert.deepEqual(calls, []);
    });
  }
});

describe('sendWebhook: timeout and body cap', () => {
  it('gives up on a receiver that never answers', async () => {
    const rx = await receiver(() => {}); // reads the request, never responds
    after(() => rx.close());
    const res = await sendWebhook({
      url: `http://127.0.0.1:${rx.port}/`,
      body: '{}',
      headers: {},
      timeoutMs: 300,
      policy: LOOPBACK_ONLY,
    });
    assert.equal(res.ok, false);
    assert.match(res.error ?? '', /timeout after 300 ms/);
    assert.ok(res.durationMs >= 250 && res.durationMs < 3000, String(res.durationMs));
    await waitFor(() => rx.sockets.size === 0); // our side closed the socket
  });

  it('reads at most the cap from a receiver streaming without end, then hangs up', async () => {
    let written = 0;
    let closed = false;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const rx = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.on('close', () => (closed = true));
      const pump = () => {
        while (!closed && written < 256 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    after(() => rx.close());
    for (const [cap, expected] of [
      [undefined, 4096],
      [10, 10],
    ] as const) {
      closed = false;
      const res = await sendWebhook({
        url: `http://127.0.0.1:${rx.port}/`,
        body: '{}',
        headers: {},
        timeoutMs: 5000,
        policy: LOOPBACK_ONLY,
        maxResponseBytes: cap,
      });
      assert.equal(res.ok, true, res.error);
      assert.equal(res.bodySnippet?.length, expected);
      // Well inside the 5 s timeout: the cap, not the timer, ended the read.
      assert.ok(res.durationMs < 2000, `took ${res.durationMs} ms`);
      await waitFor(() => closed);
    }
    assert.ok(written < 256 * 1024 * 1024, `receiver stopped early (${written} bytes written)`);
  });
});

describe('sendWebhook: https', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sq-tls-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let cert: { key: Buffer; cert: Buffer } | null = null;
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=secure.invalid',
        '-addext',
        'subjectAltName=DNS:secure.invalid',
      ],
      { stdio: 'ignore' },
    );
    cert = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } catch {
    cert = null;
  }

  it('sends SNI = host name to the pinned address and verifies the certificate', {
    skip: cert === null && 'openssl not available',
  }, async () => {
    const names: (string | undefined)[] = [];
    let requests = 0;
    const server = https.createServer(
      {
        ...cert!,
        SNICallback: (name, cb) => {
          names.push(name);
          cb(null);
        },
      },
      (_req, res) => {
        requests++;
        res.end('ok');
      },
    );
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    after(() => new Promise<void>((ok) => server.close(() => ok())));
    const port = (server.address() as AddressInfo).port;
    const res = await sendWebhook({
      url: `https://secure.invalid:${port}/`,
      body: '{}',
      headers: {},
      timeoutMs: 5000,
      policy: LOOPBACK_ONLY,
      resolver: stub({ 'secure.invalid': ['127.0.0.1'] }),
    });
    // The self-signed certificate is not trusted: verification is on, nothing was posted.
    assert.equal(res.ok, false);
    assert.match(res.error ?? '', /SELF_SIGNED|CERT/);
    assert.deepEqual(names, ['secure.invalid']);
    assert.equal(requests, 0);
  });
});

describe('signature', () => {
  it("matches GitHub's published test vector", () => {
    const expected = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    assert.equal(signBody("It's a Secret to Everybody", 'Hello, World!'), expected);
    assert.equal(verifySignature("It's a Secret to Everybody", 'Hello, World!', expected), true);
    assert.equal(
      verifySignature("It's a Secret to Everybody", new TextEncoder().encode('Hello, World!'), expected),
      true,
    );
  });

  it('agrees with @octokit/webhooks-methods sign and verify', async () => {
    const secret = generateSecret();
    const bodies = ['{}', '{"event":"quote.completed","data":{"price":12.5}}', 'ünïcödé ✓', 'x'.repeat(10_000)];
    for (const body of bodies) {
      const ours = signBody(secret, body);
      assert.equal(ours, await octokitSign(secret, body));
      const candidates = [
        ours,
        ours.toUpperCase(),
        ours.replace('sha256=', ''),
        ours.slice(0, -1) + (ours.endsWith('0') ? '1' : '0'),
        signBody(`${secret}x`, body),
        signBody(secret, `${body} `),
        `sha1=${ours.slice(7)}`,
        `${ours}00`,
      ];
      for (const header of candidates) {
        assert.equal(verifySignature(secret, body, header), await octokitVerify(secret, body, header), header);
      }
    }
  });

  it('rejects empty or non-string headers and tampered bodies', () => {
    const sig = signBody('k', 'body');
    assert.equal(verifySignature('k', 'body', ''), false);
    assert.equal(verifySignature('k', 'body', undefined as unknown as string), false);
    assert.equal(verifySignature('k', 'Body', sig), false);
  });

  it('generates distinct prefixed secrets with 32 random bytes', () => {
    const a = generateSecret();
    const b = generateSecret();
    assert.match(a, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a, b);
    assert.equal(Buffer.from(a.slice(6), 'base64url').length, 32);
  });
});

async function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  await until('the condition', ms, () => cond() || undefined);
}
