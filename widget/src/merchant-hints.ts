// Refusals only the merchant can mend (a key used on a page its settings do not allow) are explained in the
// page's console, where the merchant setting up the widget looks; the shopper sees plain words instead.
import type { WidgetError } from './errors.ts';

/** Each (code, key, origin) once per page, however many widgets or retries hit it. */
const warned = new Set<string>();

export function warnMerchant(err: WidgetError, key: string, origin = location.origin): void {
  const hint = HINTS[err.code];
  if (!hint || warned.has(`${err.code} ${key} ${origin}`)) return;
  warned.add(`${err.code} ${key} ${origin}`);
  console.warn(`<slice-quote>: ${hint(key, origin)}`);
}

const HINTS: Record<string, (key: string, origin: string) => string> = {
  origin_not_allowed: (key, origin) =>
    `the widget key ${key} does not allow this page's origin, ${origin}, so the shop cannot quote here. In the ` +
    `slicequote dashboard, Widget keys lists the key's allowed origins (and ${origin} among its refused ones): ` +
    `create a key whose allowed origins include ${origin} and put it in this element's key attribute, or open ` +
    'the page at an allowed origin. Scheme, host and port must match exactly: http://localhost:5173 and ' +
    'http://127.0.0.1:5173 are different origins.',
  unauthorized: (key) =>
    `the widget key ${key} is unknown or has been revoked. In the slicequote dashboard, open Widget keys and ` +
    "copy a live key into this element's key attribute.",
};
