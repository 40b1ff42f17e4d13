// PrusaSlicer projects in the parser: volume types, project settings, the canonical 3MF, thumbnails.
// The end-to-end weights (real slices through the API) are in test/api/project-3mf.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { ModelError, type ParsedModel, parseModel, writeCanonical3mf } from '../shared/model/index.ts';
import { type Box, type Project, projectThreeMf, TWO_COLOUR_PROJECT } from './helpers/prusa-project.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'prusaslicer');
const fixture = (name: string) => new Uint8Array(readFileSync(path.join(fixtures, name)));
const CUBE: Box = [0, 0, 0, 20, 20, 20];
const codes = (r: ParsedModel) => r.warnings.map((w) => w.code);

function refuses(fn: () => unknown, code: string, message?: RegExp): ModelError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ModelError, String(err));
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return err;
  }
  return assert.fail(`expected ${code}`);
}

/** Replaces one part of a zip. */
function withPart(bytes: Uint8Array, name: string, content: string): Uint8Array {
  const files = unzipSync(bytes);
  files[name] = strToU8(content);
  return zipSync(files);
}

describe('PrusaSlicer volume types', () => {
  it('prints model parts only: a modifier, blocker or enforcer adds no triangles', () => {
    for (const type of ['ParameterModifier', 'SupportBlocker', 'SupportEnforcer', 'legacy-modifier'] as const) {
      const r = parseModel(
        projectThreeMf({
          volumes: [
            { box: CUBE, type: 'ModelPart' },
            { box: [10, 10, 5, 30, 30, 15], type },
          ],
        }),
        '3mf',
      );
      assert.equal(r.measurements.triangles, 12, type);
      assert.equal(r.measurements.volume_mm3, 8000, type);
      assert.deepEqual(r.measurements.bbox.max, [20, 20, 20], `${type}: the helper does not stretch the bounding box`);
      assert.deepEqual(codes(r), ['volume_ignored']);
      assert.equal(r.negativeVolumes, null);
    }
  });

  it('keeps negative volumes apart, placed like their part', () => {
    const project: Project = {
      volumes: [
        { box: CUBE, type: 'ModelPart' },
        { box: [10, 10, -1, 30, 30, 21], type: 'NegativeVolume' },
      ],
    };
    const moved = unzipSync(projectThreeMf(project));
    const model = new TextDecoder()
      .decode(moved['3D/3dmodel.model'])
      .replace('transform="1 0 0 0 1 0 0 0 1 0 0 0"', 'transform="1 0 0 0 1 0 0 0 1 100 0 0"');
    moved['3D/3dmodel.model'] = strToU8(model);
    const r = parseModel(zipSync(moved), '3mf');
    assert.equal(r.measurements.triangles, 12);
    assert.deepEqual(r.measurements.bbox.min, [100, 0, 0]);
    assert.ok(r.negativeVolumes);
    assert.equal(r.negativeVolumes.indices.length / 3, 12);
    assert.equal(r.negativeVolumes.positions.length / 3, 8, "only the negative volume's own vertices");
    assert.deepEqual([...r.negativeVolumes.positions.subarray(0, 3)], [110, 10, -1]);
    assert.deepEqual(codes(r), ['negative_volume_subtracted']);
  });

  it('drops triangles outside every volume, as PrusaSlicer does', () => {
    const bytes = projectThreeMf({
      volumes: [
        { box: CUBE, type: 'ModelPart' },
        { box: [30, 0, 0, 40, 10, 10], type: 'ModelPart' },
      ],
    });
    const config = new TextDecoder()
      .decode(unzipSync(bytes)['Metadata/Slic3r_PE_model.config'])
      .replace(/ {2}<volume firstid="12"[\s\S]*?<\/volume>\n/, '');
    const r = parseModel(withPart(bytes, 'Metadata/Slic3r_PE_model.config', config), '3mf');
    assert.equal(r.measurements.triangles, 12);
  });

  it('refuses inconsistent project data with project_config_invalid', () => {
    const bytes = projectThreeMf({ volumes: [{ box: CUBE, type: 'ModelPart' }] });
    const config = new TextDecoder().decode(unzipSync(bytes)['Metadata/Slic3r_PE_model.config']);
    const cases: [string, RegExp][] = [
      [config.replace('lastid="11"', 'lastid="40"'), /spans triangles 0 to 40, but the object has 12/],
      [config.replace('lastid="11"', 'lastid="x"'), /triangle range/],
      [config.replace('value="ModelPart"', 'value="Hologram"'), /unknown volume_type "Hologram"/],
      [config.replace('</object>', '</object><object id="1"></object>'), /object 1 is described twice/],
    ];
    for (const [text, message] of cases)
      refuses(
        () => parseModel(withPart(bytes, 'Metadata/Slic3r_PE_model.config', text), '3mf'),
        'project_config_invalid',
        message,
      );
  });

  it('names the settings it ignores: per object, per volume, per modifier, per layer range', () => {
    const bytes = projectThreeMf({
      volumes: [
        { box: CUBE, type: 'ModelPart', settings: { extruder: '2' } },
        { box: [5, 5, 5, 10, 10, 10], type: 'ParameterModifier', settings: { fill_density: '90%' } },
      ],
      objectSettings: { layer_height: '0.05', support_material: '1' },
      parts: { 'Metadata/Prusa_Slicer_layer_config_ranges.xml': '<objects/>' },
    });
    const r = parseModel(bytes, '3mf');
    const settings = r.warnings.find((w) => w.code === 'settings_ignored');
    assert.deepEqual(settings?.settings, [
      'extruder',
      'fill_density',
      'layer_config_ranges',
      'layer_height',
      'support_material',
    ]);
    assert.match(settings!.message, /extruder, fill_density, layer_config_ranges, layer_height, support_material/);
  });

  it('reads the real PrusaSlicer files in test/fixtures', () => {
    const modifier = parseModel(fixture('cube-modifier.3mf'), '3mf');
    assert.deepEqual(codes(modifier), ['missing_thumbnail', 'volume_ignored', 'settings_ignored']);
    assert.equal(modifier.measurements.triangles, 12);
    const negative = parseModel(fixture('cube-negative-volume.3mf'), '3mf');
    assert.equal(negative.negativeVolumes?.indices.length, 36);
  });
});

describe('multi-colour parts (multi_material)', () => {
  const conformance = (name: string) =>
    new Uint8Array(readFileSync(path.join(fixtures, '..', 'models', '3mf', 'conformance', 'examples', `${name}.3mf`)));
  const multi = (bytes: Uint8Array) => parseModel(bytes, '3mf').warnings.find((w) => w.code === 'multi_material');

  it('a project whose parts print with two extruders is multi-colour; one extruder, or a modifier’s, is not', () => {
    const two = multi(projectThreeMf(TWO_COLOUR_PROJECT));
    assert.deepEqual([two?.assignment, two?.count], ['extruders', 2]);
    assert.match(two!.message, /multi-colour \(its parts are assigned to 2 extruders\)/);
    const inherited = projectThreeMf({
      volumes: [
        { box: CUBE, type: 'ModelPart', settings: { extruder: '0' } },
        { box: [25, 0, 0, 45, 20, 20], type: 'ModelPart' },
      ],
      objectSettings: { extruder: '3' },
    });
    assert.equal(multi(inherited), undefined, 'both parts take the object’s extruder 3');
    const modifier = projectThreeMf({
      volumes: [
        { box: CUBE, type: 'ModelPart' },
        { box: [5, 5, 5, 10, 10, 10], type: 'ParameterModifier', settings: { extruder: '2' } },
      ],
    });
    assert.equal(multi(modifier), undefined, 'a modifier prints nothing');
  });

  it('painted triangles (PrusaSlicer’s mmu_segmentation) are multi-colour', () => {
    const bytes = projectThreeMf({ volumes: [{ box: CUBE, type: 'ModelPart' }] });
    const model = new TextDecoder().decode(unzipSync(bytes)['3D/3dmodel.model']);
    const painted = model.replace('<triangle v1="0"', '<triangle slic3rpe:mmu_segmentation="8" v1="0"');
    assert.notEqual(painted, model);
    assert.equal(multi(withPart(bytes, '3D/3dmodel.model', painted))?.assignment, 'painting');
  });

  it('Materials extension colours: several in use are multi-colour, one shared by every object is not', () => {
    for (const name of [
      'dodeca_chain_loop_color',
      'rhombicuboctahedron_color',
      'pyramid_vertexcolor',
      'multiprop-opaque',
    ])
      assert.equal(multi(conformance(name))?.assignment, 'materials', name);
    for (const name of ['box', 'cube_gears', 'dodeca_chain_loop', 'torus'])
      assert.equal(multi(conformance(name)), undefined, name);
  });
});

describe('missing thumbnails', () => {
  it('are a warning in a PrusaSlicer project (the command line writes them so)', () => {
    const r = parseModel(fixture('cube-cli-export.3mf'), '3mf');
    assert.deepEqual(r.warnings, [
      {
        code: 'missing_thumbnail',
        message:
          'The package lists a thumbnail (/Metadata/thumbnail.png) that it does not contain; the model itself is complete.',
        part: '/Metadata/thumbnail.png',
      },
    ]);
  });

  it('stay refused elsewhere, and other missing parts stay refused in projects too', () => {
    const files = unzipSync(fixture('cube-cli-export.3mf'));
    delete files['Metadata/Slic3r_PE_model.config'];
    refuses(() => parseModel(zipSync(files), '3mf'), '3mf_rule_violation', /thumbnail/);
    const rels = new TextDecoder()
      .decode(unzipSync(fixture('cube-cli-export.3mf'))['_rels/.rels'])
      .replace('relationships/metadata/thumbnail', 'relationships/metadata/core-properties');
    refuses(
      () => parseModel(withPart(fixture('cube-cli-export.3mf'), '_rels/.rels', rels), '3mf'),
      '3mf_rule_violation',
      /does not exist/,
    );
  });
});

describe('the canonical 3MF', () => {
  const project = projectThreeMf({
    volumes: [
      { box: CUBE, type: 'ModelPart' },
      { box: [10, 10, -1, 30, 30, 21], type: 'NegativeVolume' },
    ],
  });
  const parsed = parseModel(project, '3mf');
  const canonical = writeCanonical3mf(parsed.mesh, parsed.negativeVolumes!);

  it('reads back to the identical part and negative volume', () => {
    const again = parseModel(canonical, '3mf');
    assert.deepEqual(again.mesh, parsed.mesh);
    assert.deepEqual(again.negativeVolumes, parsed.negativeVolumes);
    assert.deepEqual(codes(again), ['negative_volume_subtracted']);
  });

  it('is the same bytes every time, a valid zip with correct checksums', () => {
    assert.deepEqual(writeCanonical3mf(parsed.mesh, parsed.negativeVolumes!), canonical);
    const entries = unzipSync(canonical);
    assert.deepEqual(Object.keys(entries), [
      '[Content_Types].xml',
      '_rels/.rels',
      '3D/3dmodel.model',
      'Metadata/Slic3r_PE_model.config',
    ]);
    const view = new DataView(canonical.buffer, canonical.byteOffset);
    let offset = 0;
    for (const content of Object.values(entries)) {
      assert.equal(view.getUint32(offset, true), 0x04034b50);
      assert.equal(view.getUint32(offset + 14, true), crc32(content));
      offset += 30 + view.getUint16(offset + 26, true) + content.length;
    }
  });
});
