// Which rate-limit class a request belongs to. Decided from method and path before routing, so that
// requests that never reach a route (401, 404, 405) are counted and answered with headers too.
import type { EndpointClass } from '../plans.ts';

const QUOTE = /^\/v2\/file\/quote\/[^/]+(\/async)?$/;
const PUBLIC_UPLOAD = /^\/v2\/file\/public\/([^/]+)$/;

/** The router matches case-insensitively and ignores a trailing slash; so does this, or "/V2/FILE/" would dodge the upload class. */
function normalise(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

export function endpointClass(method: string, path: string): EndpointClass {
  const p = normalise(path);
  if (method === 'POST' && QUOTE.test(p)) return 'quote';
  if (method === 'POST' && (p === '/v2/file' || PUBLIC_UPLOAD.test(p))) return 'upload';
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return 'read';
  return 'write';
}

/** The upload id of a public upload (POST /v2/file/public/:upload_id), which gets its own counter. */
export function publicUploadId(method: string, path: string): string | null {
  if (method !== 'POST') return null;
  const match = PUBLIC_UPLOAD.exec(normalise(path));
  return match ? match[1] : null;
}
