// What a route declares about who may call it (the kinds of caller, its rate-limit class, cross-origin use) and
// who its allow() found calling.
import type { EndpointClass } from '../plans.ts';
import type { AccountRow } from '../sql.ts';

/** token: an API token; session: the dashboard's cookie (+ CSRF); widget: a shop's widget key; anyone: no credential. */
export type CallerKind = 'token' | 'session' | 'widget' | 'anyone';

export interface Access {
  callers: readonly CallerKind[];
  /** Rate-limit class; by default read for GET, HEAD and OPTIONS, write otherwise. */
  limit?: EndpointClass;
  /** Pages on any origin may call it (CORS); implied by 'widget'. */
  crossOrigin?: boolean;
}

/** Who is calling: an API token, a dashboard session (cookie + CSRF), or a storefront's widget key. */
export interface Auth {
  account: AccountRow;
  tokenId: string | null;
  widgetKeyId: string | null;
  via: 'token' | 'session' | 'widget';
  /** Widget calls: SHA-256 of the shopper token (X-Shopper-Token); a shopper sees only their own uploads and quotes. */
  shopperHash?: string | null;
  /**
   * Who slicer time, parse time and queue places are charged to (docs/limits.md): tok:<token id>, acct:<account
   * id> for a dashboard session, ip:<client address, IPv6 per /64> for a shop's shoppers.
   */
  caller: string;
}
