// Upgrading a shop with files stored before placements existed: migration 009 gives a 3MF its declared unit,
// an STL millimetres, and both scale 1; such files (no shape facts) are still placed from their bounding box.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listMigrations } from '../../server/db/migrate.ts';
import { type FileRow, fileById } from '../../server/files/sql.ts';
import { placeForQuote } from '../../server/placement/index.ts';
import { openTestDb } from '../helpers/server.ts';

test('files stored before migration 009 get their unit, scale 1, and are placed from their bounding box', async () => {
  const { db, drop } = await openTestDb();
  try {
    const run = async (keep: (version: number) => boolean) => {
      for (const m of listMigrations().filter((x) => keep(x.version))) await db.exec(m.sql);
    };
    await run((v) => v < 9);
    await db.query(
      `INSERT INTO accounts (id, email, password_hash, plan) VALUES ('usr_old', 'old@example.test', 'x', 'pro')`,
    );
    const legacy = (id: string, format: string, unit: string, size: number[]) =>
      db.query(
        `INSERT INTO files (id, account_id, name, format, content_type, size_bytes, sha256, mesh_sha256, measurements, footprint, source)
       VALUES ($1, 'usr_old', $1, $2, 'model/' || $2, 1, '', '', $3, '[]', 'api')`,
        [
          id,
          format,
          JSON.stringify({
            unit,
            triangles: 12,
            bbox: { min: [0, 0, 0], max: size, size },
            volume_mm3: 1,
            surface_area_mm2: 1,
            watertight: true,
            bodies: 1,
          }),
        ],
      );
    await legacy('file_old3mf', '3mf', 'inch', [254, 254, 100]);
    await legacy('file_oldstl', 'stl', 'millimeter', [30, 30, 230]);
    await run((v) => v === 9);
    const threeMf = (await fileById(db, 'usr_old', 'file_old3mf')) as FileRow;
    assert.deepEqual([threeMf.unit, threeMf.unit_source, threeMf.scale, threeMf.shape], ['in', 'file', 1, null]);
    const stl = (await fileById(db, 'usr_old', 'file_oldstl')) as FileRow;
    assert.deepEqual([stl.unit, stl.unit_source, stl.scale], ['mm', 'assumed', 1]);
    const rod = placeForQuote(stl, {
      bed_size_x: 250,
      bed_size_y: 210,
      bed_size_z: 210,
      nozzle_diameter: 0.4,
      layer_height: 0.2,
    });
    assert.equal(rod.placement?.orientation, 'laid_down');
    assert.equal(rod.placement?.dimensions.z, 30);
    assert.equal(
      placeForQuote(threeMf, {
        bed_size_x: 250,
        bed_size_y: 210,
        bed_size_z: 210,
        nozzle_diameter: 0.4,
        layer_height: 0.2,
      }).refusal?.code,
      'exceeds_build_volume',
    );
  } finally {
    await db.close();
    await drop();
  }
});
