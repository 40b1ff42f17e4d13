// Uploads from a chosen loopback source address (127.0.0.x): each address stands for another client, as the
// server counts public uploads per client address. node:http binds the socket with `localAddress`; the answer is
// checked against the OpenAPI document like every ApiClient answer.
import http from 'node:http';
import { assertMatchesContract } from './contract.ts';

export interface AddressAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** POSTs `bytes` as the multipart part `file` to `base + urlPath` from `localAddress`. */
export function uploadFrom(
  base: string,
  urlPath: string,
  localAddress: string,
  bytes: Uint8Array,
  fileName: string,
  headers: Record<string, string> = {},
): Promise<AddressAnswer> {
  const boundary = `----from-address-${Math.random().toString(16).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const url = new URL(urlPath, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          ...headers,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(body.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const type = res.headers['content-type'] ?? null;
          const parsed = type?.includes('json') && text ? JSON.parse(text) : text;
          assertMatchesContract('POST', url.pathname, res.statusCode!, type, parsed);
          resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
