// The one error every PrusaSlicer bundle reader throws: a 400 naming what in the file is wrong (the section, the
// key, the preset), so a shop that uploads a broken or hostile bundle learns what to fix.
import { ApiError } from '../http/index.ts';

export type BundleErrorCode =
  | 'bundle_too_large'
  | 'bundle_too_many_sections'
  | 'bundle_too_many_keys'
  | 'bundle_malformed'
  | 'bundle_duplicate_section'
  | 'bundle_unknown_parent'
  | 'bundle_inherits_loop'
  | 'bundle_too_deep';

export class BundleError extends ApiError {
  constructor(code: BundleErrorCode, message: string, details?: Record<string, unknown>) {
    super(400, code, message, details);
  }
}
