// The hostile corpus against the parsers in-process: each file is refused with the code of the limit it
// hits, before the amplification happens. Memory is measured on a real server process in
// test/api/hostile-uploads.test.ts and in `npm run bench`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LIMITS, ModelError, type ParseLimits, parseModel } from '../shared/model/index.ts';
import { HOSTILE_CASES, hostile3mf, hostileCase } from './helpers/hostile.ts';

function refusal(bytes: Uint8Array, limits?: Partial<ParseLimits>): ModelError {
  try {
    parseModel(bytes, undefined, limits);
  } catch (err) {
    assert.ok(err instanceof ModelError, String(err));
    return err;
  }
  return assert.fail('expected a refusal');
}

const CORE = 'http://schemas.microsoft.com/3dmanufacturing/core/2015/02';
const CUBE =
  '<resources><object id="1"><mesh><vertices><vertex x="0" y="0" z="0"/><vertex x="1" y="0" z="0"/><vertex x="0" y="1" z="0"/>' +
  '<vertex x="0" y="0" z="1"/></vertices><triangles><triangle v1="0" v2="2" v3="1"/><triangle v1="0" v2="1" v3="3"/>' +
  '<triangle v1="1" v2="2" v3="3"/><triangle v1="0" v2="3" v3="2"/></triangles></mesh></object></resources><build><item objectid="1"/></build>';
const model = (inner: string) =>
  hostile3mf([
    { bytes: `<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="${CORE}">${inner}${CUBE}</model>` },
  ]);

// Floods of 3MF vertices or triangles take a minute at the default caps: here they meet smaller caps.
const SMALLER_CAPS: Record<string, Partial<ParseLimits>> = {
  '3mf_vertex_flood': { maxVertices: 200_000 },
  '3mf_triangle_flood': { maxTriangles: 200_000 },
  '3mf_instanced_vertices': { maxVertices: 200_000 },
};

describe('the hostile corpus', () => {
  for (const c of HOSTILE_CASES) {
    it(`${c.name} is refused with ${c.code}`, () => {
      const err = refusal(c.build(), SMALLER_CAPS[c.name]);
      assert.equal(err.code, c.code, err.message);
    });
  }

  it('names the limit in the refusal', () => {
    const token = refusal(hostileCase('3mf_attribute_500mb').build());
    assert.deepEqual(token.details, { part: '/3D/3dmodel.model', limit: DEFAULT_LIMITS.maxXmlTokenChars });
    assert.match(token.message, /longer than 1048576 characters/);
    const attributes = refusal(hostileCase('3mf_many_attributes').build());
    assert.deepEqual(attributes.details, { part: '/3D/3dmodel.model', limit: DEFAULT_LIMITS.maxXmlAttributes });
  });
});

describe('XML token caps', () => {
  it('accept tokens up to the cap: a long description, an element with many attributes', () => {
    const description = `<metadata name="Description">${'word '.repeat(150_000)}</metadata>`;
    assert.equal(parseModel(model(description), '3mf').measurements.triangles, 4);
    const attributes = Array.from({ length: 200 }, (_, i) => `a${i}="${i}"`).join(' ');
    assert.equal(
      parseModel(model(`<metadata name="Title" ${attributes}>t</metadata>`), '3mf').measurements.triangles,
      4,
    );
  });

  it('measure a comment that keeps opening tags inside it', () => {
    const comment = `<!--${'<b>comment text that goes on '.repeat(70_000)}-->`;
    assert.equal(refusal(model(comment)).code, 'xml_token_too_large');
  });

  it('measure a start tag across its attributes', () => {
    const attributes = Array.from({ length: 200 }, (_, i) => `a${i}="${'v'.repeat(8_000)}"`).join(' ');
    assert.equal(refusal(model(`<metadata name="Title" ${attributes}>t</metadata>`)).code, 'xml_token_too_large');
  });

  it('apply to the package control parts too', () => {
    const rels = hostile3mf([
      { bytes: `<?xml version="1.0"?><model unit="millimeter" xmlns="${CORE}">${CUBE}</model>` },
    ]);
    assert.equal(parseModel(rels, '3mf', { maxXmlTokenChars: 200 }).measurements.triangles, 4);
    const err = refusal(rels, { maxXmlTokenChars: 100 });
    assert.equal(err.code, 'xml_token_too_large');
    assert.match(String(err.details?.part), /\.rels$|Content_Types/);
  });
});
