// Model files in S3-compatible object storage (AWS S3, MinIO, Cloudflare R2, Ceph RGW), so API processes and
// workers on different hosts share them (docs/deployment.md). Objects: <prefix>files/<file_id>/original and
// .../canonical.obj|canonical.3mf. The local disk storage is the working area and a cache: the parser writes the
// canonical mesh there, the upload streams from there in parts, and a worker on another host downloads the
// canonical mesh there before it slices.
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  NoSuchKey,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Settings } from '../config.ts';
import type { FileStorage } from './disk.ts';

const CANONICAL = ['canonical.obj', 'canonical.3mf'] as const;
/** Parts of 8 MiB, 4 in flight: an upload holds about 32 MiB whatever the file's size. */
const PART_BYTES = 8 * 1024 * 1024;

export function createS3Storage(settings: S3Settings, local: FileStorage): FileStorage {
  const options: S3ClientConfig = { region: settings.region, forcePathStyle: settings.forcePathStyle };
  if (settings.endpoint) options.endpoint = settings.endpoint;
  if (settings.credentials) options.credentials = settings.credentials;
  const s3 = new S3Client(options);
  const key = (fileId: string, name: string) => `${settings.prefix}files/${fileId}/${name}`;

  async function put(fileId: string, name: string, path: string) {
    const upload = new Upload({
      client: s3,
      partSize: PART_BYTES,
      queueSize: 4,
      params: { Bucket: settings.bucket, Key: key(fileId, name), Body: createReadStream(path) },
    });
    await upload.done();
  }

  /** Downloads one object to a path, through a temporary name so a reader never sees half a file. */
  async function download(fileId: string, name: string, path: string): Promise<boolean> {
    try {
      const got = await s3.send(new GetObjectCommand({ Bucket: settings.bucket, Key: key(fileId, name) }));
      const partial = `${path}.part-${process.pid}`;
      await pipeline(got.Body as Readable, createWriteStream(partial));
      await rename(partial, path);
      return true;
    } catch (err) {
      if (err instanceof NoSuchKey) return false;
      throw err;
    }
  }

  return {
    ...local,
    async publish(fileId, staged) {
      await local.publish(fileId, staged);
      const original = local.originalPath(fileId);
      const canonical = local.canonicalPath(fileId);
      await Promise.all([
        put(fileId, 'original', original),
        put(fileId, canonical.endsWith('.3mf') ? CANONICAL[1] : CANONICAL[0], canonical),
      ]);
      await rm(original, { force: true }); // kept in the bucket only; the canonical mesh stays as a cache
    },
    async ensureLocal(fileId) {
      if (CANONICAL.some((name) => existsSync(path.join(path.dirname(local.originalPath(fileId)), name)))) return;
      const staged = await local.stage(fileId);
      try {
        const found =
          (await download(fileId, CANONICAL[0], staged.canonical.obj)) ||
          (await download(fileId, CANONICAL[1], staged.canonical['3mf']));
        if (!found)
          throw Object.assign(new Error(`file ${fileId}: no canonical mesh in the bucket`), { code: 'ENOENT' });
        await local.publish(fileId, staged).catch((err: NodeJS.ErrnoException) => {
          // Another slice on this host fetched it first: theirs is as good.
          if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
        });
      } finally {
        await local.discard(staged);
      }
    },
    openOriginal(fileId) {
      const out = new PassThrough();
      s3.send(new GetObjectCommand({ Bucket: settings.bucket, Key: key(fileId, 'original') })).then(
        (got) => (got.Body as Readable).on('error', (e) => out.destroy(e)).pipe(out),
        (err: unknown) => out.destroy(err as Error),
      );
      return out;
    },
    async remove(fileId) {
      await local.remove(fileId);
      const Objects = ['original', ...CANONICAL].map((name) => ({ Key: key(fileId, name) }));
      await s3.send(new DeleteObjectsCommand({ Bucket: settings.bucket, Delete: { Objects, Quiet: true } }));
    },
    async ready() {
      await Promise.all([local.ready(), s3.send(new HeadBucketCommand({ Bucket: settings.bucket }))]);
    },
    async close() {
      s3.destroy();
      await local.close();
    },
  };
}
