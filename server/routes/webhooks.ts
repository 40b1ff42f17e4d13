// /v2/webhooks (filled in by the webhook pipeline).
import Router from '@koa/router';
import type { Deps, AppState } from '../deps.ts';

export function webhooksRouter(_deps: Deps) {
  return new Router<AppState>();
}
