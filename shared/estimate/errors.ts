// Why the estimator refuses an input. An estimate is shown while the real slice runs, so a refusal must be a clear,
// stable code (like the model parsers' ModelError, shared/model/errors.ts) rather than a wrong number.

export type EstimateErrorCode =
  | 'invalid_mesh'
  | 'empty_mesh'
  | 'flat_mesh'
  | 'invalid_settings'
  | 'too_many_layers'
  | 'features_mismatch'
  | 'invalid_calibration'
  | 'invalid_samples';

export class EstimateError extends Error {
  readonly code: EstimateErrorCode;

  constructor(code: EstimateErrorCode, message: string) {
    super(message);
    this.name = 'EstimateError';
    this.code = code;
  }
}

/** Throws an EstimateError; typed `never` so callers can use it in expressions. */
export function refuse(code: EstimateErrorCode, message: string): never {
  throw new EstimateError(code, message);
}
