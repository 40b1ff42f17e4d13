// Model files on local disk: DATA_DIR/files/<shard>/<file_id>/{original,canonical.obj|canonical.3mf}.
// The canonical mesh is OBJ, or 3MF for a PrusaSlicer project with negative volumes (shared/model/canonical.ts).
// A new file is built in a staging folder under this process's tmp folder (storage/tmp-dirs.ts) and published by
// renaming the complete folder into place, so a process killed mid-way never leaves a half-built file folder.
// The interface is small on purpose so shared storage can take its place: server/storage/s3.ts wraps it.
import { constants, createReadStream, existsSync } from 'node:fs';
import { access, cp, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { claimTmpOwner, sweepDeadOwners, sweepEmptyFileFolders, type TmpOwner } from './tmp-dirs.ts';

/** A file being built: its folder and the paths the parser and the upload write to. */
export interface StagedFile {
  dir: string;
  original: string;
  canonical: { obj: string; '3mf': string };
}

export interface FileStorage {
  /** Where a file's canonical mesh lives (the slicer reads it from there; its extension says the format). */
  canonicalPath(fileId: string): string;
  originalPath(fileId: string): string;
  /** A staging folder for a new file; the parser writes one of the canonical paths. Remove it with discard(). */
  stage(fileId: string): Promise<StagedFile>;
  /** Moves a complete staged file into place under its id. */
  publish(fileId: string, staged: StagedFile): Promise<void>;
  discard(staged: StagedFile): Promise<void>;
  openOriginal(fileId: string): NodeJS.ReadableStream;
  /** Makes the canonical mesh readable at canonicalPath() on this host (object storage downloads it). */
  ensureLocal(fileId: string): Promise<void>;
  remove(fileId: string): Promise<void>;
  /** Resolves when the storage can be read and written (readiness). */
  ready(): Promise<void>;
  /** A private folder for one request's temp files (uploads); the caller removes it on every path. */
  makeWorkDir(prefix: string): Promise<string>;
  /** This process's own tmp folder (DATA_DIR/tmp/proc-<pid>-<start>-<host>). */
  tmpDir: string;
  /** Removes this process's tmp folder (at shutdown). */
  close(): Promise<void>;
}

export async function createDiskStorage(dataDir: string): Promise<FileStorage> {
  const root = path.join(dataDir, 'files');
  await mkdir(root, { recursive: true });
  const owner: TmpOwner = await claimTmpOwner(path.join(dataDir, 'tmp'));
  const dirOf = (fileId: string) => {
    if (!/^file_[a-z0-9]+$/.test(fileId)) throw new Error(`invalid file id ${fileId}`);
    return path.join(root, fileId.slice(5, 7), fileId);
  };
  return {
    tmpDir: owner.dir,
    makeWorkDir: (prefix) => owner.makeWorkDir(prefix),
    canonicalPath(id) {
      const threeMf = path.join(dirOf(id), 'canonical.3mf');
      return existsSync(threeMf) ? threeMf : path.join(dirOf(id), 'canonical.obj');
    },
    originalPath: (id) => path.join(dirOf(id), 'original'),
    async stage(id) {
      dirOf(id); // validates the id
      const dir = path.join(await owner.makeWorkDir('stage'), id);
      await mkdir(dir);
      return {
        dir,
        original: path.join(dir, 'original'),
        canonical: { obj: path.join(dir, 'canonical.obj'), '3mf': path.join(dir, 'canonical.3mf') },
      };
    },
    async publish(id, staged) {
      const target = dirOf(id);
      await mkdir(path.dirname(target), { recursive: true });
      try {
        await rename(staged.dir, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        await cp(staged.dir, target, { recursive: true }); // tmp on another filesystem
      }
    },
    async discard(staged) {
      await rm(path.dirname(staged.dir), { recursive: true, force: true });
    },
    openOriginal: (id) => createReadStream(path.join(dirOf(id), 'original')),
    async ensureLocal() {},
    async remove(id) {
      await rm(dirOf(id), { recursive: true, force: true });
    },
    async ready() {
      await access(root, constants.R_OK | constants.W_OK);
    },
    close: () => owner.release(),
  };
}

/** Start-up clean-up of what killed processes left behind: their tmp folders and empty file folders. */
export async function sweepLeftovers(dataDir: string): Promise<{ tmpFolders: string[]; emptyFileFolders: number }> {
  const tmpFolders = await sweepDeadOwners(path.join(dataDir, 'tmp'));
  const emptyFileFolders = await sweepEmptyFileFolders(path.join(dataDir, 'files'));
  return { tmpFolders, emptyFileFolders };
}

export async function fileSize(p: string) {
  return (await stat(p)).size;
}
