// Model files on local disk: DATA_DIR/files/<shard>/<file_id>/{original,canonical.obj|canonical.3mf}.
// The canonical mesh is OBJ, or 3MF for a PrusaSlicer project with negative volumes (shared/model/canonical.ts).
// The interface is small on purpose so shared storage can take its place: server/storage/s3.ts wraps it.
import { constants, createReadStream, existsSync } from 'node:fs';
import { access, mkdir, rename, rm, copyFile, stat } from 'node:fs/promises';
import path from 'node:path';

export interface FileStorage {
  /** Where a file's canonical mesh lives (the slicer reads it from there; its extension says the format). */
  canonicalPath(fileId: string): string;
  originalPath(fileId: string): string;
  /** Prepares the folder of a new file and returns its paths; the parser writes one of the canonical ones. */
  prepare(fileId: string): Promise<{ original: string; canonical: { obj: string; '3mf': string } }>;
  /** Moves an uploaded temp file in as the original. */
  adoptOriginal(fileId: string, tmpPath: string): Promise<void>;
  openOriginal(fileId: string): NodeJS.ReadableStream;
  /** Makes the canonical mesh readable at canonicalPath() on this host (object storage downloads it). */
  ensureLocal(fileId: string): Promise<void>;
  remove(fileId: string): Promise<void>;
  /** Resolves when the storage can be read and written (readiness). */
  ready(): Promise<void>;
  close(): Promise<void>;
  tmpDir: string;
}

export function createDiskStorage(dataDir: string): FileStorage {
  const root = path.join(dataDir, 'files');
  const tmpDir = path.join(dataDir, 'tmp');
  const dirOf = (fileId: string) => {
    if (!/^file_[a-z0-9]+$/.test(fileId)) throw new Error(`invalid file id ${fileId}`);
    return path.join(root, fileId.slice(5, 7), fileId);
  };
  return {
    tmpDir,
    canonicalPath(id) {
      const threeMf = path.join(dirOf(id), 'canonical.3mf');
      return existsSync(threeMf) ? threeMf : path.join(dirOf(id), 'canonical.obj');
    },
    originalPath: (id) => path.join(dirOf(id), 'original'),
    async prepare(id) {
      await mkdir(dirOf(id), { recursive: true });
      const canonical = { obj: path.join(dirOf(id), 'canonical.obj'), '3mf': path.join(dirOf(id), 'canonical.3mf') };
      return { original: path.join(dirOf(id), 'original'), canonical };
    },
    async adoptOriginal(id, tmpPath) {
      const target = path.join(dirOf(id), 'original');
      try {
        await rename(tmpPath, target);
      } catch {
        await copyFile(tmpPath, target); // tmp on another filesystem
        await rm(tmpPath, { force: true });
      }
    },
    openOriginal: (id) => createReadStream(path.join(dirOf(id), 'original')),
    async ensureLocal() {},
    async remove(id) {
      await rm(dirOf(id), { recursive: true, force: true });
    },
    async ready() {
      await access(root, constants.R_OK | constants.W_OK);
    },
    async close() {},
  };
}

export async function ensureDirs(storage: FileStorage) {
  await mkdir(storage.tmpDir, { recursive: true });
}

export async function fileSize(p: string) {
  return (await stat(p)).size;
}
