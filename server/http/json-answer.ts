// An answer whose JSON is written out already (a constant, or bytes a route put together), with the very
// Content-Type Koa gives an object body, set as a header: Koa would look 'json' up in the MIME table per answer.
import type { Context } from 'koa';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function answerJson(ctx: Context, json: string | Buffer): void {
  ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = json;
}

/**
 * JSON kept in parts (the history's records, each kept as bytes, and the page around them), written to the socket
 * as the parts are, in one write: copied together into one buffer first, a page of the history took about a tenth
 * more of the server's CPU (docs/performance.md). Koa is told not to respond (ctx.respond = false), so this answers
 * as Koa answers a buffer: status 200, the Content-Type and Content-Length, no body to a HEAD request, and nothing
 * to a client already gone.
 */
export function answerJsonParts(ctx: Context, parts: readonly Buffer[]): void {
  let length = 0;
  for (const part of parts) length += part.length;
  ctx.status = 200;
  ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  ctx.res.setHeader('Content-Length', length);
  ctx.respond = false;
  const res = ctx.res;
  if (!ctx.writable || ctx.method === 'HEAD') {
    res.end();
    return;
  }
  res.cork(); // the parts leave together, when end() uncorks
  for (const part of parts) res.write(part);
  res.end();
}
