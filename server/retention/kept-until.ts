// Until when the retention sweep keeps a file at the least, as things stand now (docs/limits.md, "Retention"):
// what a kept quote's link may not outlive (server/kept-quotes). A shopper upload is kept its period from the
// upload (carted or not), and while a quote of it can still be bought; the merchant's own uploads, and carted
// ones the merchant keeps, are never deleted by the sweep.
import type { Deps } from '../deps.ts';
import { fileRetentionFacts } from './sql.ts';
import { uncartedDays } from './sweep.ts';

const DAY_MS = 86_400_000;

/** null: the sweep never deletes it; undefined: no such file. */
export async function fileKeptUntil(
  deps: Pick<Deps, 'config' | 'db'>,
  accountId: string,
  fileId: string,
): Promise<Date | null | undefined> {
  const facts = await fileRetentionFacts(deps.db, accountId, fileId);
  if (!facts) return undefined;
  if (!facts.shopper_upload) return null;
  const days = facts.carted ? facts.carted_days : await uncartedDays(deps, accountId);
  if (days === null) return null;
  const period = facts.created_at.getTime() + days * DAY_MS;
  return new Date(Math.max(period, facts.quoted_until?.getTime() ?? 0));
}
