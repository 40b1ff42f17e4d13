// A process that slices through the pool, for the crash tests: `node --import tsx slicing-process.ts <tmpRoot>
// [mesh]`. Prints one JSON line with its start-up sweep's report, then slices the mesh (if given) or exits.
import { createSlicePool } from '../../server/slicer/pool.ts';
import { DEFAULT_SETTINGS } from '../../shared/settings.ts';

const [tmpRoot, mesh] = process.argv.slice(2);
const pool = createSlicePool({ size: 1, tmpRoot, timeoutMs: 600_000 });
console.log(JSON.stringify({ swept: await pool.swept }));
if (mesh) {
  await pool.slice({ meshPath: mesh, settings: DEFAULT_SETTINGS });
  console.log(JSON.stringify({ done: true }));
}
await pool.close();
