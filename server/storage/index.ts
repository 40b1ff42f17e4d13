// The front door of storage/: model files on disk or in S3-compatible storage, per-process temp dirs, the disk floor.
// Other folders import only what is exported here (npm run check:graph).

export type { FileStorage } from './disk.ts';
export { createDiskStorage, sweepLeftovers } from './disk.ts';
export type { DiskHolder, DiskSpace, StorageRoom } from './disk-floor.ts';
export { checkDiskFloor, diskRooms, diskSpaceOf } from './disk-floor.ts';
export { HOST, isDeadOwnerHere, ownerFolderName, processStartTime } from './tmp-dirs.ts';

import type { S3Settings } from '../config.ts';
import type { FileStorage } from './disk.ts';
/** S3-compatible storage; the AWS SDK, a large module, is loaded only by a process configured for it. */
export async function createS3Storage(settings: S3Settings, local: FileStorage): Promise<FileStorage> {
  return (await import('./s3.ts')).createS3Storage(settings, local);
}
