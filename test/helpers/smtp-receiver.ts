// A real SMTP server on 127.0.0.1 for tests (RFC 5321, the commands a sender needs): it accepts every message and
// records its envelope and its data, decoded. No STARTTLS and no AUTH, so a client that insists on them fails.

import type { AddressInfo } from 'node:net';
import net from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The DATA as sent (dot-stuffing undone). */
  data: string;
  headers: Record<string, string>;
  /** The body, decoded from base64 when the message says so. */
  text: string;
}

export interface SmtpReceiver {
  port: number;
  /** For SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** Resolves with the first n messages, or rejects after timeoutMs naming how many arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

function parse(from: string, to: string[], data: string): ReceivedMail {
  const [head = '', ...rest] = data.split('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  const body = rest.join('\r\n\r\n');
  const text = /base64/i.test(headers['content-transfer-encoding'] ?? '')
    ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
    : body;
  return { from, to, data, headers, text };
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let data: string[] = [];
    let from = '';
    let to: string[] = [];
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 test.local ESMTP ready');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            messages.push(parse(from, to, data.join('\r\n')));
            for (const w of waiters.filter((w) => messages.length >= w.n)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve();
            }
            reply('250 2.0.0 queued');
          } else data.push(line.startsWith('..') ? line.slice(1) : line);
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') reply('250-test.local\r\n250 8BITMIME');
        else if (verb === 'MAIL') {
          from = /<([^>]*)>/.exec(line)?.[1] ?? '';
          to = [];
          reply('250 2.1.0 ok');
        } else if (verb === 'RCPT') {
          to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          reply('250 2.1.5 ok');
        } else if (verb === 'DATA') {
          inData = true;
          data = [];
          reply('354 end with <CRLF>.<CRLF>');
        } else if (verb === 'QUIT') {
          reply('221 2.0.0 bye');
          socket.end();
        } else if (verb === 'RSET' || verb === 'NOOP') reply('250 2.0.0 ok');
        else reply('502 5.5.2 not implemented');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor(n, timeoutMs = 10_000) {
      if (messages.length >= n) return Promise.resolve(messages.slice(0, n));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${n} e-mails, ${messages.length} arrived`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(messages.slice(0, n));
          },
        });
      });
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
