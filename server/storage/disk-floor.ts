// The host's disk is never filled by uploads: an upload is refused with 507 when it would leave less free space
// than DISK_FREE_FLOOR_MB on the filesystem of DATA_DIR (uploads, the local file store and the slicer's work all
// live there). Checked from the declared length before the body is read, and again once it is on disk.
import { statfs } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { ApiError } from '../http/index.ts';

/** Bytes an unprivileged process may still write on the filesystem holding `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const fs = await statfs(dir);
  return fs.bavail * fs.bsize;
}

/** Throws 507 insufficient_storage when writing `incomingBytes` more would go below the floor. */
export async function checkDiskFloor(
  deps: { config: Pick<Config, 'diskFreeFloorBytes' | 'dataDir'> },
  incomingBytes: number,
): Promise<void> {
  const floor = deps.config.diskFreeFloorBytes;
  if (floor === 0) return;
  if ((await freeBytes(deps.config.dataDir)) - incomingBytes < floor) {
    throw new ApiError(
      507,
      'insufficient_storage',
      'The server is short of disk space and takes no uploads for now; try again later.',
    );
  }
}
