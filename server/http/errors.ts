// Typed API errors, turned into the JSON error shape (docs/api-conventions.md) in exactly one place (answerError,
// which the request edge calls for every request).

import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'koa';

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** 400/422 naming every offending field. */
export class ValidationError extends ApiError {
  constructor(problems: FieldProblem[], status = 400, code = 'validation_failed') {
    const first = problems[0];
    if (!first) throw new Error('ValidationError needs at least one problem');
    const message =
      problems.length === 1
        ? `${first.field}: ${first.message}`
        : `${problems.length} fields are invalid; first: ${first.field}: ${first.message}`;
    super(status, code, message, { fields: problems });
  }
}

export const notFound = (what: string, id?: string) =>
  new ApiError(404, 'not_found', id ? `No ${what} with id ${id} exists in this account.` : `${what} not found.`);

export const unauthorized = (message: string) =>
  new ApiError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer realm="slicequote"' });

export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);

interface HttpishError {
  status?: number;
  statusCode?: number;
  httpCode?: number;
  code?: string | number;
  expose?: boolean;
  message?: string;
}

// PostgreSQL refuses U+0000 in text (22021) and in jsonb (22P05). No field of the API accepts it, so a request
// carrying one, in an id, a name or any other text, is bad input and not a server fault.
const NUL_REFUSED = new Set(['22021', '22P05']);

/** Errors thrown by libraries (koa-body/formidable, co-body, the database) carry a status or code; map them to our shape. */
function fromLibrary(err: HttpishError, maxUploadBytes: number): ApiError | null {
  if (typeof err.code === 'string' && NUL_REFUSED.has(err.code)) {
    return new ApiError(
      400,
      'invalid_text',
      'The request contains text with the NUL character (U+0000), which no field accepts.',
    );
  }
  const status = err.httpCode ?? err.status ?? err.statusCode;
  if (!status || status < 400 || status >= 500) return null;
  if (status === 413 || err.code === 1009 || err.code === 1016) return tooLarge(maxUploadBytes);
  if (status === 400 && /JSON|Unexpected|token/i.test(err.message ?? '')) {
    return new ApiError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (status === 404) return new ApiError(404, 'not_found', 'Not found.');
  if (status === 405) return new ApiError(405, 'method_not_allowed', `This route does not accept that method.`);
  if (status === 415) return new ApiError(415, 'unsupported_media_type', err.message ?? 'Unsupported content type.');
  return new ApiError(status, 'bad_request', err.expose ? (err.message ?? 'Bad request.') : 'Bad request.');
}

export const tooLarge = (maxBytes: number) =>
  new ApiError(
    413,
    'file_too_large',
    `The file exceeds the upload limit of ${Math.round(maxBytes / 1048576)} MB (${maxBytes} bytes).`,
    {
      field: 'file',
      max_bytes: maxBytes,
    },
  );

/** The JSON body of an error answer (the one shape of every error). */
export const errorBody = (api: ApiError) => ({
  error: { code: api.code, message: api.message, ...(api.details ? { details: api.details } : {}) },
});

export const routeNotFound = (ctx: Context) =>
  new ApiError(404, 'route_not_found', `No route for ${ctx.method} ${ctx.path}.`);

/** Answers a thrown error in the one error shape; anything not ours nor a library's known refusal is a logged 500. */
export function answerError(
  ctx: Context,
  thrown: unknown,
  maxUploadBytes: number,
  log: (msg: string, err: unknown) => void,
): void {
  const err = thrown instanceof ApiError ? thrown : fromLibrary(thrown as HttpishError, maxUploadBytes);
  if (!err) log(`unhandled error on ${ctx.method} ${ctx.path} (request ${ctx.state.requestId ?? '-'})`, thrown);
  const api = err ?? new ApiError(500, 'internal_error', 'Something went wrong on our side; the error was logged.');
  ctx.status = api.status;
  for (const [name, value] of Object.entries(api.headers ?? {})) ctx.set(name, value);
  ctx.body = errorBody(api);
}

/**
 * Requests Node's HTTP parser refuses before the app sees them (a URL or headers over the size limit, a
 * malformed request line) answer the same error shape as everything else. Register on the server's clientError.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [status, error] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          {
            code: 'headers_too_large',
            message: 'The request line or headers are too large (the URL with its query, or a header).',
          },
        ]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, { code: 'request_timeout', message: 'The request did not arrive in time; send it again.' }]
        : [400, { code: 'bad_request', message: 'The HTTP request is malformed.' }];
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
