// The merchant chooses whether shoppers see how a price is made (the offer's show_cost_breakdown, off by default):
// a widget key's answers — the quote, the job, the quote read again, the kept quote — carry the price and its tax
// but no cost lines, price per gram or resolved settings, and the kept quote's PDF prints none of them; the
// merchant's API token always reads everything. Turned on, shoppers see the breakdown and the PDF prints it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { COST_WORDS, pdfText } from '../helpers/pdf-text.ts';
import { merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';

const SHOP = 'https://costs.example';
let server: TestServer;
let shop: Awaited<ReturnType<typeof merchantShop>>;

before(async () => {
  server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business' });
  shop = await merchantShop(server, 'costs-shop@example.test', SHOP);
});
after(() => server.stop());

const COST_LINES = ['material', 'support', 'machine', 'energy', 'fixed_fee', 'price_per_gram'];

/** A quote as a shopper may see it with the breakdown hidden: the price and its tax, nothing of the costs. */
function assertNoCosts(quote: Record<string, any>, where: string) {
  const b = quote.price_breakdown;
  for (const line of COST_LINES) assert.equal(b[line], undefined, `${where}: no ${line}`);
  assert.deepEqual(Object.keys(b.minor_units).sort(), ['subtotal', 'tax', 'total'], `${where}: minor units`);
  assert.equal(b.total, quote.total_price, `${where}: the total stays`);
  assert.equal(typeof b.minimum_price_applied, 'boolean');
  assert.equal(quote.settings, undefined, `${where}: no resolved settings (hourly cost, power, price per kg)`);
  assert.equal(quote.setting_sources, undefined, `${where}: no setting sources`);
}

async function setSwitch(show: boolean) {
  const { source: _source, ...offer } = (await shop.api.get('/v2/offer')).body;
  const saved = await shop.api.put('/v2/offer', { ...offer, show_cost_breakdown: show });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.show_cost_breakdown, show);
}

test('off by default: every widget answer hides the cost breakdown, the API token reads it, the PDF prints none', async () => {
  assert.equal((await shop.api.get('/v2/offer')).body.show_cost_breakdown, false, 'off by default');
  const s = widgetShopper(server, shop.key, SHOP);
  const fileId = await s.upload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
  const sync = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(sync.status, 200, JSON.stringify(sync.body));
  assertNoCosts(sync.body, 'the quote');
  assertNoCosts((await s.get(`/v2/quotes/${sync.body.quote_id}`)).body, 'the quote read again');

  const offer = (await s.get('/v2/widget/config')).body;
  const infill = offer.infill_options.find((v: number) => v !== offer.default_infill);
  const accepted = await s.post(`/v2/file/quote/${fileId}/async`, { choices: { infill } });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  let job = (await s.request('GET', accepted.body.status_url, { prefer: 'wait=10' })).body;
  while (job.status !== 'completed' && job.status !== 'failed')
    job = (await s.request('GET', accepted.body.status_url, { prefer: 'wait=10' })).body;
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  assertNoCosts(job.result, 'the job');

  const link = (await s.post(`/v2/quotes/${sync.body.quote_id}/link`, {})).body;
  assertNoCosts((await s.get(link.url)).body.quote, 'the kept quote');
  const text = await pdfText((await s.get(link.pdf_url)).raw);
  assert.match(text, /Total\n/);
  assert.doesNotMatch(text, COST_WORDS, text);
  // The merchant's own PDF is the same quotation: the switch decides what a PDF prints, whoever asks.
  assert.doesNotMatch(await pdfText((await shop.api.get(link.pdf_url)).raw), COST_WORDS);

  // The merchant reads everything.
  const merchant = (await shop.api.get(`/v2/quotes/${sync.body.quote_id}`)).body;
  for (const line of COST_LINES) assert.equal(typeof merchant.price_breakdown[line], 'number', line);
  assert.equal(typeof merchant.settings.printer_config.hourly_cost, 'number');
  assert.equal(typeof (await shop.api.get(link.url)).body.quote.price_breakdown.machine, 'number');
});

test('on: shoppers see the breakdown and the settings, and the PDF prints how the price of one part is made', async () => {
  await setSwitch(true);
  try {
    const s = widgetShopper(server, shop.key, SHOP);
    const fileId = await s.upload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
    const q = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
    assert.equal(q.status, 200, JSON.stringify(q.body));
    for (const line of COST_LINES) assert.equal(typeof q.body.price_breakdown[line], 'number', line);
    assert.equal(typeof q.body.settings.printer_config.hourly_cost, 'number');
    const link = (await s.post(`/v2/quotes/${q.body.quote_id}/link`, {})).body;
    assert.equal(typeof (await s.get(link.url)).body.quote.price_breakdown.machine, 'number');
    const text = await pdfText((await s.get(link.pdf_url)).raw);
    assert.match(text, /How the price of one part is made/);
    assert.match(text, /Machine time\n/);
    assert.match(text, /Price of one part\n/);
  } finally {
    await setSwitch(false);
  }
});

test('the switch and the contact are checked like every offer field, and the contact is printed', async () => {
  const { source: _source, ...offer } = (await shop.api.get('/v2/offer')).body;
  assert.equal(offer.contact, null);
  for (const [field, value] of [
    ['show_cost_breakdown', 'yes'],
    ['contact', ''],
    ['contact', 'x'.repeat(201)],
  ] as const) {
    const res = await shop.api.put('/v2/offer', { ...offer, [field]: value });
    assert.equal(res.status, 400, `${field}: ${JSON.stringify(value)}`);
    assert.equal(res.body.error.details.fields[0].field, field);
  }
  const saved = await shop.api.put('/v2/offer', { ...offer, contact: '  orders@costs.example · +1 555 0100 ' });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.contact, 'orders@costs.example · +1 555 0100');
  try {
    const s = widgetShopper(server, shop.key, SHOP);
    const fileId = await s.upload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj');
    const q = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
    const link = (await s.post(`/v2/quotes/${q.body.quote_id}/link`, {})).body;
    const text = await pdfText((await s.get(link.pdf_url)).raw);
    assert.match(text, /^Contact: orders@costs\.example · \+1 555 0100$/m, text);
  } finally {
    await shop.api.put('/v2/offer', { ...offer, contact: null });
  }
});
