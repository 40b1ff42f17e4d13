// The list convention (docs/api-conventions.md): page (from 1), limit (default 20, max 100) -> {data, page, limit, total, has_more}.
import type { Context } from 'koa';
import { ValidationError } from './errors.ts';

export interface PageRequest {
  page: number;
  limit: number;
  offset: number;
}

function positiveInt(ctx: Context, name: string, fallback: number, max: number) {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  const text = Array.isArray(raw) ? (raw[0] ?? '') : raw;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new ValidationError([{ field: name, message: `must be a whole number from 1 to ${max}` }]);
  }
  return Number(text);
}

export function pageRequest(ctx: Context): PageRequest {
  const page = positiveInt(ctx, 'page', 1, 1_000_000);
  const limit = positiveInt(ctx, 'limit', 20, 100);
  return { page, limit, offset: (page - 1) * limit };
}

export function pageResponse<T>(data: T[], req: PageRequest, total: number) {
  return { data, page: req.page, limit: req.limit, total, has_more: req.offset + data.length < total };
}
