// A small SMTP client (RFC 5321) for the few e-mails the server sends: one message per connection, EHLO, STARTTLS
// whenever the server offers it on smtp:// (TLS from the start on smtps://), AUTH PLAIN when credentials are set,
// then MAIL, RCPT, DATA and QUIT. Every reply is awaited with a timeout, so a silent server fails the send instead
// of holding it. The body is sent base64-encoded, so no line of it can end the DATA early or exceed a line limit.

import { randomBytes } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import type { SmtpSettings } from '../config.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export class SmtpError extends Error {}

/** The longest wait for one reply (the greeting, a command's answer, the end of DATA). */
const REPLY_MS = 15_000;
/** A reply longer than this is not an SMTP server talking: the connection is dropped. */
const MAX_REPLY_BYTES = 64 * 1024;

/** A reply: its code and its text lines. */
interface Reply {
  code: number;
  lines: string[];
}

/** Reads replies off a socket: lines until one whose code is followed by a space (RFC 5321 4.2.1). */
class ReplyReader {
  private buffer = '';
  private lines: string[] = [];
  private waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;
  private socket: net.Socket;

  constructor(socket: net.Socket) {
    this.socket = socket;
    this.attach(socket);
  }

  /** After STARTTLS the same reader follows the TLS socket. */
  attach(socket: net.Socket): void {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.take(chunk));
    socket.on('error', (e) => this.fail(new SmtpError(`SMTP connection failed: ${e.message}`)));
    socket.on('close', () => this.fail(new SmtpError('The SMTP server closed the connection')));
  }

  private take(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > MAX_REPLY_BYTES) {
      this.fail(new SmtpError('The SMTP server sent an overlong reply'));
      return;
    }
    for (let end = this.buffer.indexOf('\n'); end >= 0; end = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, end).replace(/\r$/, '');
      this.buffer = this.buffer.slice(end + 1);
      this.lines.push(line);
      if (/^\d{3}(?: |$)/.test(line)) this.finish();
    }
  }

  private finish(): void {
    const lines = this.lines;
    this.lines = [];
    const reply = { code: Number(lines.at(-1)!.slice(0, 3)), lines: lines.map((l) => l.slice(4)) };
    const w = this.waiting;
    this.waiting = null;
    w?.resolve(reply);
  }

  private fail(e: Error): void {
    this.failure ??= e;
    const w = this.waiting;
    this.waiting = null;
    w?.reject(e);
  }

  next(what: string): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        reject(new SmtpError(`The SMTP server did not answer ${what} within ${REPLY_MS / 1000} s`));
        this.socket.destroy();
      }, REPLY_MS);
      this.waiting = {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
    });
  }
}

/** Words with characters beyond ASCII as an RFC 2047 encoded word; control characters never reach a header. */
function headerText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed from headers
  const clean = text.replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
  return /^[\x20-\x7e]*$/.test(clean) ? clean : `=?UTF-8?B?${Buffer.from(clean, 'utf8').toString('base64')}?=`;
}

/** The message as sent in DATA: headers, a blank line, the body in base64 lines of 76 characters. */
export function formatMessage(from: string, m: MailMessage, now: Date): string {
  const body = Buffer.from(m.text.replace(/\r?\n/g, '\r\n'), 'utf8').toString('base64');
  const domain = from.split('@')[1] ?? 'localhost';
  return [
    `From: <${from}>`,
    `To: <${m.to}>`,
    `Subject: ${headerText(m.subject)}`,
    `Date: ${now.toUTCString()}`,
    `Message-ID: <${randomBytes(12).toString('hex')}@${domain}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    ...(body.match(/.{1,76}/g) ?? []),
  ].join('\r\n');
}

const connect = (s: SmtpSettings): Promise<net.Socket> =>
  new Promise((resolve, reject) => {
    const socket = s.secure
      ? tls.connect({ host: s.host, port: s.port, servername: s.host, rejectUnauthorized: !s.tlsInsecure })
      : net.connect({ host: s.host, port: s.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new SmtpError(`Could not connect to the SMTP server ${s.host}:${s.port} within ${REPLY_MS / 1000} s`));
    }, REPLY_MS);
    socket.once(s.secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      reject(new SmtpError(`Could not connect to the SMTP server ${s.host}:${s.port}: ${e.message}`));
    });
  });

/** Sends one message; resolves once the server accepted it for delivery, rejects with an SmtpError saying why not. */
export async function sendMail(s: SmtpSettings, m: MailMessage, now: Date): Promise<void> {
  if (/[\s<>]/.test(m.to)) throw new SmtpError('The recipient is not a plain e-mail address');
  let socket = await connect(s);
  const reader = new ReplyReader(socket);
  const expect = async (what: string, ok: (code: number) => boolean) => {
    const reply = await reader.next(what);
    if (!ok(reply.code)) throw new SmtpError(`The SMTP server refused ${what}: ${reply.code} ${reply.lines.join(' ')}`);
    return reply;
  };
  const command = (line: string, what: string, ok: (code: number) => boolean) => {
    socket.write(`${line}\r\n`);
    return expect(what, ok);
  };
  const is = (n: number) => (code: number) => code === n;
  try {
    await expect('the greeting', is(220));
    let ehlo = await command('EHLO slicequote', 'EHLO', is(250));
    if (!s.secure && ehlo.lines.some((l) => /^STARTTLS\b/i.test(l))) {
      await command('STARTTLS', 'STARTTLS', is(220));
      socket = tls.connect({ socket, servername: s.host, rejectUnauthorized: !s.tlsInsecure });
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', () => resolve());
        socket.once('error', (e) => reject(new SmtpError(`STARTTLS failed: ${e.message}`)));
      });
      reader.attach(socket);
      ehlo = await command('EHLO slicequote', 'EHLO', is(250));
    }
    if (s.auth) {
      const plain = Buffer.from(`\0${s.auth.user}\0${s.auth.pass}`, 'utf8').toString('base64');
      await command(`AUTH PLAIN ${plain}`, 'the login', is(235));
    }
    await command(`MAIL FROM:<${s.from}>`, 'the sender', is(250));
    await command(`RCPT TO:<${m.to}>`, 'the recipient', (c) => c === 250 || c === 251);
    await command('DATA', 'DATA', is(354));
    await command(`${formatMessage(s.from, m, now)}\r\n.`, 'the message', is(250));
    socket.write('QUIT\r\n');
  } finally {
    socket.end();
    socket.destroy();
  }
}
