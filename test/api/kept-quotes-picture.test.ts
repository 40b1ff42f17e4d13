// A kept quote's picture is drawn off the event loop, within its budget: while the costliest mesh is drawn the
// server answers everyone else; a mesh past the budget shows its grey bounding box, a normal part itself; each
// file's picture is drawn once however often and however concurrently its links are opened.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { createPartPictures, type PartPictures, pictureOptions } from '../../server/kept-quotes/index.ts';
import { PICTURE_WORK_BUDGET } from '../../server/kept-quotes/picture.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { pictureBombObj } from '../helpers/picture-bomb.ts';
import { until } from '../helpers/poll.ts';
import { merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';

const SHOP = 'https://picture.example';
let server: TestServer;
let shop: Awaited<ReturnType<typeof merchantShop>>;

before(async () => {
  server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business' });
  shop = await merchantShop(server, 'picture-shop@example.test', SHOP);
});
after(() => server.stop());

/** A kept link to a completed quote of `obj`, made by a shopper at `address`. */
async function keptLink(obj: string, name: string, address: string) {
  const s = widgetShopper(server, shop.key, SHOP, address);
  const fileId = await s.upload(new TextEncoder().encode(obj), name);
  const q = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  const link = await s.post(`/v2/quotes/${q.body.quote_id}/link`, {});
  assert.equal(link.status, 201, JSON.stringify(link.body));
  return { s, url: link.body.url as string };
}

/** The RGB pixels of the kept quote's picture (an 8-bit RGB PNG, unfiltered rows, as the server writes it). */
function pixels(dataUrl: string): { rgb: Buffer; description: string } {
  assert.match(dataUrl, /^data:image\/png;base64,/);
  const png = Buffer.from(dataUrl.split(',')[1]!, 'base64');
  const px = png.readUInt32BE(16);
  assert.equal(px, 320, 'a 320 px picture');
  const idat: Buffer[] = [];
  let description = '';
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IDAT') idat.push(data);
    if (type === 'tEXt') description = data.toString('latin1').split('\0')[1] ?? '';
    at += 12 + length;
  }
  const rows = inflateSync(Buffer.concat(idat));
  const rgb = Buffer.alloc(px * px * 3);
  for (let y = 0; y < px; y++) rows.copy(rgb, y * px * 3, y * (px * 3 + 1) + 1, (y + 1) * (px * 3 + 1));
  return { rgb, description };
}

/** How many pixels are drawn (not white), and how many of those are the part's blue rather than grey. */
function colours(rgb: Buffer): { drawn: number; blue: number } {
  let drawn = 0;
  let blue = 0;
  for (let i = 0; i < rgb.length; i += 3) {
    const [r, g, b] = [rgb[i]!, rgb[i + 1]!, rgb[i + 2]!];
    if (r === 255 && g === 255 && b === 255) continue;
    drawn++;
    if (b > r + 30) blue++;
  }
  return { drawn, blue };
}

/** Puts a picture maker in the server for one test, and the server's own back after it. */
async function withPictures<T>(pictures: PartPictures, run: () => Promise<T>): Promise<T> {
  const own = server.deps.pictures;
  server.deps.pictures = pictures;
  try {
    return await run();
  } finally {
    server.deps.pictures = own;
    await pictures.close();
  }
}

test('while the costliest picture is drawn /healthz answers; past its budget the part shows as its grey box', async () => {
  // Each triangle covers about a third of the picture: a few thousand spend the budget many times over.
  const bomb = await keptLink(pictureBombObj(4000), 'slivers.obj', '127.0.0.21');
  // Drawings are held in the worker once well into their work, so the test can look at the server meanwhile.
  const pictures = createPartPictures({ ...pictureOptions(), pauseAtWork: PICTURE_WORK_BUDGET / 2 });
  await withPictures(pictures, async () => {
    let opened = false;
    const opening = bomb.s.get(bomb.url).finally(() => {
      opened = true;
    });
    const held = await until('the bomb’s drawing to be held mid-way in the worker', 60_000, () => {
      const state = pictures.state();
      return state.held ? state : undefined;
    });
    assert.ok(held.drawing && held.work >= PICTURE_WORK_BUDGET / 2, JSON.stringify(held));

    // Another client's /healthz answers while the drawing is in the middle of its work.
    const other = server.client();
    other.localAddress = '127.0.0.22';
    const health = await other.get('/healthz');
    assert.equal(health.status, 200);
    assert.equal(opened, false, 'the picture is still being drawn when /healthz answers');
    assert.equal(pictures.state().held, true);

    pictures.release();
    const res = await opening;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { rgb, description } = pixels(res.body.picture);
    const seen = colours(rgb);
    assert.equal(description, 'outline');
    assert.ok(seen.drawn > 5000, `the outline is drawn (${seen.drawn} pixels)`);
    assert.equal(seen.blue, 0, 'the outline is grey, never the part’s colour');
    assert.deepEqual(pictures.state().made, { part: 0, outline: 1, none: 0 });

    // Opening it again, and its PDF, draws nothing more.
    assert.equal((await bomb.s.get(bomb.url)).body.picture, res.body.picture);
    assert.equal((await bomb.s.get(`${bomb.url}/pdf`)).status, 200);
    assert.deepEqual(pictures.state().made, { part: 0, outline: 1, none: 0 });
  });
});

test('a normal part gets its own picture, drawn once for concurrent first opens', async () => {
  const cube = await keptLink(CUBE_OBJ, 'cube.obj', '127.0.0.23');
  const pictures = createPartPictures(pictureOptions());
  await withPictures(pictures, async () => {
    const [a, b, pdf] = await Promise.all([
      cube.s.get(cube.url),
      shop.api.get(cube.url),
      cube.s.get(`${cube.url}/pdf`),
    ]);
    assert.equal(a.status, 200);
    assert.equal(pdf.status, 200);
    assert.equal(a.body.picture, b.body.picture);
    const { rgb, description } = pixels(a.body.picture);
    const seen = colours(rgb);
    assert.equal(description, 'part');
    assert.ok(seen.blue > 5000 && seen.blue === seen.drawn, `the cube in the part's blue (${JSON.stringify(seen)})`);
    assert.deepEqual(pictures.state().made, { part: 1, outline: 0, none: 0 }, 'three first opens, one drawing');
  });
});
