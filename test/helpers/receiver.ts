// A real HTTP webhook receiver on 127.0.0.1 that records every request with its raw body.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as received (signatures are checked over these bytes). */
  body: string;
  json: any;
  /** performance-free wall clock (ms) when the body was complete */
  at: number;
}

/** `N` Ts as a tuple when N is a literal (so `const [a, b] = await r.waitFor(2)` needs no checks), else T[]. */
export type Tuple<T, N extends number, Acc extends T[] = []> = number extends N
  ? T[]
  : Acc['length'] extends N
    ? Acc
    : Tuple<T, N, [...Acc, T]>;

/** What to answer to the n-th request (0-based): a status, after an optional delay; 'hang' never answers. */
export type Answer = { status: number; delayMs?: number; body?: string } | 'hang';

export interface Receiver {
  port: number;
  url: string;
  requests: Received[];
  /** Most requests that were open (received, not yet answered or dropped) at the same time. */
  maxConcurrent: number;
  /** Requests answered so far (a delayed answer counts once it is sent). */
  answered: number;
  /** Resolves with the first n requests, or rejects after timeoutMs naming how many arrived. */
  waitFor<N extends number>(n: N, timeoutMs?: number): Promise<Tuple<Received, N>>;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (index: number, req: Received) => Answer = () => ({ status: 200 }),
  port = 0,
): Promise<Receiver> {
  const requests: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let open = 0;
  const server = http.createServer((req, res) => {
    open++;
    state.maxConcurrent = Math.max(state.maxConcurrent, open);
    res.on('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // recorded raw; the test decides whether that is a failure
      }
      const received: Received = { headers: req.headers, body, json, at: Date.now() };
      const index = requests.push(received) - 1;
      for (const w of waiters.filter((w) => requests.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const a = answer(index, received);
      if (a === 'hang') return;
      const send = () => {
        res.writeHead(a.status, { 'content-type': 'text/plain' });
        res.end(a.body ?? 'ok');
        state.answered++;
      };
      if (a.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          send();
        }, a.delayMs);
        timers.add(t);
      } else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  const actual = (server.address() as AddressInfo).port;
  const state: Receiver = {
    port: actual,
    url: `http://127.0.0.1:${actual}/hook`,
    requests,
    maxConcurrent: 0,
    answered: 0,
    waitFor<N extends number>(n: N, timeoutMs = 20_000) {
      // slice(0, n) of at least n requests holds exactly n.
      const firstN = () => requests.slice(0, n) as Tuple<Received, N>;
      if (requests.length >= n) return Promise.resolve(firstN());
      return new Promise<Tuple<Received, N>>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver: expected ${n} requests within ${timeoutMs} ms, got ${requests.length}`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(firstN());
          },
        });
      });
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
  return state;
}

// The poll helper, where the webhook tests have always found it.
export { eventually } from './poll.ts';
