// Temporary files, per process: DATA_DIR/tmp/proc-<pid>-<start>-<host>/, where <start> is the owner's start time
// (Linux /proc), so a pid reused by another process is not mistaken for the owner. Each request works in a
// folder of its own inside it and removes that folder on every path; the owner removes its whole folder when it
// stops. What a killed owner left behind is swept at the next start of any process on the same host; a live
// owner's folder is never touched, and folders of other hosts (a DATA_DIR on shared storage) are left to them.

import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, rmdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';

/** Start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat), or null. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null; // fields after "(comm)" start at 3
  } catch {
    return null;
  }
}

/** This host's name as folders and records name it. */
export const HOST = hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
const OWNER_NAME = /^proc-(\d+)-(\d+)-(.+)$/;

export function ownerFolderName(pid = process.pid, start = processStartTime(pid) ?? '0', host = HOST): string {
  return `proc-${pid}-${start}-${host}`;
}

/** The owner is alive when its pid runs with the same start time (or, without /proc, when the pid exists). */
function ownerAlive(pid: number, start: string): boolean {
  const now = processStartTime(pid);
  if (now !== null) return now === start;
  if (start !== '0') return false; // named on Linux and gone from /proc
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether an owner name (ownerFolderName) names a process of this host that no longer runs. */
export function isDeadOwnerHere(name: string): boolean {
  const owner = OWNER_NAME.exec(name);
  return owner !== null && owner[3] === HOST && !ownerAlive(Number(owner[1]), owner[2]!);
}

/**
 * Removes the tmp folders of dead owners on this host. Entries that are not owner folders are loose temp files
 * of versions before 0.2 (which kept no owner) and are removed too. Returns the names removed.
 */
export async function sweepDeadOwners(tmpRoot: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(tmpRoot).catch(() => [] as string[])) {
    const owner = OWNER_NAME.exec(name);
    if (owner) {
      if (owner[3] !== HOST || ownerAlive(Number(owner[1]), owner[2]!)) continue;
    }
    await rm(path.join(tmpRoot, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * Removes empty files/<shard>/<id> folders: a process killed while it was storing a file before 0.2 left one.
 * rmdir only ever removes an empty folder, so a stored file can never be lost to this sweep; a file is published
 * by renaming its complete folder into place (storage/disk.ts), so a live process never has an empty one either.
 */
export async function sweepEmptyFileFolders(filesRoot: string): Promise<number> {
  let removed = 0;
  for (const shard of await readdir(filesRoot).catch(() => [] as string[])) {
    for (const id of await readdir(path.join(filesRoot, shard)).catch(() => [] as string[])) {
      const ok = await rmdir(path.join(filesRoot, shard, id)).then(
        () => true,
        () => false,
      );
      if (ok) removed++;
    }
  }
  return removed;
}

export interface TmpOwner {
  /** This process's own folder. */
  dir: string;
  /** A new private folder for one request or job inside the owner folder; the caller removes it. */
  makeWorkDir(prefix: string): Promise<string>;
  /** Removes the owner folder (at shutdown). */
  release(): Promise<void>;
}

export async function claimTmpOwner(tmpRoot: string): Promise<TmpOwner> {
  const dir = path.join(tmpRoot, ownerFolderName());
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return {
    dir,
    async makeWorkDir(prefix) {
      // Recreated if someone removed it (an operator cleaning tmp by hand): a request must not fail for that.
      await mkdir(dir, { recursive: true, mode: 0o700 });
      return mkdtemp(path.join(dir, `${prefix}-`));
    },
    release: () => rm(dir, { recursive: true, force: true }),
  };
}
