// The front door of storage/: model files on disk or in S3-compatible storage, per-process temp dirs, the disk floor.
// Other folders import only what is exported here (npm run check:graph).
export { checkDiskFloor, diskRooms } from './disk-floor.ts';
export type { DiskHolder, StorageRoom } from './disk-floor.ts';
export { createDiskStorage, sweepLeftovers } from './disk.ts';
export type { FileStorage } from './disk.ts';
export { createS3Storage } from './s3.ts';
export { isDeadOwnerHere, ownerFolderName, processStartTime } from './tmp-dirs.ts';
