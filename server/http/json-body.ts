// JSON request bodies for the non-upload routes: parsed by koa-body with a small limit.
import { koaBody } from 'koa-body';
import type { Context, Next } from 'koa';
import { ApiError } from './errors.ts';

/** The largest JSON body any route accepts (uploads have their own limit, MAX_UPLOAD_MB). */
export const MAX_JSON_BYTES = 256 * 1024;

const parse = koaBody({
  json: true,
  jsonStrict: true,
  jsonLimit: MAX_JSON_BYTES,
  multipart: false,
  urlencoded: false,
  text: false,
});

export const jsonTooLarge = () =>
  new ApiError(413, 'json_too_large', `The JSON body exceeds the limit of ${MAX_JSON_BYTES / 1024} KB.`, {
    max_bytes: MAX_JSON_BYTES,
  });

export async function jsonBody(ctx: Context, next: Next) {
  const declared = Number(ctx.get('content-length') || 0);
  const hasBody = declared > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('application/json')) {
    throw new ApiError(415, 'json_required', 'Send the body as application/json.');
  }
  if (declared > MAX_JSON_BYTES) throw jsonTooLarge();
  let parsed = false;
  try {
    await parse(ctx, async () => {
      parsed = true;
    });
  } catch (err) {
    // raw-body's "request entity too large": a body without a declared length that grew past the limit.
    if (!parsed && (err as { status?: number }).status === 413) throw jsonTooLarge();
    throw err;
  }
  const field = loneSurrogateAt(ctx.request.body, '');
  if (field !== null) {
    throw new ApiError(
      400,
      'invalid_text',
      `${field || 'body'}: the text holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape), which is not a character.`,
      { field: field || 'body' },
    );
  }
  return next();
}

// With the u flag a surrogate pair is one code point, so only an unpaired half matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Where the first key or string holding a lone surrogate is (dotted, like validation errors: "a.b.0"), or null.
 * JSON allows a lone "\\uD800" escape, but it is no character: no database or text field can store it.
 */
function loneSurrogateAt(value: unknown, path: string): string | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (LONE_SURROGATE.test(key)) return at;
    const found = loneSurrogateAt(inner, at);
    if (found !== null) return found;
  }
  return null;
}
