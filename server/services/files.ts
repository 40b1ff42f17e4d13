// Turning an uploaded temp file into a stored model: hash, parse (in a worker), store, record, emit.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Deps } from '../deps.ts';
import type { Queryable } from '../db/index.ts';
import { insertFile, deleteFile, type FileRow } from '../db/queries/files.ts';
import { writeEvent } from '../db/queries/outbox.ts';
import { newId } from '../ids.ts';
import { ApiError } from '../errors.ts';
import { checkStorageQuota, recordStorageChange } from '../limits/quota.ts';

const CONTENT_TYPES: Record<string, string> = { stl: 'model/stl', obj: 'model/obj', '3mf': 'model/3mf' };

async function sha256File(p: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(p)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** File names are shown back to merchants and sent in headers: strip paths and control characters, cap length. */
export function cleanFileName(raw: string | null | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 200);
  return clean || 'model';
}

export interface IngestRequest {
  accountId: string;
  tokenId: string | null;
  source: 'api' | 'public';
  uploadId: string | null;
  tmpPath: string;
  originalName: string | null;
  /** Runs inside the transaction that records the file (e.g. to consume the upload id); throw to abort. */
  beforeCommit?: (tx: Queryable, fileId: string) => Promise<void>;
}

export async function ingestUpload(deps: Deps, req: IngestRequest): Promise<FileRow> {
  const fileId = newId('file');
  const name = cleanFileName(req.originalName);
  const paths = await deps.storage.prepare(fileId);
  try {
    const { size } = await stat(req.tmpPath);
    if (size === 0) throw new ApiError(422, 'empty_file', 'The uploaded file is empty.');
    await checkStorageQuota(deps, req.accountId, size); // refuse before the costly parse
    const sha256 = await sha256File(req.tmpPath);
    const parsed = await deps.parser.parse({ sourcePath: req.tmpPath, fileName: name, canonicalPath: paths.canonical });
    await deps.storage.adoptOriginal(fileId, req.tmpPath);
    const stored = await deps.db.transaction(async (tx) => {
      await req.beforeCommit?.(tx, fileId);
      const row = await insertFile(tx, {
        id: fileId,
        account_id: req.accountId,
        name,
        format: parsed.format,
        content_type: CONTENT_TYPES[parsed.format],
        size_bytes: size,
        sha256,
        mesh_sha256: parsed.meshSha256,
        measurements: { ...parsed.measurements, unit: parsed.unit },
        footprint: parsed.footprint,
        warnings: parsed.warnings,
        source: req.source,
        token_id: req.tokenId,
        upload_id: req.uploadId,
      });
      await writeEvent(tx, { account_id: req.accountId, token_id: req.tokenId, event: 'file.uploaded', data: fileEventData(row) });
      // Exact storage check under the alert lock (a 429 rolls the whole transaction back), plus any usage.alert owed.
      await recordStorageChange(tx, deps, { accountId: req.accountId, tokenId: req.tokenId, enforce: true, addedBytes: size });
      return row;
    });
    deps.events.wake();
    return stored;
  } catch (err) {
    await deps.storage.remove(fileId);
    throw err;
  } finally {
    await rm(req.tmpPath, { force: true });
  }
}

export async function removeFile(deps: Deps, accountId: string, tokenId: string | null, fileId: string): Promise<FileRow | undefined> {
  const row = await deps.db.transaction(async (tx) => {
    const deleted = await deleteFile(tx, accountId, fileId);
    if (deleted) {
      await writeEvent(tx, { account_id: accountId, token_id: tokenId, event: 'file.deleted', data: { fileId: deleted.id, fileName: deleted.name, sizeBytes: deleted.size_bytes } });
      await recordStorageChange(tx, deps, { accountId, tokenId, enforce: false }); // the level-0 alert when storage falls below 80 %
    }
    return deleted;
  });
  if (row) {
    deps.events.wake();
    await deps.storage.remove(row.id);
  }
  return row;
}

function fileEventData(row: FileRow) {
  return {
    fileId: row.id,
    fileName: row.name,
    format: row.format,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    source: row.source,
    measurements: presentMeasurements(row),
  };
}

export function presentMeasurements(row: FileRow) {
  const m = row.measurements as Record<string, any>;
  return {
    triangles: m.triangles,
    bounding_box: m.bbox,
    volume_mm3: m.volume_mm3,
    surface_area_mm2: m.surface_area_mm2,
    watertight: m.watertight,
    bodies: m.bodies,
    source_unit: m.unit,
  };
}

export function presentFile(row: FileRow) {
  return {
    file_id: row.id,
    name: row.name,
    format: row.format,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    sha256: row.sha256,
    source: row.source,
    created_at: row.created_at.toISOString(),
    measurements: presentMeasurements(row),
    warnings: row.warnings,
  };
}
