// Typed slicing errors, so the API can answer each with its own status and message.

export type SliceFailureCode =
  | 'slice_failed' // PrusaSlicer exited with an error
  | 'exceeds_build_volume' // the part does not fit the printer's bed or height
  | 'first_layer_empty' // the part touches the bed only at a point or an edge: nothing to print on layer one
  | 'slicer_unavailable' // the binary is missing or is not PrusaSlicer
  | 'bad_output'; // PrusaSlicer succeeded but wrote no readable G-code

export class SliceFailedError extends Error {
  override name = 'SliceFailedError';
  constructor(
    message: string,
    readonly code: SliceFailureCode = 'slice_failed',
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** Resolved settings break a rule (validateResolvedSettings); the API should have answered 422 first. */
export class SettingsInvalidError extends Error {
  override name = 'SettingsInvalidError';
  constructor(readonly issues: { field: string; message: string }[]) {
    super(`invalid settings: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}`);
  }
}

/** The slicer used its CPU time (`cpu`), or used none for as long (`stalled`), and was killed. */
export class SliceTimeoutError extends Error {
  override name = 'SliceTimeoutError';
  constructor(
    readonly timeoutMs: number,
    readonly limit: 'cpu' | 'stalled' = 'cpu',
  ) {
    const s = Math.round(timeoutMs / 1000);
    super(
      limit === 'cpu'
        ? `slicing took more than ${s} s of processor time and was stopped`
        : `slicing made no progress for ${s} s and was stopped`,
    );
  }
}

/** The caller's AbortSignal fired (request gone, job cancelled, pool closing). */
export class SliceAbortedError extends Error {
  override name = 'AbortError';
  constructor(readonly reason?: unknown) {
    super('slicing was cancelled');
  }
}

/** The pool's wait queue is full: answer 503 with Retry-After. */
export class PoolFullError extends Error {
  override name = 'PoolFullError';
  constructor(readonly retryAfterSeconds: number) {
    super('all slicers are busy and the queue is full; retry later');
  }
}

export class PoolClosedError extends Error {
  override name = 'PoolClosedError';
  constructor() {
    super('the slice pool is closed');
  }
}

/**
 * A slice in the short lane used more CPU time than a short slice may (its prediction was wrong, or made to be):
 * it is stopped so that the lane is free for the next short quote, and its quote is sliced again in a normal slot.
 */
export class ShortLaneOutgrownError extends Error {
  override name = 'ShortLaneOutgrownError';
  constructor(readonly cpuMs: number) {
    super(`the slice used more than ${Math.round(cpuMs / 1000)} s of processor time, what a short slice may use`);
  }
}
