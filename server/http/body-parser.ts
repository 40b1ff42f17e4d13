// koa-body (with formidable and co-body) is a large module for what most requests never use: it is loaded by the
// first request that carries a body to parse, not by every process at start.
import type { koaBody } from 'koa-body';

let loaded: Promise<typeof koaBody> | null = null;

/** koa-body's middleware factory, loaded once on first use. */
export const loadKoaBody = (): Promise<typeof koaBody> => {
  loaded ??= import('koa-body').then((m) => m.koaBody);
  return loaded;
};
