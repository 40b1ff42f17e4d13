// GET /v2/profiles/library: PrusaSlicer's printer library (token or dashboard session; never a widget key).
// Mounted before profiles/, whose /v2/profiles/:kind would otherwise take "library" for a kind.
import Router from '@koa/router';
import { type AccessPorts, API, allow } from '../accounts/access/index.ts';
import type { AppState, Deps } from '../deps.ts';
import { ValidationError } from '../http/index.ts';
import { presentLibrary } from './library.ts';

export function printerLibraryRouter(deps: AccessPorts & Pick<Deps, 'log'>) {
  const router = new Router<AppState>();
  router.get('/v2/profiles/library', allow(deps, API), async (ctx) => {
    const vendor = ctx.query.vendor;
    if (Array.isArray(vendor) || (vendor !== undefined && vendor.length > 200))
      throw new ValidationError([{ field: 'vendor', message: 'one vendor id or name, at most 200 characters' }]);
    ctx.body = await presentLibrary(deps, vendor);
  });
  return router;
}
