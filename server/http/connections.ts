// Every request gets an answer, and a connection ends gracefully (docs/deployment.md, "Slow clients and refused
// uploads"). Two things used to drop connections without a status:
// - A refusal answered before the body was read (too large, no valid token, rate limited) closed the socket as soon
//   as the answer was written, while the client was still sending: the kernel answered its next bytes with a reset,
//   the client saw EPIPE or ECONNRESET, and could lose the answer already in its buffer. Now the server sends its
//   answer, half-closes, and reads and discards the rest of the body up to a bound before it closes ("lingering
//   close", as web servers do).
// - Idle timers fired while the server itself was busy: timers run before the event loop reads sockets, so after a
//   long busy spell a keep-alive connection whose next request was already waiting in the kernel was closed
//   unanswered. Now a quiet connection is judged only after the bytes that arrived meanwhile were read, and only a
//   client that owes bytes (or does not read our answer) is a slow client; time the server spends working on an
//   answer never counts against the client.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, errorBody } from './errors.ts';

export interface ConnectionLimits {
  /** No byte from the client for this long while it owes the request's headers or body: 408, then closed. */
  clientIdleMs: number;
  /** An idle keep-alive connection is closed after this long (advertised to clients in Keep-Alive: timeout)... */
  keepAliveMs: number;
  /**
   * ...and this much later again. A client reuses a connection for a little less than the advertised time, by its
   * own timer; a client whose event loop was busy (building a large upload, say) reuses it late and would write
   * its request into a connection the server had just closed: EPIPE, and no status.
   */
  keepAliveGraceMs: number;
  /** The request line and headers must have arrived within this long (slow-header protection). */
  headersMs: number;
  /** A whole request, body included, must have arrived within this long (a 200 MB upload on a slow link). */
  requestMs: number;
  /** After a refusal, the rest of the body read and discarded before the connection is closed... */
  lingerBytes: number;
  /** ...while bytes keep coming (a pause this long ends it)... */
  lingerIdleMs: number;
  /** ...and for at most this long. */
  lingerMs: number;
}

export const CONNECTION_LIMITS: ConnectionLimits = {
  clientIdleMs: 60_000,
  keepAliveMs: 5_000,
  keepAliveGraceMs: 60_000,
  headersMs: 60_000,
  requestMs: 30 * 60_000,
  lingerBytes: 64 * 1024 * 1024,
  lingerIdleMs: 10_000,
  lingerMs: 60_000,
};

interface HttpSocket extends Socket {
  /** Node's parser of this connection; `incoming` is the request it is reading. */
  parser?: { incoming?: IncomingMessage | null } | null;
  /** The response this connection is writing. */
  _httpMessage?: ServerResponse | null;
}

const lingering = new WeakSet<Socket>();

/** Applies the limits to a listening server and takes over how its connections end. */
export function guardConnections(server: Server, limits: ConnectionLimits = CONNECTION_LIMITS): void {
  server.requestTimeout = limits.requestMs;
  server.headersTimeout = limits.headersMs;
  server.keepAliveTimeout = limits.keepAliveMs;
  server.timeout = limits.clientIdleMs;
  server.on('connection', (socket: Socket) => {
    // Node calls destroySoon() once the last answer on a connection is written (Connection: close).
    socket.destroySoon = () => lingeringClose(socket as HttpSocket, limits);
  });
  // With a listener here Node no longer destroys a quiet connection itself: onQuiet decides.
  server.on('timeout', (socket: Socket) => onQuiet(socket as HttpSocket, limits));
}

/** Half-close after the answer, read and discard what the client still sends (bounded), then close. */
function lingeringClose(socket: HttpSocket, limits: ConnectionLimits): void {
  if (socket.destroyed) return;
  const req = socket.parser?.incoming;
  if (!req || req.complete || socket.readableEnded) {
    // Nothing more is coming: Node's own destroySoon.
    if (socket.writable) socket.end();
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
    return;
  }
  lingering.add(socket);
  // A body parser that gave up may have left the request paused: its bytes must keep flowing to be discarded.
  req.removeAllListeners('data');
  req.resume();
  socket.end(); // FIN once the answer is out: the client has all of it
  const close = () => socket.destroy();
  const cap = setTimeout(close, limits.lingerMs);
  cap.unref();
  socket.once('close', () => clearTimeout(cap));
  // The body has all arrived or the client finished sending: close once our answer has been handed over in full.
  const done = () => (socket.writableFinished ? close() : socket.once('finish', close));
  socket.once('end', done);
  req.once('end', done);
  // Counted on the request: a 'data' listener on the socket would take its bytes away from Node's parser.
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.lingerBytes) close();
  });
  socket.setTimeout(limits.lingerIdleMs);
}

/** A connection had no traffic for its timeout: decide whether the client is slow, idle, or the server busy. */
function onQuiet(socket: HttpSocket, limits: ConnectionLimits): void {
  if (lingering.has(socket)) return void socket.destroy();
  const read = socket.bytesRead;
  const written = socket.bytesWritten;
  // Timers run before the event loop polls sockets: look again once whatever arrived meanwhile has been read, two
  // turns on (a client in this very process may have written its request after this turn's poll).
  afterTwoPolls(() => {
    if (socket.destroyed || socket.bytesRead !== read || socket.bytesWritten !== written) return;
    if (socket.writableLength > 0) return void socket.destroy(); // the client stopped reading our answer
    const req = socket.parser?.incoming;
    const res = socket._httpMessage;
    if (req && !req.complete) {
      // Bytes we have not consumed yet, or a body we paused (a slow disk): the wait is ours, not the client's.
      if (req.readableFlowing === false || req.readableLength > 0) return;
      // The client owes us the rest of its request: a slow client, told so when nothing was answered yet.
      if (res && !res.headersSent) return requestTimedOut(res);
      return void socket.destroy();
    }
    // A complete request being answered: the wait is the server's, not the client's.
    if (res) return;
    idleBetweenRequests(socket, limits);
  });
}

/** The bytes read when a connection's keep-alive grace began: the same count at the next quiet spell ends it. */
const graced = new WeakMap<Socket, number>();

/** Idle past the advertised keep-alive: closed once the grace has passed too with no new request. */
function idleBetweenRequests(socket: HttpSocket, limits: ConnectionLimits): void {
  if (graced.get(socket) === socket.bytesRead) return void socket.destroy();
  graced.set(socket, socket.bytesRead);
  socket.setTimeout(limits.keepAliveGraceMs);
}

const afterTwoPolls = (then: () => void) => setImmediate(() => setImmediate(then));

function requestTimedOut(res: ServerResponse): void {
  const body = JSON.stringify(
    errorBody(new ApiError(408, 'request_timeout', 'No byte of the request arrived for a minute; send it again.')),
  );
  res.writeHead(408, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.end(body);
}
