// Idempotency-Key on the POSTs that create something (docs/security.md, "Idempotent requests"), as payment APIs
// do: the first request with a key runs and its answer is kept for 24 hours; a retry with the same key and the
// same request gets that answer again (Idempotent-Replayed: true) and creates nothing; the same key with another
// request is 422 idempotency_key_reused; a retry while the first is still running is 409 idempotency_key_in_use.
// Keys are scoped to the account, and for widget calls to the widget key and the shopper as well.
// Answers kept: every 2xx and every 4xx but 409 and 429 (those may clear, so a retry runs afresh); a 5xx or a
// request that broke off releases the key.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Context, Next } from 'koa';
import type { Auth } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { ApiError, errorBody } from '../http/index.ts';
import { claimKey, completeKey, type KeyRef, keyRow, purgeExpired, releaseKey } from './sql.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const KEY_TTL_MS = 24 * 60 * 60_000;
/** How long a running request holds its key; past it (its process died) a retry of the same request may run. */
export const IN_FLIGHT_LEASE_MS = 10 * 60_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const PURGE_EVERY_MS = 60 * 60_000;

type Ctx = Context & { state: AppState & { upload?: { path: string; originalName: string | null } } };
/** What makes two requests "the same": a digest of everything the handler reads. */
export type Fingerprint = (ctx: Ctx) => Promise<string>;

const sha256 = () => createHash('sha256');

function requestLine(ctx: Ctx): string {
  const query = [...new URLSearchParams(ctx.querystring).entries()]
    .sort()
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return `${ctx.method} ${ctx.path}?${query}`;
}

/** JSON routes: method, path, query and the parsed body. */
export const jsonFingerprint: Fingerprint = async (ctx) =>
  sha256()
    .update(requestLine(ctx))
    .update('\n')
    .update(JSON.stringify(ctx.request.body ?? null))
    .digest('hex');

/** Uploads: method, path, query, the form fields, the file name and the file's bytes. */
export const uploadFingerprint: Fingerprint = async (ctx) => {
  const hash = sha256()
    .update(requestLine(ctx))
    .update('\n')
    .update(JSON.stringify(ctx.request.body ?? null));
  const upload = ctx.state.upload;
  if (upload) {
    hash.update(`\n${upload.originalName ?? ''}\n`);
    for await (const chunk of createReadStream(upload.path)) hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
};

function scopeOf(auth: Auth): string {
  return auth.via === 'widget' ? `widget:${auth.widgetKeyId}:${auth.shopperHash ?? '-'}` : 'account';
}

function keyFrom(ctx: Ctx): string | null {
  const raw = ctx.get(IDEMPOTENCY_HEADER);
  if (raw === '') return null;
  if (!KEY_PATTERN.test(raw)) {
    throw new ApiError(
      400,
      'invalid_idempotency_key',
      `${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters (e.g. a UUID).`,
      {
        fields: [{ field: IDEMPOTENCY_HEADER, message: 'must be 1 to 255 visible ASCII characters' }],
      },
    );
  }
  return raw;
}

const keptStatus = (status: number) => status < 500 && status !== 409 && status !== 429;

export function idempotent(deps: Pick<Deps, 'db' | 'log' | 'now'>, fingerprint: Fingerprint = jsonFingerprint) {
  let lastPurge = 0;
  return async (ctx: Ctx, next: Next) => {
    const key = keyFrom(ctx);
    if (key === null) return next();
    const ref: KeyRef = { accountId: ctx.state.auth.account.id, scope: scopeOf(ctx.state.auth), key };
    const print = await fingerprint(ctx);
    const now = deps.now();
    if (now.getTime() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = now.getTime();
      purgeExpired(deps.db, now).catch((err) => deps.log.error('idempotency: purging expired keys failed', err));
    }
    for (let tries = 0; ; tries++) {
      const claimed = await claimKey(
        deps.db,
        ref,
        print,
        now,
        new Date(now.getTime() + IN_FLIGHT_LEASE_MS),
        new Date(now.getTime() + KEY_TTL_MS),
      );
      if (claimed) return runAndKeep(deps, ctx, next, ref);
      const row = await keyRow(deps.db, ref);
      if (!row || row.expires_at <= now) {
        if (tries < 2) continue; // gone or expired between the two statements: claim again
        throw new ApiError(
          409,
          'idempotency_key_in_use',
          'This Idempotency-Key is being claimed by another request; retry shortly.',
          undefined,
          { 'Retry-After': '1' },
        );
      }
      if (row.fingerprint !== print) {
        throw new ApiError(
          422,
          'idempotency_key_reused',
          `This ${IDEMPOTENCY_HEADER} was already used for a different request; use a new key for a new request.`,
          {
            fields: [{ field: IDEMPOTENCY_HEADER, message: 'was already used for a different request' }],
          },
        );
      }
      if (row.state === 'in_flight') {
        const retryAfter = Math.max(1, Math.ceil(Math.min(row.locked_until.getTime() - now.getTime(), 5000) / 1000));
        throw new ApiError(
          409,
          'idempotency_key_in_use',
          `A request with this ${IDEMPOTENCY_HEADER} is still running; retry to get its answer.`,
          undefined,
          { 'Retry-After': String(retryAfter) },
        );
      }
      ctx.status = row.status_code!;
      ctx.type = 'application/json';
      ctx.body = row.response!;
      if (row.location) ctx.set('Location', row.location);
      ctx.set(REPLAYED_HEADER, 'true');
      return;
    }
  };
}

async function runAndKeep(deps: Pick<Deps, 'db'>, ctx: Ctx, next: Next, ref: KeyRef): Promise<void> {
  try {
    await next();
  } catch (err) {
    if (err instanceof ApiError && keptStatus(err.status)) {
      await completeKey(deps.db, ref, { status: err.status, body: JSON.stringify(errorBody(err)), location: null });
    } else {
      await releaseKey(deps.db, ref).catch(() => {}); // the error that matters is the one being thrown
    }
    throw err;
  }
  const body = ctx.body;
  const json =
    body !== null &&
    typeof body === 'object' &&
    !Buffer.isBuffer(body) &&
    typeof (body as { pipe?: unknown }).pipe !== 'function';
  if (json && keptStatus(ctx.status)) {
    await completeKey(deps.db, ref, {
      status: ctx.status,
      body: JSON.stringify(body),
      location: ctx.response.get('Location') || null,
    });
  } else {
    await releaseKey(deps.db, ref);
  }
}
