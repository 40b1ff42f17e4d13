// What a route declares about who may call it: the kinds of caller, its rate-limit class, cross-origin use.
import type { EndpointClass } from './plans.ts';

/** token: an API token; session: the dashboard's cookie (+ CSRF); widget: a shop's widget key; anyone: no credential. */
export type CallerKind = 'token' | 'session' | 'widget' | 'anyone';

export interface Access {
  callers: readonly CallerKind[];
  /** Rate-limit class; by default read for GET, HEAD and OPTIONS, write otherwise. */
  limit?: EndpointClass;
  /** Pages on any origin may call it (CORS); implied by 'widget'. */
  crossOrigin?: boolean;
}
