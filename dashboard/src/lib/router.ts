// Hash routing (#/quotes/qt_123?page=2): the server serves one index.html at /dashboard/ and needs no
// fallback route, and a reload keeps the page.
export interface Route {
  /** First path segment: 'overview', 'tokens', 'quotes', ... ('' for the root). */
  name: string;
  /** Remaining path segments, e.g. the quote id. */
  params: string[];
  query: URLSearchParams;
}

export function currentRoute(): Route {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = raw.split('?', 2);
  const [name = '', ...params] = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { name, params, query: new URLSearchParams(search) };
}

/** A hash link for templates: href(['quotes', id], {page: 2}). */
export function href(path: string[], query: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return `#/${path.map(encodeURIComponent).join('/')}${s ? `?${s}` : ''}`;
}

export function navigate(path: string[], query: Record<string, string | number | undefined> = {}): void {
  location.hash = href(path, query);
}

/** Set on an element that holds unsaved changes: leaving its page then asks first. */
export const UNSAVED_ATTRIBUTE = 'data-unsaved';

/** False when there are unsaved changes on the page and the merchant chose to stay. */
export function mayLeave(): boolean {
  if (!document.querySelector(`[${UNSAVED_ATTRIBUTE}]`)) return true;
  return window.confirm('You have unsaved changes on this page. Leave without saving them?');
}
