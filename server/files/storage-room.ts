// What an upload may store, known before its parse writes the canonical mesh (docs/limits.md, "The disk floor"): the
// least room any of its limits leaves — the plan's storage allowance, a widget key's storage budget, the disk's
// floor and the account's and the key's shares of the disk. The parse is told that room: a mesh that cannot fit
// (an instanced 3MF expanding a few KB into tens of MB) is refused before it is written, with the refusal of the
// limit that left the least room.
import type { Deps } from '../deps.ts';
import { ApiError } from '../http/index.ts';
import { storageAllowanceRoom, widgetStorageRoom } from '../limits/index.ts';
import { type DiskHolder, diskRooms, type StorageRoom } from '../storage/index.ts';
import { uploadWidgetKey } from './sql.ts';

/** The parse's refusal of a mesh with no room (server/mesh/parse-worker.ts). */
const NO_ROOM = 'storage_room_exceeded';

export interface UploadRoom {
  /** Bytes the canonical mesh may take. */
  canonicalBytes: number;
  /** The parse's no-room refusal as the refusal of the limit that left the least room; other errors unchanged. */
  refusal(err: unknown): unknown;
}

/** The room an upload has: the account's allowance (plans, clock, alerts), a widget's budget, and the disk. */
export type StorageRoomPorts = Pick<Deps, 'config' | 'db' | 'plans' | 'disk' | 'now' | 'events'>;

/** Throws the refusal of the tightest limit when not even the original fits. */
export async function uploadRoom(
  deps: StorageRoomPorts,
  upload: { accountId: string; uploadId: string | null; originalBytes: number },
): Promise<UploadRoom> {
  const widgetKeyId = upload.uploadId && (await uploadWidgetKey(deps.db, upload.uploadId));
  const allowance = await storageAllowanceRoom(deps, upload.accountId);
  const budget = widgetKeyId ? await widgetStorageRoom(deps.db, upload.accountId, widgetKeyId) : null;
  const holders: DiskHolder[] = [{ kind: 'account', storedBytes: allowance.used }];
  if (budget) holders.push({ kind: 'widget_key', storedBytes: budget.used });
  const rooms = [allowance, ...(budget ? [budget] : []), ...(await diskRooms(deps, upload.originalBytes, holders))];
  const tightest = rooms.reduce((least, room) => (room.left < least.left ? room : least));
  if (upload.originalBytes > tightest.left) throw tightest.refuse(upload.originalBytes);
  return {
    canonicalBytes: tightest.left - upload.originalBytes,
    refusal: (err) => (isNoRoom(err) ? refuse(tightest, upload.originalBytes, err) : err),
  };
}

function isNoRoom(err: unknown): err is ApiError {
  return err instanceof ApiError && err.code === NO_ROOM;
}

/** needed_bytes: the original and at least what the mesh was found to need. */
function refuse(room: StorageRoom, originalBytes: number, err: ApiError): ApiError {
  const mesh = Number((err.details as { needed_at_least_bytes?: number } | undefined)?.needed_at_least_bytes ?? 0);
  return room.refuse(originalBytes + mesh);
}
