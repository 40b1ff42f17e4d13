// JSON request bodies for the non-upload routes: parsed by koa-body with a small limit.
import { koaBody } from 'koa-body';
import type { Context, Next } from 'koa';
import { ApiError } from './errors.ts';

const parse = koaBody({ json: true, jsonStrict: true, jsonLimit: '256kb', multipart: false, urlencoded: false, text: false });

export async function jsonBody(ctx: Context, next: Next) {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('application/json')) {
    throw new ApiError(415, 'json_required', 'Send the body as application/json.');
  }
  return parse(ctx, next);
}
