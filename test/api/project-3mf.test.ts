// PrusaSlicer project 3MFs (test/fixtures/prusaslicer): helper volumes are never printed, negative volumes
// are cut away, the project's settings are ignored with a warning naming them, and a missing thumbnail is a
// warning. Each upload is quoted through the API and its weight compared with the bare PrusaSlicer CLI on
// the effective geometry (part less negative volume, without helpers), with the settings the quote used.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sliceOnce } from '../../server/slicer/engine.ts';
import { printStats } from '../../server/slicer/print-stats.ts';
import type { ResolvedSettings } from '../../shared/settings.ts';
import { corpusBytes } from '../helpers/corpus.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { notchedPrismObj } from '../helpers/prusa-project.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'prusaslicer');
const fixture = (name: string) => new Uint8Array(readFileSync(path.join(fixtures, name)));

let server: TestServer;
let api: ApiClient;
let dir: string;
const effective: Record<'cube' | 'notched', string> = { cube: '', notched: '' };

before(async () => {
  server = await startTestServer();
  api = server.client((await server.newAccount()).token);
  dir = mkdtempSync(path.join(tmpdir(), 'sq-project-'));
  effective.cube = path.join(dir, 'cube.obj');
  effective.notched = path.join(dir, 'notched.obj');
  writeFileSync(effective.cube, CUBE_OBJ);
  writeFileSync(effective.notched, notchedPrismObj(20, 10, 20));
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Case {
  file: string;
  geometry: keyof typeof effective;
  /** Warning codes the upload must carry, in order. */
  warnings: string[];
  check?: (warnings: Record<string, any>[]) => void;
}

const CASES: Case[] = [
  { file: 'cube-cli-export.3mf', geometry: 'cube', warnings: ['missing_thumbnail'] },
  {
    file: 'cube-modifier.3mf',
    geometry: 'cube',
    warnings: ['missing_thumbnail', 'volume_ignored', 'settings_ignored'],
    check([, volume, settings]) {
      assert.ok(volume && settings);
      assert.deepEqual({ type: volume.volume_type, count: volume.count }, { type: 'modifier', count: 1 });
      assert.deepEqual(settings.settings, ['fill_density', 'layer_height', 'perimeters']);
      assert.match(settings.message, /fill_density, layer_height, perimeters/);
    },
  },
  {
    file: 'cube-support-volumes.3mf',
    geometry: 'cube',
    warnings: ['missing_thumbnail', 'volume_ignored', 'volume_ignored'],
    check: (w) =>
      assert.deepEqual(
        w.slice(1).map((x) => x.volume_type),
        ['support_enforcer', 'support_blocker'],
      ),
  },
  { file: 'cube-legacy-modifier.3mf', geometry: 'cube', warnings: ['volume_ignored', 'settings_ignored'] },
  {
    file: 'cube-negative-volume.3mf',
    geometry: 'notched',
    warnings: ['missing_thumbnail', 'negative_volume_subtracted'],
    check: ([, negative]) => assert.equal(negative?.count, 1),
  },
  {
    file: 'cube-print-profile.3mf',
    geometry: 'cube',
    warnings: ['missing_thumbnail', 'settings_ignored'],
    check: ([, profile]) => assert.equal(profile?.part, 'Metadata/Slic3r_PE.config'),
  },
];

for (const c of CASES) {
  test(`${c.file}: warnings ${c.warnings.join(', ')}; weighs what the bare slicer gives for the effective geometry`, async () => {
    const upload = await api.uploadBytes('/v2/file', fixture(c.file), c.file);
    assert.equal(upload.status, 201, JSON.stringify(upload.body));
    const warnings = upload.body.warnings as Record<string, any>[];
    assert.deepEqual(
      warnings.map((w) => w.code),
      c.warnings,
    );
    for (const w of warnings) assert.ok(w.message.length > 20, w.code);
    c.check?.(warnings);
    assert.equal(upload.body.measurements.triangles, 12, 'only the part is measured');

    const quote = await api.post(`/v2/file/quote/${upload.body.file_id}`, {
      material_config: { filament_type: 'PLA' },
    });
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const [row] = await server.deps.db.query<{ resolved: { settings: ResolvedSettings } }>(
      'SELECT resolved FROM quotes WHERE id = $1',
      [quote.body.quote_id],
    );
    assert.ok(row, 'the quote is stored');
    const bare = await sliceOnce({
      meshPath: effective[c.geometry],
      settings: row.resolved.settings,
      timeoutMs: 120_000,
    });
    const ours = quote.body.print_stats.filament_weight_g as number;
    const expected = printStats(bare.stats, row.resolved.settings.material).filament_weight_g;
    assert.ok(Math.abs(ours - expected) / expected <= 0.005, `${c.file}: ${ours} g, bare slicer ${expected} g`);
  });
}

test('a negative volume is handed to the slicer in a canonical 3MF of our own, stable for the same mesh', async () => {
  const a = await api.uploadBytes('/v2/file', fixture('cube-negative-volume.3mf'), 'a.3mf');
  const b = await api.uploadBytes('/v2/file', fixture('cube-negative-volume.3mf'), 'b.3mf');
  const canonical = server.deps.storage.canonicalPath(a.body.file_id);
  assert.match(canonical, /canonical\.3mf$/);
  assert.deepEqual(readFileSync(canonical), readFileSync(server.deps.storage.canonicalPath(b.body.file_id)));
  const plain = await api.uploadBytes('/v2/file', fixture('cube-modifier.3mf'), 'modifier.3mf');
  assert.match(server.deps.storage.canonicalPath(plain.body.file_id), /canonical\.obj$/);
});

test('the conformance case of a missing thumbnail in a non-PrusaSlicer package is still refused', async () => {
  const bytes = corpusBytes(
    '3mf/conformance/mustfail/MUSTFAIL_Chapter2.1.3_PartsRelationships_NonExistThumbnailPart.3mf',
  );
  const res = await api.uploadBytes('/v2/file', bytes, 'dice.3mf');
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, '3mf_rule_violation');
});
