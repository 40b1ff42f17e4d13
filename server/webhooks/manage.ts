// The rules behind the /v2/webhooks routes: save-time URL checks, token links, creation, update, resend.

import { tokenById } from '../accounts/index.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError, notFound, ValidationError } from '../http/index.ts';
import { newId } from '../ids.ts';
import {
  accountFacingReason,
  PRIVATE_RECEIVERS_DOCS,
  PRIVATE_RECEIVERS_HINT,
  PRIVATE_RECEIVERS_SETTING,
} from './reasons.ts';
import { generateSecret, signBody } from './signature.ts';
import {
  countWebhooks,
  deliveryById,
  insertDelivery,
  insertWebhook,
  updateWebhook,
  type WebhookPatch,
  type WebhookRow,
  webhookById,
} from './sql.ts';
import { type AddressPolicy, type Resolver, resolveSafeTarget, UnsafeUrlError } from './url-guard.ts';

/** A generous cap: every webhook multiplies each event, so an account cannot fan one event out without bound. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

export interface WebhookCreate {
  url: string;
  events: string[];
  secret?: string;
  token_id?: string | null;
}

export interface WebhookUpdate {
  url?: string;
  events?: string[];
  active?: boolean;
  token_id?: string | null;
  secret?: string;
  rotate_secret?: boolean;
}

export interface ManageContext {
  /** Endpoints are written to the database; a ping or a resend wakes the pump to deliver it. */
  deps: Pick<Deps, 'db' | 'events'>;
  policy: AddressPolicy;
  resolver?: Resolver;
}

/** The endpoint rules at save time (docs/webhooks.md): the same check as before every attempt, including DNS. 400 with the guard's code. */
export async function checkReceiverUrl(ctx: ManageContext, url: string): Promise<void> {
  try {
    await resolveSafeTarget(url, ctx.policy, ctx.resolver);
  } catch (err) {
    if (!(err instanceof UnsafeUrlError)) throw err;
    const reason = accountFacingReason(err.reason);
    if (err.code !== 'url_private_address')
      throw new ApiError(400, err.code, `url: ${reason}`, { fields: [{ field: 'url', message: reason }] });
    // A private address is refused by the operator's setting, not by a mistake in the URL: name the setting.
    const message = `${reason}; ${PRIVATE_RECEIVERS_HINT}`;
    throw new ApiError(400, err.code, `url: ${message}`, {
      fields: [{ field: 'url', message }],
      setting: PRIVATE_RECEIVERS_SETTING,
      docs: PRIVATE_RECEIVERS_DOCS,
    });
  }
}

/** A webhook may be linked only to a live token of the same account; anything else reads as "no such token". */
async function checkTokenLink(db: Queryable, accountId: string, tokenId: string | null | undefined): Promise<void> {
  if (tokenId === undefined || tokenId === null) return;
  const token = await tokenById(db, tokenId);
  if (!token || token.account_id !== accountId || token.revoked_at) {
    throw new ValidationError([{ field: 'token_id', message: 'is not a live API token of this account' }]);
  }
}

function uniqueEvents(events: string[]): string[] {
  return [...new Set(events)];
}

export async function createWebhook(ctx: ManageContext, accountId: string, body: WebhookCreate) {
  const { db } = ctx.deps;
  await checkTokenLink(db, accountId, body.token_id);
  await checkReceiverUrl(ctx, body.url);
  if ((await countWebhooks(db, accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
    throw new ApiError(
      409,
      'webhook_limit_reached',
      `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first.`,
    );
  }
  const secret = body.secret ?? generateSecret();
  const row = await insertWebhook(db, {
    id: newId('wh'),
    account_id: accountId,
    url: body.url,
    events: uniqueEvents(body.events),
    secret,
    token_id: body.token_id ?? null,
  });
  return { row, secret };
}

/** Returns the updated row and, when the secret changed, the new secret (shown once). */
export async function changeWebhook(ctx: ManageContext, accountId: string, id: string, body: WebhookUpdate) {
  const { db } = ctx.deps;
  if (body.secret !== undefined && body.rotate_secret) {
    throw new ValidationError([
      { field: 'rotate_secret', message: 'cannot be combined with secret; send one of them' },
    ]);
  }
  if (!(await webhookById(db, accountId, id))) throw notFound('webhook', id);
  await checkTokenLink(db, accountId, body.token_id);
  if (body.url !== undefined) await checkReceiverUrl(ctx, body.url);
  const secret = body.rotate_secret ? generateSecret() : body.secret;
  const patch: WebhookPatch = {
    url: body.url,
    events: body.events && uniqueEvents(body.events),
    active: body.active,
    token_id: body.token_id,
    secret,
  };
  const row = await updateWebhook(db, accountId, id, patch);
  if (!row) throw notFound('webhook', id); // deleted meanwhile
  return { row, secret };
}

export async function ownWebhook(db: Queryable, accountId: string, id: string): Promise<WebhookRow> {
  const row = await webhookById(db, accountId, id);
  if (!row) throw notFound('webhook', id);
  return row;
}

/**
 * Resend: a new pending record with the same body bytes, signed with the webhook's secret as it is now
 * (after a rotation the receiver only knows the new one). The original record is left as it was.
 */
export async function resendDelivery(ctx: ManageContext, accountId: string, webhookId: string, deliveryId: string) {
  const { db } = ctx.deps;
  const hook = await ownWebhook(db, accountId, webhookId);
  const original = await deliveryById(db, hook.id, deliveryId);
  if (!original) throw notFound('delivery', deliveryId);
  if (!hook.active) {
    throw new ApiError(
      409,
      'webhook_inactive',
      'This webhook is inactive; activate it (PUT with "active": true) before resending.',
    );
  }
  const row = await insertDelivery(db, {
    id: newId('dlv'),
    webhook_id: hook.id,
    account_id: accountId,
    event_id: original.event_id,
    event: original.event,
    body: original.body,
    signature: signBody(hook.secret, original.body),
    resent_from: original.id,
  });
  ctx.deps.events.wake();
  return row;
}

/** The delivery event name of a test delivery; never a subscribable event (shared/webhook-events.ts). */
export const PING_EVENT = 'ping';

/** The bytes of a test delivery: the usual {event, timestamp, data} plus "test": true (docs/webhooks.md, ping). */
export function pingBody(hook: Pick<WebhookRow, 'id' | 'events'>, now: Date): string {
  return JSON.stringify({
    event: PING_EVENT,
    timestamp: now.toISOString(),
    test: true,
    data: {
      webhookId: hook.id,
      events: hook.events,
      message: 'A test delivery from slicequote: answer with any 2xx status. No quote, file or order is behind it.',
    },
  });
}

/**
 * "Send a test event": a pending delivery of the `ping` event, signed with the webhook's secret and delivered by
 * the same pump as every event (address rules at attempt time, retries, the delivery log).
 */
export async function pingWebhook(ctx: ManageContext, accountId: string, webhookId: string, now: Date) {
  const { db } = ctx.deps;
  const hook = await ownWebhook(db, accountId, webhookId);
  if (!hook.active) {
    throw new ApiError(
      409,
      'webhook_inactive',
      'This webhook is inactive; activate it (PUT with "active": true) before sending a test event.',
    );
  }
  const body = pingBody(hook, now);
  const row = await insertDelivery(db, {
    id: newId('dlv'),
    webhook_id: hook.id,
    account_id: accountId,
    event_id: newId('evt'),
    event: PING_EVENT,
    body,
    signature: signBody(hook.secret, body),
    resent_from: null,
  });
  ctx.deps.events.wake();
  return row;
}
