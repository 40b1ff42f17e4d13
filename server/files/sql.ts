import type { ModelFormat, ModelWarning } from '../../shared/model/index.ts';
import type { Measurements } from '../../shared/model/measure.ts';
import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';
import type { ModelShape } from '../mesh/index.ts';
import type { Unit, UnitSource } from '../placement/index.ts';

export interface FileRow {
  id: string;
  account_id: string;
  name: string;
  format: ModelFormat;
  content_type: `model/${ModelFormat}`;
  /** The original's size: what was uploaded and what a download sends. */
  size_bytes: number;
  /** What the file keeps stored: the original plus the canonical mesh (storage limits count this). */
  stored_bytes: number;
  sha256: string;
  mesh_sha256: string;
  /** The canonical mesh's measurements (millimetres) and the unit the file declared. */
  measurements: Measurements & { unit: string };
  footprint: [number, number][];
  warnings: ModelWarning[];
  source: 'api' | 'public';
  token_id: string | null;
  upload_id: string | null;
  unit: Unit;
  unit_source: UnitSource;
  scale: number;
  shape: ModelShape | null;
  /** Counts the file's rescales (1 as uploaded): a quote and a cart line say which version was priced. */
  revision: number;
  created_at: Date;
}

type DefaultedFields = 'unit' | 'unit_source' | 'scale' | 'shape' | 'stored_bytes';
/** Unit, scale and shape default to millimetres assumed, 1 and unknown; stored bytes to the original's size. */
export type NewFile = Omit<FileRow, 'created_at' | 'revision' | DefaultedFields> &
  Partial<Pick<FileRow, DefaultedFields>>;

export async function insertFile(db: Queryable, f: NewFile): Promise<FileRow> {
  const rows = await db.query<FileRow>(
    `INSERT INTO files (id, account_id, name, format, content_type, size_bytes, sha256, mesh_sha256, measurements,
       footprint, warnings, source, token_id, upload_id, unit, unit_source, scale, shape, stored_bytes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING *`,
    [
      f.id,
      f.account_id,
      f.name,
      f.format,
      f.content_type,
      f.size_bytes,
      f.sha256,
      f.mesh_sha256,
      JSON.stringify(f.measurements),
      JSON.stringify(f.footprint),
      JSON.stringify(f.warnings),
      f.source,
      f.token_id,
      f.upload_id,
      f.unit ?? 'mm',
      f.unit_source ?? 'assumed',
      f.scale ?? 1,
      f.shape ? JSON.stringify(f.shape) : null,
      f.stored_bytes ?? f.size_bytes,
    ],
  );
  return firstRow(rows);
}

export async function fileById(db: Queryable, accountId: string, id: string): Promise<FileRow | undefined> {
  const [row] = await db.query<FileRow>('SELECT * FROM files WHERE id = $1 AND account_id = $2', [id, accountId]);
  return row;
}

/** A file by id alone: for workers, which act for whichever account queued the work. */
export async function fileByIdAnyAccount(db: Queryable, id: string): Promise<FileRow | undefined> {
  const [row] = await db.query<FileRow>('SELECT * FROM files WHERE id = $1', [id]);
  return row;
}

/** Sets how the file's numbers are read and sized (a new revision); the mesh itself never changes. */
export async function updateFileScale(
  db: Queryable,
  accountId: string,
  id: string,
  unit: Unit,
  unitSource: UnitSource,
  scale: number,
): Promise<FileRow | undefined> {
  const [row] = await db.query<FileRow>(
    `UPDATE files SET unit = $3, unit_source = $4, scale = $5, revision = revision + 1
     WHERE id = $1 AND account_id = $2 RETURNING *`,
    [id, accountId, unit, unitSource, scale],
  );
  return row;
}

export async function listFiles(db: Queryable, accountId: string, limit: number, offset: number) {
  const rows = await db.query<FileRow>(
    'SELECT * FROM files WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3',
    [accountId, limit, offset],
  );
  const counts = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM files WHERE account_id = $1', [
    accountId,
  ]);
  return { rows, total: firstRow(counts).n };
}

export async function deleteFile(db: Queryable, accountId: string, id: string): Promise<FileRow | undefined> {
  const [row] = await db.query<FileRow>('DELETE FROM files WHERE id = $1 AND account_id = $2 RETURNING *', [
    id,
    accountId,
  ]);
  return row;
}

/** The widget key that fetched an upload id (its shoppers' uploads share that key's storage budget), if any. */
export async function uploadWidgetKey(db: Queryable, uploadId: string): Promise<string | null> {
  const [row] = await db.query<{ widget_key_id: string | null }>('SELECT widget_key_id FROM upload_ids WHERE id = $1', [
    uploadId,
  ]);
  return row?.widget_key_id ?? null;
}
