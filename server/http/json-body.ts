// JSON request bodies for the non-upload routes: parsed by koa-body with a small limit (loaded on first use).
import type { Context, Middleware, Next } from 'koa';
import { loadKoaBody } from './body-parser.ts';
import { ApiError } from './errors.ts';

/** The largest JSON body any route accepts (uploads have their own limit, MAX_UPLOAD_MB). */
export const MAX_JSON_BYTES = 256 * 1024;

let parser: Middleware | null = null;
async function jsonParser(): Promise<Middleware> {
  const koaBody = await loadKoaBody();
  parser ??= koaBody({
    json: true,
    jsonStrict: true,
    jsonLimit: MAX_JSON_BYTES,
    multipart: false,
    urlencoded: false,
    text: false,
  }) as Middleware;
  return parser;
}

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
  const parse = parser ?? (await jsonParser());
  try {
    await parse(ctx, async () => {
      parsed = true;
    });
  } catch (err) {
    // raw-body's "request entity too large": a body without a declared length that grew past the limit.
    if (!parsed && (err as { status?: number }).status === 413) throw jsonTooLarge();
    throw err;
  }
  checkText(ctx.request.body);
  return next();
}

/**
 * How deeply a JSON body may nest. The deepest body any operation takes is a few levels (a quote's settings);
 * 64 leaves room for any real one, and a check deeper than the stack holds would be the server's own failure.
 */
export const MAX_JSON_DEPTH = 64;

// With the u flag a surrogate pair is one code point, so only an unpaired half matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Refuses a body nested deeper than MAX_JSON_DEPTH, or one whose key or string holds a lone surrogate: JSON allows
 * a lone "\\uD800" escape, but it is no character, and no database or text field can store it. The walk is
 * iterative (an explicit stack), so no body can overflow the server's own stack whatever its depth.
 */
function checkText(body: unknown): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) throw loneSurrogate(path);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) throw tooDeep(path);
    const entries = Object.entries(value);
    // Pushed in reverse so the first offending field in document order is the one named.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, inner] = entries[i]!;
      const at = path ? `${path}.${key}` : key;
      if (LONE_SURROGATE.test(key)) throw loneSurrogate(at);
      stack.push({ value: inner, path: at, depth: depth + 1 });
    }
  }
}

const loneSurrogate = (field: string) =>
  new ApiError(
    400,
    'invalid_text',
    `${field || 'body'}: the text holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape), which is not a character.`,
    { field: field || 'body' },
  );

const tooDeep = (field: string) =>
  new ApiError(400, 'json_too_deep', `${field || 'body'}: the JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`, {
    field: field || 'body',
    max_depth: MAX_JSON_DEPTH,
  });
