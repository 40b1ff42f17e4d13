// A slice outside the queue: the import check's reference part (docs/profiles.md, "Checking the import"). It
// runs in the same bounded pool as quotes, after the caller's hourly slicer budget is asked, and its CPU seconds
// are charged to that caller whatever the outcome, as any slice's are (docs/limits.md, "Slicer time"). It makes
// no quote, so the month's quote allowance is untouched, and it is not cached: a check asks to see the slicer run.
import type { Deps } from '../deps.ts';
import { type SliceOutcome as ChargeOutcome, chargeSlicerTime, checkSlicerBudget } from '../limits/index.ts';
import type { SlicePool, SliceSettings } from '../slicer/index.ts';
import { PoolClosedError, PoolFullError, SliceFailedError, SliceTimeoutError } from '../slicer/index.ts';

export interface AsideSlice {
  account_id: string;
  /** Who pays: the caller the request came from (tok:…, acct:…). */
  caller: string;
  meshPath: string;
  settings: SliceSettings;
}

export type AsideSlicer = (req: AsideSlice, signal?: AbortSignal) => ReturnType<SlicePool['slice']>;

type AsidePorts = Pick<Deps, 'db' | 'config' | 'log' | 'now'>;

/** Slices aside at once in this process: one, so that checks take at most one of the slots quotes share. */
const MAX_ASIDE = 1;

export function asideSlicer(deps: AsidePorts, pool: SlicePool): AsideSlicer {
  let running = 0;
  return async (req, signal) => {
    await checkSlicerBudget(deps.db, req.caller, deps.config.slicerSecondsPerCallerHour, deps.now());
    if (running >= MAX_ASIDE) throw new PoolFullError(10);
    running++;
    try {
      return await sliceCharged(req, signal);
    } finally {
      running--;
    }
  };

  async function sliceCharged(req: AsideSlice, signal?: AbortSignal) {
    const started = performance.now();
    let cpuMs: number | null = null;
    const charge = async (outcome: ChargeOutcome | null) => {
      const seconds = (cpuMs ?? performance.now() - started) / 1000;
      if (outcome === null || seconds <= 0) return;
      await chargeSlicerTime(deps.db, {
        account_id: req.account_id,
        caller: req.caller,
        kind: 'check',
        outcome,
        seconds: Math.round(seconds * 100) / 100,
        reference_s: null,
        at: deps.now(),
      }).catch((err) => deps.log.error('check: could not record slicer time', err));
    };
    try {
      const out = await pool.slice(
        {
          meshPath: req.meshPath,
          settings: req.settings,
          onCpuTime: (ms) => {
            cpuMs = ms;
          },
        },
        signal,
      );
      await charge('ok');
      return out;
    } catch (err) {
      await charge(outcomeOf(err));
      throw err;
    }
  }
}

function outcomeOf(err: unknown): ChargeOutcome | null {
  if (err instanceof SliceTimeoutError) return 'timeout';
  if (err instanceof SliceFailedError) return 'failed';
  if (err instanceof PoolClosedError || err instanceof PoolFullError) return null;
  return 'stopped';
}
