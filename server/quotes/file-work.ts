// Work for a file stops with the file (docs/limits.md): deleting it ends every unfinished quote of it (failed,
// `file_deleted`, with its events: an API caller may be waiting) and its prefetches; rescaling it ends the
// shop's shoppers' unfinished quotes of the old size (`superseded`, without events, as when a shopper changes an
// option) and its prefetches, which are planned again for the new size. A worker slicing one of them stops at its
// next heartbeat, when it finds its lease gone, and the seconds it sliced are charged to the caller.
import type { Queryable } from '../db/index.ts';
import { failJob } from './finish.ts';
import { deleteFilePrefetches } from './prefetch-sql.ts';
import { failQuote, type JobError, type QuoteRow } from './sql.ts';

export type FileChange = 'deleted' | 'rescaled';

const FILE_DELETED: JobError = {
  code: 'file_deleted',
  message: 'The model file was deleted before this quote was ready.',
  status: 410,
};

const RESCALED: JobError = {
  code: 'superseded',
  message: 'The model was rescaled before this quote was ready; quote it again at its new size.',
  status: 409,
};

async function unfinishedQuotes(tx: Queryable, fileId: string, shoppersOnly: boolean): Promise<QuoteRow[]> {
  return tx.query<QuoteRow>(
    `SELECT * FROM quotes WHERE file_id = $1 AND status IN ('queued', 'processing')
       AND ($2::boolean IS FALSE OR widget_key_id IS NOT NULL) FOR UPDATE`,
    [fileId, shoppersOnly],
  );
}

/** Ends the file's unfinished work in the caller's transaction; returns how many quotes ended. */
export async function endFileWork(tx: Queryable, fileId: string, change: FileChange, at: Date): Promise<number> {
  await deleteFilePrefetches(tx, fileId);
  const rows = await unfinishedQuotes(tx, fileId, change === 'rescaled');
  for (const row of rows) {
    if (change === 'deleted') await failJob(tx, row, row.lease_owner, FILE_DELETED, at);
    else await failQuote(tx, row.id, row.lease_owner, RESCALED);
  }
  return rows.length;
}
