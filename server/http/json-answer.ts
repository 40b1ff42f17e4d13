// An answer whose JSON is written out already (a constant, or bytes a route put together), with the very
// Content-Type Koa gives an object body, set as a header: Koa would look 'json' up in the MIME table per answer.
import type { Context } from 'koa';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function answerJson(ctx: Context, json: string | Buffer): void {
  ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = json;
}
