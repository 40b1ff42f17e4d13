// The checklist's price step: every material a shopper can pick is sold at the shop's own price. A price is the
// shop's when it comes from one of its own material profiles; one taken from a shipped (global) profile is an
// example, even when the shop has its own profile for another material.
import type { Queryable } from '../db/index.ts';
import { resolveSettings } from '../profiles/index.ts';

const PRICE_SOURCE = 'material_config.price_per_gram';

/** Whether a material resolves to a price from the account's own profile; one that no longer resolves is not. */
async function ownPriced(db: Queryable, accountId: string, material: string): Promise<boolean> {
  try {
    const r = await resolveSettings(db, accountId, { material_config: { filament_type: material } });
    return r.sources[PRICE_SOURCE]?.startsWith('profile:') ?? false;
  } catch {
    return false;
  }
}

/** The offered materials (in the order given) still sold at a shipped example price. */
export async function examplePricedMaterials(db: Queryable, accountId: string, materials: string[]) {
  const examples: string[] = [];
  for (const material of materials) if (!(await ownPriced(db, accountId, material))) examples.push(material);
  return examples;
}
