// Where the end-to-end test opens the dashboard: the server itself when it serves the dashboard build
// correctly, else a small same-origin front that serves dashboard/dist and forwards everything else to
// the server (so cookies, CSRF and webhooks behave exactly as when the server serves it).

import { createReadStream, existsSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export const DIST = path.resolve(import.meta.dirname, '..', '..', 'dashboard', 'dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.md': 'text/markdown; charset=utf-8',
};

/** True when GET /dashboard/ and its first script come back as HTML and JavaScript. */
export async function serverServesDashboard(serverUrl: string): Promise<boolean> {
  const index = await fetch(`${serverUrl}/dashboard/`);
  if (!index.ok || !index.headers.get('content-type')?.includes('html')) return false;
  const src = /<script[^>]+src="([^"]+)"/.exec(await index.text())?.[1];
  if (!src) return false;
  const script = await fetch(new URL(src, `${serverUrl}/dashboard/`));
  return script.ok && /javascript/.test(script.headers.get('content-type') ?? '');
}

function serveFile(res: http.ServerResponse, urlPath: string): void {
  const rel = decodeURIComponent(urlPath.replace(/^\/dashboard\/?/, '')) || 'index.html';
  const file = path.join(DIST, rel);
  const target =
    file.startsWith(DIST) && existsSync(file) && statSync(file).isFile() ? file : path.join(DIST, 'index.html');
  res.writeHead(200, { 'content-type': TYPES[path.extname(target)] ?? 'application/octet-stream' });
  createReadStream(target).pipe(res);
}

function forward(req: http.IncomingMessage, res: http.ServerResponse, upstream: URL): void {
  const out = http.request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(out);
}

export interface DashboardHost {
  /** Origin the browser uses for the dashboard and the API. */
  origin: string;
  viaProxy: boolean;
  close(): Promise<void>;
}

export async function dashboardHost(serverUrl: string): Promise<DashboardHost> {
  if (await serverServesDashboard(serverUrl)) return { origin: serverUrl, viaProxy: false, close: async () => {} };
  const upstream = new URL(serverUrl);
  const front = http.createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0]!;
    if ((p === '/dashboard' || p.startsWith('/dashboard/')) && !p.startsWith('/dashboard/api/') && req.method === 'GET')
      serveFile(res, p);
    else forward(req, res, upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port } = front.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    viaProxy: true,
    close: () =>
      new Promise((resolve) => {
        front.closeAllConnections();
        front.close(() => resolve());
      }),
  };
}
