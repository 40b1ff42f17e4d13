// The retention sweep (docs/limits.md, "Retention"): on a schedule, deletes the shopper uploads a merchant no
// longer needs, with their stored objects and slices, so that shoppers cannot fill the merchant's storage
// allowance or the host's disk; then purges the rows nothing reads any more. Files are deleted through
// removeFile, the one path every deletion takes (file.deleted, storage accounting, and whatever else a deletion
// must do), so a purged upload goes exactly as one the merchant deletes.

import { DEFAULT_SETTINGS } from '../../shared/settings.ts';
import type { Deps } from '../deps.ts';
import { removeFile } from '../files/index.ts';
import { purgeSlicerUsage } from '../limits/index.ts';
import { resolveSettings } from '../profiles/index.ts';
import {
  accountsWithShopperUploads,
  dueShopperUploads,
  purgeOutbox,
  purgeSessions,
  purgeSlices,
  purgeUploadIds,
} from './sql.ts';

const DAY_MS = 86_400_000;
/** An expired upload id answers 410 upload_id_expired for this long before it is forgotten (then 404). */
const EXPIRED_UPLOAD_ID_KEPT_MS = DAY_MS;
/** A slice no live quote names is kept this long: it may be a prefetch the shopper has not asked for yet. */
const UNNAMED_SLICE_KEPT_MS = DAY_MS;

export interface RetentionReport {
  shopper_uploads: number;
  freed_bytes: number;
  upload_ids: number;
  sessions: number;
  slices: number;
  outbox_events: number;
  /** Rows of slicer time older than a day (docs/limits.md, "Slicer time"). */
  slicer_usage: number;
}

export interface RetentionSweep {
  /** Runs one sweep now, after any sweep already running. */
  sweepNow(): Promise<RetentionReport>;
  stop(): Promise<void>;
}

/** Days an uncarted shopper upload is kept: SHOPPER_UPLOAD_RETENTION_DAYS, else the account's quote validity. */
export async function uncartedDays(deps: Pick<Deps, 'config' | 'db'>, accountId: string): Promise<number> {
  if (deps.config.shopperUploadRetentionDays !== null) return deps.config.shopperUploadRetentionDays;
  try {
    return (await resolveSettings(deps.db, accountId, {})).settings.quote.quote_validity_days;
  } catch {
    return DEFAULT_SETTINGS.quote.quote_validity_days; // profiles that no longer resolve: the shipped validity
  }
}

/** A sweep reads each account's retention on the clock and removes files as their owners would. */
type SweepPorts = Pick<Deps, 'config' | 'db' | 'plans' | 'storage' | 'now' | 'jobs' | 'events'>;

async function removeShopperUploads(deps: SweepPorts, now: Date): Promise<{ files: number; bytes: number }> {
  const removed = { files: 0, bytes: 0 };
  const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);
  // No period is shorter than a day (the minimum of the quote validity and of every retention setting).
  for (const account of await accountsWithShopperUploads(deps.db, now, daysAgo(1))) {
    const carted = account.carted_upload_retention_days;
    const cut = {
      now,
      uncartedBefore: daysAgo(await uncartedDays(deps, account.id)),
      cartedBefore: carted === null ? null : daysAgo(carted),
    };
    for (let due = await dueShopperUploads(deps.db, account.id, cut); due.length; ) {
      for (const fileId of due) {
        const row = await removeFile(deps, account.id, null, fileId);
        if (row) {
          removed.files += 1;
          removed.bytes += Number(row.size_bytes);
        }
      }
      due = await dueShopperUploads(deps.db, account.id, cut);
    }
  }
  return removed;
}

/** One pass: the uploads first, so that the purges after it also take their upload ids and slices. */
export async function sweepRetention(deps: SweepPorts): Promise<RetentionReport> {
  const now = deps.now();
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const uploads = await removeShopperUploads(deps, now);
  return {
    shopper_uploads: uploads.files,
    freed_bytes: uploads.bytes,
    upload_ids: await purgeUploadIds(deps.db, ago(EXPIRED_UPLOAD_ID_KEPT_MS)),
    sessions: await purgeSessions(deps.db, now),
    slices: await purgeSlices(deps.db, ago(UNNAMED_SLICE_KEPT_MS)),
    outbox_events: await purgeOutbox(deps.db, ago(deps.config.outboxRetentionDays * DAY_MS)),
    slicer_usage: await purgeSlicerUsage(deps.db, now),
  };
}

/**
 * Sweeps every RETENTION_SWEEP_INTERVAL_MS in processes that run background work (not WORKER_ROLE=api). A failed
 * sweep is logged and the next one tries again; deleting is idempotent, so processes sweeping at once are harmless.
 */
export function startRetentionSweep(deps: SweepPorts & Pick<Deps, 'log'>): RetentionSweep {
  let last: Promise<unknown> = Promise.resolve();
  const sweepNow = () => {
    const next = last.then(() => sweepRetention(deps)); // one at a time, each with the clock as it is then
    last = next.catch(() => undefined);
    return next;
  };
  const tick = () =>
    sweepNow().then(
      (report) => {
        if (Object.values(report).some((n) => n > 0)) deps.log.info('retention: swept', { ...report });
      },
      (err) => deps.log.error('retention: sweep failed', err),
    );
  const timer = deps.config.workerRole === 'api' ? null : setInterval(tick, deps.config.retentionSweepIntervalMs);
  timer?.unref();
  return {
    sweepNow,
    async stop() {
      if (timer) clearInterval(timer);
      await last;
    },
  };
}
