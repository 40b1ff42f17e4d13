// Turning an uploaded temp file (hashed as it arrived) into a stored model: parse (in a worker, or finish the parse
// that read it as it arrived), store, record, emit. What a file stores is its original and its canonical mesh;
// storage limits count both (storage-room.ts).
import { rename, rm, stat } from 'node:fs/promises';
import type { ModelFormat } from '../../shared/model/index.ts';
import type { Auth } from '../accounts/access/index.ts';
import { fileUploadedByShopper } from '../accounts/index.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError, notFound } from '../http/index.ts';
import { newId } from '../ids.ts';
import { recordStorageChange } from '../limits/index.ts';
import type { UploadStream } from '../mesh/index.ts';
import type { ContractSchema } from '../openapi/index.ts';
import { writeEvent } from '../outbox/index.ts';
import { scaledMeasurements, scaledSize, sourceUnit, type Unit, unitWarning } from '../placement/index.ts';
import { deleteFile, type FileRow, fileById, insertFile, updateFileScale } from './sql.ts';
import { type StorageRoomPorts, uploadRoom } from './storage-room.ts';

const CONTENT_TYPES: Record<ModelFormat, `model/${ModelFormat}`> = {
  stl: 'model/stl',
  obj: 'model/obj',
  '3mf': 'model/3mf',
};

// Control characters, and the bidirectional controls (embeddings, overrides, isolates, direction marks) that
// make a name display as something else: "\u202Egnp.stl" shows as "lts.png".
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed from names
const UNSAFE_NAME_CHARACTERS = /[\u0000-\u001f\u007f"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** File names are shown back to merchants and sent in headers: strip paths and control characters, cap length. */
export function cleanFileName(raw: string | null | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(UNSAFE_NAME_CHARACTERS, '').trim().slice(0, 200);
  return clean || 'model';
}

export interface IngestRequest {
  accountId: string;
  /** Whose turn the parse waits for (docs/limits.md, "Fair parsing"): tok:…, acct:… or ip:…. */
  caller: string;
  tokenId: string | null;
  source: 'api' | 'public';
  uploadId: string | null;
  tmpPath: string;
  originalName: string | null;
  /** SHA-256 of the file, hex (taken as it arrived). */
  sha256: string;
  /** The parse that read the file as it arrived, if one did: it finishes the parse. */
  stream?: UploadStream | null;
  /** The unit the uploader says the numbers are in; applies to formats without one of their own (STL, OBJ). */
  statedUnit?: Unit;
  /**
   * Runs inside the transaction that records the file (e.g. to consume the upload id); throw to abort.
   * `storedBytes`: what the file stores, its original and its canonical mesh.
   */
  beforeCommit?: (tx: Queryable, fileId: string, storedBytes: number) => Promise<void>;
}

/** An upload is stored, parsed in the worker threads (timed in the metrics) within the room it has. */
export type IngestPorts = StorageRoomPorts & Pick<Deps, 'storage' | 'parser' | 'metrics'>;

export async function ingestUpload(deps: IngestPorts, req: IngestRequest): Promise<FileRow> {
  const fileId = newId('file');
  const name = cleanFileName(req.originalName);
  const staged = await deps.storage.stage(fileId);
  let published = false;
  try {
    const { size } = await stat(req.tmpPath);
    if (size === 0) throw new ApiError(422, 'empty_file', 'The uploaded file is empty.');
    // Refuse before the costly parse when not even the original fits; the parse writes at most the room left.
    const room = await uploadRoom(deps, { accountId: req.accountId, uploadId: req.uploadId, originalBytes: size });
    const job = {
      sourcePath: req.tmpPath,
      fileName: name,
      canonical: staged.canonical,
      maxCanonicalBytes: room.canonicalBytes,
    };
    const parsed = await (req.stream ? req.stream.parse(job) : deps.parser.parse(job, req.caller)).catch((err) => {
      throw room.refusal(err);
    });
    const storedBytes = size + (await stat(staged.canonical[parsed.canonical])).size;
    await rename(req.tmpPath, staged.original); // both under this process's tmp folder: one filesystem
    // In place before the row that names it commits; removed again below if the transaction fails.
    await deps.storage.publish(fileId, staged);
    published = true;
    const unit = uploadUnit(parsed.format, parsed.unit, req.statedUnit);
    const stored = await deps.db.transaction(async (tx) => {
      await req.beforeCommit?.(tx, fileId, storedBytes);
      const row = await insertFile(tx, {
        id: fileId,
        account_id: req.accountId,
        name,
        format: parsed.format,
        content_type: CONTENT_TYPES[parsed.format],
        size_bytes: size,
        stored_bytes: storedBytes,
        sha256: req.sha256,
        mesh_sha256: parsed.meshSha256,
        measurements: { ...parsed.measurements, unit: parsed.unit },
        footprint: parsed.footprint,
        warnings: parsed.warnings,
        source: req.source,
        token_id: req.tokenId,
        upload_id: req.uploadId,
        ...unit,
        scale: 1,
        shape: parsed.shape,
      });
      await writeEvent(tx, {
        account_id: req.accountId,
        token_id: req.tokenId,
        event: 'file.uploaded',
        data: fileEventData(row),
        at: deps.now(),
      });
      // Exact storage check under the alert lock (a 402 rolls the whole transaction back), plus any usage.alert owed.
      await recordStorageChange(tx, deps, {
        accountId: req.accountId,
        tokenId: req.tokenId,
        enforce: true,
        addedBytes: storedBytes,
      });
      return row;
    });
    deps.metrics.uploadBytes.inc(size);
    deps.events.wake();
    return stored;
  } catch (err) {
    if (published) await deps.storage.remove(fileId);
    throw err;
  } finally {
    await deps.storage.discard(staged);
    await rm(req.tmpPath, { force: true });
  }
}

/** A 3MF states its own unit, which wins over one stated at upload; STL and OBJ are millimetres unless stated. */
function uploadUnit(
  format: string,
  parsedUnit: string,
  stated: Unit | undefined,
): Pick<FileRow, 'unit' | 'unit_source'> {
  if (format === '3mf') return { unit: sourceUnit(parsedUnit), unit_source: 'file' };
  return stated ? { unit: stated, unit_source: 'stated' } : { unit: 'mm', unit_source: 'assumed' };
}

/** The largest dimension a rescale may give a model, mm: from a speck a nozzle can still draw to a large-format part. */
export const RESCALED_MM = { min: 0.1, max: 10_000 };

/**
 * Sets the unit the file's numbers are read in and/or its extra scale (each omitted field keeps its value).
 * The canonical mesh never changes: quotes apply unit and scale when they slice, and state both (docs/placement.md).
 */
export async function rescaleFile(
  deps: Pick<Deps, 'db' | 'jobs' | 'events'>,
  file: FileRow,
  change: { unit?: Unit; scale?: number },
): Promise<FileRow> {
  const next = { ...file, unit: change.unit ?? file.unit, scale: change.scale ?? file.scale };
  const size = scaledSize(next);
  const largest = Math.max(size.x, size.y, size.z);
  if (!(largest >= RESCALED_MM.min && largest <= RESCALED_MM.max)) {
    const mm = +largest.toPrecision(4);
    throw new ApiError(
      422,
      'scale_out_of_range',
      `In ${next.unit} at scale ${next.scale} the model would be ${mm} mm across; a print must be ${RESCALED_MM.min} mm to ${RESCALED_MM.max} mm.`,
      {
        field: change.scale !== undefined ? 'scale' : 'unit',
        largest_mm: mm,
        min_mm: RESCALED_MM.min,
        max_mm: RESCALED_MM.max,
      },
    );
  }
  const unitSource = change.unit !== undefined ? 'stated' : file.unit_source;
  const row = await deps.db.transaction(async (tx) => {
    const updated = await updateFileScale(tx, file.account_id, file.id, next.unit, unitSource, next.scale);
    // Slices of the old size that nobody will be sold stop (docs/limits.md).
    if (updated) await deps.jobs.endFileWork(tx, file.id, 'rescaled');
    return updated;
  });
  if (!row) throw notFound('file', file.id); // deleted meanwhile
  deps.events.wake();
  return row;
}

export async function removeFile(
  deps: Pick<Deps, 'db' | 'plans' | 'storage' | 'now' | 'jobs' | 'events'>,
  accountId: string,
  tokenId: string | null,
  fileId: string,
): Promise<FileRow | undefined> {
  const row = await deps.db.transaction(async (tx) => {
    const deleted = await deleteFile(tx, accountId, fileId);
    if (deleted) {
      await deps.jobs.endFileWork(tx, deleted.id, 'deleted'); // its running slices stop (docs/limits.md)
      await writeEvent(tx, {
        account_id: accountId,
        token_id: tokenId,
        event: 'file.deleted',
        data: { fileId: deleted.id, fileName: deleted.name, sizeBytes: deleted.size_bytes },
        at: deps.now(),
      });
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

/** Measurements as the model will be printed (after its unit and scale). */
export function presentMeasurements(row: FileRow): ContractSchema<'Measurements'> {
  const m = scaledMeasurements(row);
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

/** The parser's findings, then whether the size suggests a unit mistake (it follows the current unit and scale). */
export function fileWarnings(row: FileRow) {
  const unit = unitWarning(row);
  return unit ? [...row.warnings, unit] : row.warnings;
}

export function presentFile(row: FileRow): ContractSchema<'File'> {
  return {
    file_id: row.id,
    name: row.name,
    format: row.format,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    sha256: row.sha256,
    source: row.source,
    created_at: row.created_at.toISOString(),
    unit: row.unit,
    unit_source: row.unit_source,
    scale: row.scale,
    measurements: presentMeasurements(row),
    warnings: fileWarnings(row),
  };
}

/** A file as the caller may see it: a widget key only the uploads its own shopper made. */
export async function fileForCaller(deps: Pick<Deps, 'db'>, auth: Auth, fileId: string) {
  const file = await fileById(deps.db, auth.account.id, fileId);
  if (!file) throw notFound('file', fileId);
  if (
    auth.widgetKeyId &&
    !(auth.shopperHash && (await fileUploadedByShopper(deps.db, file.id, auth.widgetKeyId, auth.shopperHash)))
  ) {
    throw notFound('file', fileId);
  }
  return file;
}
