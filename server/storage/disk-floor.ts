// The host's disk is never filled by uploads: an upload is refused with 507 when it would leave less free space
// than DISK_FREE_FLOOR_MB on the filesystem of DATA_DIR (uploads, the local file store and the slicer's work all
// live there). Checked from the declared length before the body is read, again once it is on disk, and for what
// the parse will write (the canonical mesh) before it is written.
//
// The space above the floor is shared: one account's files may hold at most DISK_ACCOUNT_SHARE_PERCENT of the
// space it could reach (what it stores plus what is free above the floor), one widget key's shoppers'
// uploads at most DISK_WIDGET_SHARE_PERCENT. So one account filling its share leaves the others room to upload.
import { statfs } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { ApiError } from '../http/index.ts';

/** The free space of the filesystem holding DATA_DIR: what uploads, the file store and the slicer may still write. */
export interface DiskSpace {
  /** Bytes an unprivileged process may still write there. */
  freeBytes(): Promise<number>;
}

/** Bytes an unprivileged process may still write on the filesystem holding `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const fs = await statfs(dir);
  return fs.bavail * fs.bsize;
}

export function diskSpaceOf(dir: string): DiskSpace {
  return { freeBytes: () => freeBytes(dir) };
}

type DiskDeps = { config: Pick<Config, 'diskFreeFloorBytes'>; disk: DiskSpace };

const shortOfSpace = (message: string, details?: Record<string, unknown>) =>
  new ApiError(507, 'insufficient_storage', message, details);

/** Throws 507 insufficient_storage when writing `incomingBytes` more would go below the floor. */
export async function checkDiskFloor(deps: DiskDeps, incomingBytes: number): Promise<void> {
  const floor = deps.config.diskFreeFloorBytes;
  if (floor === 0) return;
  const above = (await deps.disk.freeBytes()) - floor;
  if (above - incomingBytes < 0) throw floorReached(incomingBytes, Math.max(0, above));
}

const floorReached = (needed: number, room: number) =>
  shortOfSpace('The server is short of disk space and takes no uploads for now; try again later.', {
    limit: 'disk_floor',
    needed_bytes: needed,
    room_bytes: room,
  });

/** What one upload may still store under one limit, and the refusal when it needs more. */
export interface StorageRoom {
  /** Bytes stored now under this limit, without the upload. */
  used: number;
  /** Bytes the upload may store in all: its original and its canonical mesh. */
  left: number;
  refuse(neededBytes: number): ApiError;
}

/** Who holds stored files on the disk: an account, or a widget key's shoppers. */
export interface DiskHolder {
  kind: 'account' | 'widget_key';
  /** Bytes its files keep stored now, without this upload. */
  storedBytes: number;
}

/**
 * The disk's rooms for an upload whose original (`originalBytes`) is already on disk: the floor, and each holder's
 * share of the space it could reach. None without a floor (DISK_FREE_FLOOR_MB=0).
 */
export async function diskRooms(
  deps: DiskDeps & { config: Pick<Config, 'diskAccountSharePercent' | 'diskWidgetSharePercent'> },
  originalBytes: number,
  holders: DiskHolder[],
): Promise<StorageRoom[]> {
  const { config } = deps;
  if (config.diskFreeFloorBytes === 0) return [];
  const above = Math.max(0, (await deps.disk.freeBytes()) - config.diskFreeFloorBytes);
  const floorRoom: StorageRoom = {
    used: 0,
    left: above + originalBytes,
    refuse: (needed) => floorReached(needed, above + originalBytes),
  };
  return [
    floorRoom,
    ...holders.map((holder) => {
      const percent = holder.kind === 'account' ? config.diskAccountSharePercent : config.diskWidgetSharePercent;
      const reach = holder.storedBytes + originalBytes + above;
      const left = Math.floor((reach * percent) / 100) - holder.storedBytes;
      return { used: holder.storedBytes, left, refuse: (needed: number) => shareUsed(holder, percent, left, needed) };
    }),
  ];
}

function shareUsed(holder: DiskHolder, percent: number, left: number, needed: number): ApiError {
  const who = holder.kind === 'account' ? "This account's files" : "This shop's widget uploads";
  return shortOfSpace(
    `${who} hold their ${percent} % share of the server's free disk space; this upload needs ${needed} bytes, ` +
      `${Math.max(0, left)} are left. Delete files or try again later.`,
    {
      limit: holder.kind === 'account' ? 'account_disk_share' : 'widget_disk_share',
      share_percent: percent,
      used_bytes: holder.storedBytes,
      needed_bytes: needed,
      room_bytes: Math.max(0, left),
    },
  );
}
