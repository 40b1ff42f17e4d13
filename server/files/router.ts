// /v2/file: upload (authenticated and public), upload ids, download, delete. Also /v2/user/uploads.
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { Auth } from '../accounts/access/index.ts';
import { type AccessPorts, ANYONE, API, API_OR_WIDGET, allow } from '../accounts/access/index.ts';
import { addressKey, hashShopperToken, newShopperToken, SHOPPER_TOKEN_HEADER } from '../accounts/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { ApiError, jsonBody, notFound, pageRequest, pageResponse, routeParam, ValidationError } from '../http/index.ts';
import { idempotent, uploadFingerprint } from '../idempotency/index.ts';
import { newId } from '../ids.ts';
import {
  chargeToUploadOwner,
  chargeUploadId,
  checkStorageQuota,
  precheckWidgetStorage,
  reserveWidgetStorage,
} from '../limits/index.ts';
import { validateBody } from '../openapi/index.ts';
import { UNITS, type Unit, unitNamed } from '../placement/index.ts';
import type { UploadListener } from './events.ts';
import { fileForCaller, type IngestPorts, ingestUpload, presentFile, removeFile, rescaleFile } from './service.ts';
import { fileById, listFiles } from './sql.ts';
import { MULTIPART_ENVELOPE_BYTES, type UploadedFile, uploadBody } from './upload-body.ts';
import { consumeUploadId, insertUploadId, type UploadIdRow, uploadIdById } from './upload-ids-sql.ts';

type State = AppState & { upload: UploadedFile };

const badUnit = () => new ValidationError([{ field: 'unit', message: `must be one of ${UNITS.join(', ')}` }]);

/** `?unit=` is checked before the body is read; a multipart field `unit` (the same values) may say it instead. */
async function unitQuery(ctx: Context, next: Next) {
  if (ctx.query.unit !== undefined && !unitNamed(ctx.query.unit)) throw badUnit();
  await next();
}

function statedUnit(ctx: Context): Unit | undefined {
  const raw = (ctx.request.body as Record<string, unknown> | undefined)?.unit;
  const field = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const given = [...field, ...(ctx.query.unit === undefined ? [] : [ctx.query.unit])].map(unitNamed);
  if (!given.every((u) => u !== undefined)) throw badUnit();
  if (new Set(given).size > 1)
    throw new ValidationError([{ field: 'unit', message: 'was given more than once with different values' }]);
  return given[0];
}

/** A shopper deletes only their own upload, and not once it is in a cart: the shop needs it to print. */
const uploadIdUsed = () =>
  new ApiError(410, 'upload_id_used', 'This upload id has already been used; fetch a new one.');
const uploadIdExpired = () => new ApiError(410, 'upload_id_expired', 'This upload id has expired; fetch a new one.');

async function shopperMayDelete(deps: Pick<Deps, 'db'>, auth: Auth, fileId: string): Promise<void> {
  const file = await fileForCaller(deps, auth, fileId);
  const [inCart] = await deps.db.query('SELECT 1 FROM cart_lines WHERE file_id = $1 LIMIT 1', [file.id]);
  if (inCart) throw new ApiError(409, 'file_in_cart', 'This upload is in a cart; the shop keeps it.');
}

// Shopper sessions are free to mint: the client address waits its turn to be parsed, and pays for prefetches.
const shopperCaller = (ctx: Context) => `ip:${addressKey(ctx.ip)}`;

/** What ingesting needs of the received file. */
const receivedFile = (upload: UploadedFile) => ({
  tmpPath: upload.path,
  originalName: upload.originalName,
  sha256: upload.sha256,
  stream: upload.stream,
});

/** `uploads` hears of each shopper's upload (quotes prefetch its likely slices). */
/** Uploads (ingested, charged to the limits, told to the listeners), downloads, rescales and removals. */
type FilesRouterPorts = AccessPorts & IngestPorts & Pick<Deps, 'log' | 'limits' | 'jobs'>;

export function filesRouter(deps: FilesRouterPorts, uploads: UploadListener) {
  const router = new Router<State>();
  const shopperSessionEnd = () => new Date(deps.now().getTime() + deps.config.uploadIdTtlSeconds * 1000);

  router.get('/v2/user/uploads', allow(deps, API), async (ctx) => {
    const page = pageRequest(ctx);
    const { rows, total } = await listFiles(deps.db, ctx.state.auth.account.id, page.limit, page.offset);
    ctx.body = pageResponse(rows.map(presentFile), page, total);
  });

  // Over the storage allowance by the declared length alone (less a generous multipart envelope, so a file
  // that fits is never refused here): refused before the body is read. The exact check follows the upload.
  const storagePrecheck = (accountOf: (ctx: Context) => string) => async (ctx: Context, next: Next) => {
    const declared = Number(ctx.get('content-length') || 0) - MULTIPART_ENVELOPE_BYTES;
    if (declared > 0) await checkStorageQuota(deps, accountOf(ctx), declared);
    await next();
  };

  // The same early refusal for a shopper's upload beyond the widget key's storage budget.
  const widgetStoragePrecheck = async (ctx: Context, next: Next) => {
    const up = ctx.state.publicUpload!;
    const declared = Number(ctx.get('content-length') || 0) - MULTIPART_ENVELOPE_BYTES;
    if (up.widget_key_id && declared > 0)
      await precheckWidgetStorage(deps.db, up.account_id, up.widget_key_id, declared);
    await next();
  };

  router.post(
    '/v2/file',
    allow(deps, API, 'upload'),
    unitQuery,
    storagePrecheck((ctx) => ctx.state.auth.account.id),
    uploadBody(deps, (ctx) => ctx.state.auth.caller),
    idempotent(deps, uploadFingerprint),
    async (ctx) => {
      const row = await ingestUpload(deps, {
        statedUnit: statedUnit(ctx),
        accountId: ctx.state.auth.account.id,
        caller: ctx.state.auth.caller,
        tokenId: ctx.state.auth.tokenId,
        source: 'api',
        uploadId: null,
        ...receivedFile(ctx.state.upload),
      });
      ctx.status = 201;
      ctx.body = presentFile(row);
    },
  );

  // A widget key's upload belongs to the shopper: their token comes back (new when none was sent) and must
  // accompany every later call about that file and its quotes (docs/widget.md, "Shopper sessions").
  router.get('/v2/file/upload-id', allow(deps, API_OR_WIDGET), async (ctx) => {
    const { auth: caller } = ctx.state;
    const shopperToken = caller.via === 'widget' ? ctx.get(SHOPPER_TOKEN_HEADER) || newShopperToken() : null;
    const row = await insertUploadId(deps.db, {
      id: newId('up'),
      account_id: caller.account.id,
      token_id: caller.tokenId,
      widget_key_id: caller.widgetKeyId,
      shopper_hash: shopperToken && hashShopperToken(shopperToken),
      expires_at: shopperSessionEnd(),
    });
    ctx.body = {
      upload_id: row.id,
      expires_at: row.expires_at.toISOString(),
      upload_url: `${deps.config.publicUrl}/v2/file/public/${row.id}`,
      ...(shopperToken ? { shopper_token: shopperToken } : {}),
    };
  });

  // Called from shop pages on any origin; the upload id is the credential, with its own rate-limit counter. The id
  // is checked before the body is read, so an invalid id never costs a 200 MB transfer.
  router.post(
    '/v2/file/public/:upload_id',
    allow(deps, ANYONE, 'upload', { crossOrigin: true }),
    async (ctx, next) => {
      ctx.state.uploadId = routeParam(ctx, 'upload_id');
      await chargeUploadId(deps, ctx, ctx.state.uploadId);
      await next();
    },
    unitQuery,
    async (ctx, next) => {
      const up = await uploadIdById(deps.db, ctx.state.uploadId!, deps.now());
      if (!up) throw new ApiError(404, 'upload_id_not_found', 'This upload id does not exist.');
      if (up.used_at) throw uploadIdUsed();
      if (up.expired) throw uploadIdExpired();
      chargeToUploadOwner(ctx, up);
      ctx.state.publicUpload = up;
      await next();
    },
    storagePrecheck((ctx) => ctx.state.publicUpload.account_id),
    widgetStoragePrecheck,
    uploadBody(deps, shopperCaller),
    async (ctx) => {
      const up = ctx.state.publicUpload!;
      const caller = shopperCaller(ctx);
      const row = await ingestUpload(deps, {
        statedUnit: statedUnit(ctx),
        accountId: up.account_id,
        caller,
        tokenId: up.token_id,
        source: 'public',
        uploadId: up.id,
        ...receivedFile(ctx.state.upload),
        beforeCommit: async (tx, fileId, size) => {
          const consumed = await consumeUploadId(tx, up.id, fileId, deps.now());
          if (consumed === 'used') throw uploadIdUsed();
          if (consumed === 'expired') throw uploadIdExpired();
          // A shopper's upload must also fit the widget key's storage budget (docs/limits.md, "Widget budgets").
          if (up.widget_key_id) await reserveWidgetStorage(tx, up.account_id, up.widget_key_id, size);
        },
      });
      // A shopper's upload: its likely slices start now, so the first price is a cache hit (docs/instant-price.md).
      if (up.widget_key_id)
        uploads.shopperUploaded(row, { widgetKeyId: up.widget_key_id, expiresAt: shopperSessionEnd(), caller });
      ctx.status = 201;
      ctx.body = presentFile(row);
    },
  );

  router.get('/v2/file/:file_id', allow(deps, API), async (ctx) => {
    const row = await fileById(deps.db, ctx.state.auth.account.id, routeParam(ctx, 'file_id'));
    if (!row) throw notFound('file', ctx.params.file_id);
    ctx.type = row.content_type;
    ctx.length = row.size_bytes;
    const ascii = row.name.replace(/[^\x20-\x7e]/g, '_');
    ctx.set('Content-Disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(row.name)}`);
    ctx.set('X-Content-SHA256', row.sha256);
    ctx.body = deps.storage.openOriginal(row.id);
  });

  // Also open to a widget key, for the shopper's own upload (the widget's "scale ×25.4?" offer).
  router.post('/v2/file/scale/:file_id', allow(deps, API_OR_WIDGET), jsonBody, async (ctx) => {
    const change = validateBody('FileScaleRequest', ctx.request.body);
    const file = await fileForCaller(deps, ctx.state.auth, routeParam(ctx, 'file_id'));
    const rescaled = await rescaleFile(deps, file, change);
    // A new size is a new slice: prefetch again for the shopper's likely choices.
    const { auth } = ctx.state;
    if (auth.via === 'widget')
      uploads.shopperUploaded(rescaled, {
        widgetKeyId: auth.widgetKeyId,
        expiresAt: shopperSessionEnd(),
        caller: auth.caller,
      });
    ctx.body = presentFile(rescaled);
  });

  // Also open to a widget key, for the shopper's own upload that was never added to a cart: the widget deletes an
  // upload it sent while its own parse of the file was still running, when that parse refuses the file.
  router.delete('/v2/file/:file_id', allow(deps, API_OR_WIDGET), async (ctx) => {
    const { auth } = ctx.state;
    if (auth.via === 'widget') await shopperMayDelete(deps, auth, routeParam(ctx, 'file_id'));
    const row = await removeFile(deps, ctx.state.auth.account.id, ctx.state.auth.tokenId, routeParam(ctx, 'file_id'));
    if (!row) throw notFound('file', ctx.params.file_id);
    ctx.body = { file_id: row.id, deleted: true };
  });

  return router;
}

declare module '../deps.ts' {
  interface AppState {
    /** A public upload's upload id, as the route's parameter gives it: its rate-limit counter and its row use it. */
    uploadId?: string;
    /** A public upload's upload id row, found before the body is read. */
    publicUpload?: UploadIdRow;
  }
}
