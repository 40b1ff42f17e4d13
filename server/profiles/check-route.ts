// POST /v2/profiles/printer/{profile_id}/check and GET /v2/profiles/reference-part: the import check's two
// routes, from the HTTP side (the check itself: check.ts).
import type { Context } from 'koa';
import { type CheckPorts, checkPrinterProfile, type ProfileCheck } from './check.ts';
import { withCheckUpload } from './check-body.ts';
import { readShopGcode } from './check-gcode.ts';
import { referencePart } from './reference-part.ts';

export function checkFromRequest(deps: CheckPorts, ctx: Context, profileId: string): Promise<ProfileCheck> {
  return withCheckUpload(deps, ctx, async ({ gcodePath, material }) => {
    // The G-code is read before the slice: a wrong file is answered without spending slicer time.
    const shop = gcodePath ? await readShopGcode(gcodePath) : null;
    return checkPrinterProfile(deps, ctx.state.auth, profileId, { material, shop });
  });
}

export function sendReferencePart(ctx: Context): void {
  ctx.type = 'model/stl';
  ctx.attachment(referencePart.name);
  ctx.body = referencePart.bytes();
}
