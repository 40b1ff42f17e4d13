// Shoppers choose, merchants price: the offer, choices-only widget quotes, shopper sessions, signed expiring
// quotes and the allowance rule, tried as a hostile shopper holding the shop's public key and as a careful
// merchant would.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { assertWebhookBody } from '../helpers/contract.ts';
import { boxesObj } from '../helpers/meshes.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const SHOP = 'https://offer-shop.example';
const PART = new TextEncoder().encode(boxesObj([[0, 0, 0, 12, 12, 8]]));
let server: TestServer;
let dashboard: ApiClient;
let api: ApiClient;
let accountId: string;
let key: string;
let keyId: string;

const OFFER = {
  materials: [
    { material: 'pla', colors: ['White', 'Black'] },
    { material: 'PETG', colors: [] },
  ],
  default_material: 'PLA',
  qualities: [
    { id: 'standard', label: 'Standard 0.2 mm', printer_config: {} },
    { id: 'fine', label: 'Fine 0.1 mm', printer_config: { layer_height: 0.1, perimeters: 3 } },
  ],
  default_quality: 'standard',
  infill_options: [15, 40],
  default_infill: 15,
  quantity: { min: 1, max: 20 },
  minimum_price: null,
  minimum_line_price: 25,
  lead_time: 'Ships in 3–5 business days',
};

before(async () => {
  // Every widget call here comes from one address: count it under a roomy plan.
  server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business' });
  dashboard = server.client();
  const signup = await dashboard.post('/dashboard/api/signup', {
    email: 'offer-shop@example.test',
    password: 'a long enough password',
    shop_name: 'Offer Works',
  });
  dashboard.csrf = signup.body.csrf_token;
  accountId = signup.body.user.user_id;
  api = server.client((await dashboard.post('/dashboard/api/tokens', { name: 'backend' })).body.token);
  const created = await dashboard.post('/dashboard/api/widget-keys', { name: 'Shop', allowed_origins: [SHOP] });
  key = created.body.key;
  keyId = created.body.widget_key_id;
});
after(() => server.stop());

function shopper(token?: string, widgetKey = key) {
  const c = server.client();
  const headers = () => ({ 'x-widget-key': widgetKey, origin: SHOP, ...(token ? { 'x-shopper-token': token } : {}) });
  return {
    get token() {
      return token;
    },
    get: (p: string) => c.request('GET', p, { headers: headers() }),
    post: (p: string, json: unknown) => c.request('POST', p, { json, headers: headers() }),
    async upload(bytes = PART): Promise<string> {
      const ticket = await c.request('GET', '/v2/file/upload-id', { headers: headers() });
      assert.equal(ticket.status, 200);
      token = ticket.body.shopper_token;
      const up = await c.uploadBytes(`/v2/file/public/${ticket.body.upload_id}`, bytes, 'part.obj');
      assert.equal(up.status, 201, JSON.stringify(up.body));
      return up.body.file_id;
    },
  };
}

const fieldsOf = (res: { body: any }) => (res.body.error.details?.fields ?? []).map((f: { field: string }) => f.field);

test('a widget key cannot set a price, a fee, a currency or a slicer setting: 400 naming each field, nothing stored', async () => {
  const s = shopper();
  const fileId = await s.upload();
  const before = (await api.get('/v2/quotes?limit=100')).body.total;
  const hostile = [
    { material_config: { filament_type: 'PLA', price_per_kg: 0 } },
    { printer_config: { hourly_cost: 0 } },
    { quote_config: { fixed_fee: 0, tax_rate: 0, energy_cost_per_kwh: 0, currency: 'JPY' } },
    { printer_config: { layer_height: 0.01 } },
    { choices: { material: 'PLA' }, material_config: { price_per_gram: 0 } },
    { color: 'White' },
  ];
  for (const body of hostile) {
    const res = await s.post(`/v2/file/quote/${fileId}`, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    const expected = Object.keys(body).filter((k) => k !== 'choices');
    assert.deepEqual(fieldsOf(res), expected, JSON.stringify(body));
    const asyncRes = await s.post(`/v2/file/quote/${fileId}/async`, body);
    assert.equal(asyncRes.status, 400);
  }
  assert.equal((await api.get('/v2/quotes?limit=100')).body.total, before, 'no refused request left a quote');
});

test('a merchant saves an offer; unknown materials, price fields in presets and inconsistent defaults are refused by field', async () => {
  const bad = [
    [
      { ...OFFER, materials: [{ material: 'Unobtainium', colors: [] }], default_material: 'Unobtainium' },
      422,
      'materials.0.material',
    ],
    [
      {
        ...OFFER,
        qualities: [{ id: 'cheap', label: 'Cheap', printer_config: { hourly_cost: 0 } }],
        default_quality: 'cheap',
      },
      400,
      'qualities.0.printer_config.hourly_cost',
    ],
    [
      {
        ...OFFER,
        qualities: [{ id: 'thick', label: 'Thick', printer_config: { layer_height: 0.6 } }],
        default_quality: 'thick',
      },
      422,
      'qualities.0.printer_config',
    ],
    [{ ...OFFER, default_infill: 20 }, 400, 'default_infill'],
    [{ ...OFFER, quantity: { min: 5, max: 2 } }, 400, 'quantity.max'],
    [{ ...OFFER, materials: [{ material: 'PLA', colors: ['Red', 'red'] }] }, 400, 'materials.0.colors.1'],
    [{ ...OFFER, minimum_line_price: -1 }, 400, 'minimum_line_price'],
    [{ ...OFFER, surprise: true }, 400, 'surprise'],
  ] as const;
  for (const [body, status, field] of bad) {
    const res = await api.put('/v2/offer', body);
    assert.equal(res.status, status, `${field}: ${JSON.stringify(res.body)}`);
    assert.ok(fieldsOf(res).includes(field), `${field} in ${JSON.stringify(fieldsOf(res))}`);
  }
  assert.equal((await api.get('/v2/offer')).body.source, 'default', 'nothing was saved');
  const saved = await api.put('/v2/offer', OFFER);
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.source, 'account');
  assert.equal(saved.body.materials[0].material, 'PLA', "material names take the profile's spelling");
  const config = await shopper().get('/v2/widget/config');
  assert.deepEqual(config.body.materials, [
    { name: 'PLA', colors: ['White', 'Black'], description: null, swatches: {} },
    { name: 'PETG', colors: [], description: null, swatches: {} },
  ]);
  assert.deepEqual(
    config.body.qualities.map((q: { id: string; layer_height: number }) => [q.id, q.layer_height]),
    [
      ['standard', 0.2],
      ['fine', 0.1],
    ],
  );
  assert.deepEqual(config.body.quantity, { min: 1, max: 20 });
  assert.equal(config.body.lead_time, 'Ships in 3–5 business days');
  assert.equal(
    (await shopper(undefined, key).get('/v2/offer')).status,
    403,
    'a widget key cannot read or change the offer',
  );
});

test('shoppers pick only what the offer contains: 400 naming choices.<field>', async () => {
  await api.put('/v2/offer', OFFER);
  const s = shopper();
  const fileId = await s.upload();
  const cases = [
    [{ material: 'ABS' }, 'choices.material'],
    [{ material: 'PLA', color: 'Gold' }, 'choices.color'],
    [{ material: 'PETG', color: 'White' }, 'choices.color'],
    [{ quality: 'ultra' }, 'choices.quality'],
    [{ infill: 7 }, 'choices.infill'],
    [{ quantity: 21 }, 'choices.quantity'],
    [{ quantity: 0.5 }, 'choices.quantity'],
    [{ layer_height: 0.01 }, 'choices.layer_height'],
  ] as const;
  for (const [choices, field] of cases) {
    const res = await s.post(`/v2/file/quote/${fileId}`, { choices });
    assert.equal(res.status, 400, JSON.stringify(choices));
    assert.deepEqual(fieldsOf(res), [field], JSON.stringify(choices));
  }
});

test("a shopper's choices are priced with the merchant's settings and reported with their source", async () => {
  await api.put('/v2/offer', OFFER);
  const s = shopper();
  const fileId = await s.upload();
  const q = await s.post(`/v2/file/quote/${fileId}`, {
    choices: { material: 'pla', color: 'black', quality: 'fine', infill: 40, quantity: 2 },
  });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  assert.deepEqual(q.body.choices, {
    material: 'PLA',
    color: 'Black',
    quality: 'fine',
    quality_label: 'Fine 0.1 mm',
    infill: 40,
    quantity: 2,
  });
  // The settings and their sources are the merchant's to read (a shopper's answer has neither, docs/offer.md).
  assert.equal(q.body.settings, undefined);
  const merchant = (await api.get(`/v2/quotes/${q.body.quote_id}`)).body;
  assert.equal(merchant.settings.printer_config.layer_height, 0.1);
  assert.equal(merchant.settings.printer_config.perimeters, 3);
  assert.equal(merchant.settings.printer_config.fill_density, 40);
  assert.equal(merchant.setting_sources['printer_config.layer_height'], 'offer');
  assert.match(
    merchant.setting_sources['material_config.price_per_kg'] ??
      merchant.setting_sources['material_config.price_per_gram'],
    /^global:/,
  );
  assert.equal(q.body.printInfo.color, 'Black');
  // A token caller keeps the whole request body, and may use the offer's choices too.
  const own = (await api.uploadBytes('/v2/file', PART, 'own.obj')).body.file_id;
  const raw = await api.post(`/v2/file/quote/${own}`, {
    material_config: { filament_type: 'PLA', price_per_kg: 99 },
    printer_config: { layer_height: 0.15 },
  });
  assert.equal(raw.status, 200);
  assert.equal(raw.body.choices, null);
  const both = await api.post(`/v2/file/quote/${own}`, {
    choices: { quality: 'fine' },
    printer_config: { perimeters: 4 },
  });
  assert.equal(both.body.settings.printer_config.layer_height, 0.1);
  assert.equal(
    both.body.settings.printer_config.perimeters,
    4,
    'explicit settings win over the preset for a token caller',
  );
});

test("one shopper cannot quote, read or buy another shopper's upload, even with the shop's key", async () => {
  const alice = shopper();
  const fileId = await alice.upload();
  const quote = await alice.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(quote.status, 200);
  const mallory = shopper();
  await mallory.upload();
  const anonymous = shopper();
  for (const other of [mallory, anonymous]) {
    assert.equal((await other.post(`/v2/file/quote/${fileId}`, { choices: {} })).status, 404);
    assert.equal((await other.get(`/v2/quotes/${quote.body.quote_id}`)).status, 404);
    assert.equal((await other.get(`/v2/jobs/${quote.body.quote_id}`)).status, 404);
    assert.equal((await other.post('/v2/widget/cart', { quote_id: quote.body.quote_id, quantity: 1 })).status, 404);
  }
  const forged = shopper('st_short');
  assert.equal((await forged.get(`/v2/quotes/${quote.body.quote_id}`)).status, 400);
  assert.equal((await alice.get(`/v2/quotes/${quote.body.quote_id}`)).status, 200);
  // Alice keeps her session across uploads: the token she sends comes back for the next upload id.
  const second = await server.client().request('GET', '/v2/file/upload-id', {
    headers: { 'x-widget-key': key, origin: SHOP, 'x-shopper-token': alice.token! },
  });
  assert.equal(second.body.shopper_token, alice.token);
});

/** Runs the Node and Python snippets of docs/quote-signatures.md on a good and a tampered signature. */
async function docSnippets(good: unknown, bad: unknown, secret: string) {
  const doc = readFileSync(new URL('../../docs/quote-signatures.md', import.meta.url), 'utf8');
  const block = (lang: string) => {
    const code = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(doc)?.[1];
    assert.ok(code !== undefined, `docs/quote-signatures.md has a ${lang} block`);
    return code;
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'sq-doc-'));
  try {
    writeFileSync(path.join(dir, 'verify.mjs'), block('js'));
    const { verifyQuote } = await import(pathToFileURL(path.join(dir, 'verify.mjs')).href);
    const node = [verifyQuote(good, secret), verifyQuote(bad, secret)];
    const script = `${block('python')}\nimport json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps([verify_quote(s, args["secret"]) for s in args["sigs"]]))`;
    const out = execFileSync('python3', ['-c', script], { input: JSON.stringify({ sigs: [good, bad], secret }) });
    return { node, python: JSON.parse(out.toString()) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function verify(secret: string, sig: { payload: string; hmac_sha256: string }) {
  return createHmac('sha256', secret).update(sig.payload).digest('hex') === sig.hmac_sha256;
}

test('a completed quote is signed and expires; the backend verifies it offline; rotation stops old signatures', async () => {
  await api.put('/v2/offer', OFFER);
  const s = shopper();
  const fileId = await s.upload();
  const q = (await s.post(`/v2/file/quote/${fileId}`, { choices: { material: 'PETG' } })).body;
  const secret = (await dashboard.get('/dashboard/api/quote-signing-secret')).body.secret;
  assert.ok(verify(secret, q.signature), 'the signature verifies with the account secret');
  const [version, quoteId, file, revision, unit, scale, orientation, digest, minor, currency, lead, leadDays, expires] =
    q.signature.payload.split(':');
  assert.deepEqual(
    [version, quoteId, file, revision, unit, scale, orientation, digest, currency, lead, leadDays],
    ['v3', q.quote_id, fileId, '1', 'mm', '1', q.placement.orientation, q.settings_digest, 'USD', '', '0'],
  );
  assert.equal(Number(minor), Math.round(q.total_price * 100));
  assert.equal(Number(expires), Math.floor(Date.parse(q.expires_at) / 1000));
  const days = (Date.parse(q.expires_at) - Date.parse(q.completed_at)) / 86_400_000;
  assert.ok(Math.abs(days - 7) < 0.01, `valid for 7 days by default, got ${days}`);
  const tampered = { ...q.signature, payload: q.signature.payload.replace(`:${minor}:`, ':1:') };
  assert.ok(!verify(secret, tampered), 'a changed price does not verify');
  // The verification code a merchant copies from docs/quote-signatures.md, run as printed.
  const documented = await docSnippets(q.signature, tampered, secret);
  assert.deepEqual(documented.node, [
    {
      quoteId: q.quote_id,
      fileId,
      fileRevision: 1,
      unit: 'mm',
      scale: 1,
      orientation: q.placement.orientation,
      settingsDigest: q.settings_digest,
      unitAmountMinor: Number(minor),
      currency: 'USD',
      leadTime: '',
      businessDays: 0,
    },
    null,
  ]);
  assert.deepEqual(documented.python, [
    {
      quote_id: q.quote_id,
      file_id: fileId,
      file_revision: 1,
      unit: 'mm',
      scale: 1,
      orientation: q.placement.orientation,
      settings_digest: q.settings_digest,
      unit_amount_minor: Number(minor),
      currency: 'USD',
      lead_time: '',
      business_days: 0,
    },
    null,
  ]);
  assert.deepEqual(
    (await api.get(`/v2/quotes/${q.quote_id}`)).body.signature,
    q.signature,
    'online: the backend reads the same signed quote',
  );
  const rotated = (await dashboard.post('/dashboard/api/quote-signing-secret/rotate')).body.secret;
  assert.notEqual(rotated, secret);
  assert.ok(!verify(rotated, q.signature), 'old signatures stop verifying after rotation');
  const fresh = (await s.post(`/v2/file/quote/${fileId}`, { choices: { material: 'PETG', infill: 40 } })).body;
  assert.ok(verify(rotated, fresh.signature));
});

test('add-to-cart: signed line with choices, minimum line price, quantity range, expired and failed quotes refused', async () => {
  await api.put('/v2/offer', OFFER);
  const s = shopper();
  const fileId = await s.upload();
  const q = (await s.post(`/v2/file/quote/${fileId}`, { choices: { color: 'White' } })).body;
  const line = await s.post('/v2/widget/cart', { quote_id: q.quote_id, quantity: 2 });
  assert.equal(line.status, 201, JSON.stringify(line.body));
  const subtotal = Math.round(q.total_price * 100) * 2;
  assert.equal(Math.round(line.body.subtotal * 100), subtotal);
  assert.equal(Math.round(line.body.minimum_line_adjustment * 100), Math.max(0, 2500 - subtotal));
  assert.equal(
    Math.round(line.body.total_price * 100),
    Math.max(2500, subtotal),
    'the line is raised to the minimum line price',
  );
  assert.deepEqual(line.body.signature, q.signature);
  const events = await eventsForAccount(server.deps.db, accountId, 'widget.added_to_cart');
  const body = events.at(-1)!.payload;
  assertWebhookBody('WebhookEventWidgetAddedToCart', body);
  const data = (body as any).data;
  assert.deepEqual(data.choices, q.choices);
  assert.equal(data.choices.quality, 'standard');
  assert.equal(data.choices.infill, 15);
  assert.deepEqual(data.signature, q.signature);
  assert.equal(data.totalPrice, line.body.total_price);
  for (const quantity of [0, 21]) {
    const res = await s.post('/v2/widget/cart', { quote_id: q.quote_id, quantity });
    assert.equal(res.status, 400);
    assert.deepEqual(fieldsOf(res), ['quantity']);
  }
  // An octahedron standing on its tip has an empty first layer: the slice fails and so does the quote.
  const tip =
    'v 0 0 0\nv 10 0 10\nv 0 10 10\nv -10 0 10\nv 0 -10 10\nv 0 0 20\nf 1 3 2\nf 1 4 3\nf 1 5 4\nf 1 2 5\nf 6 2 3\nf 6 3 4\nf 6 4 5\nf 6 5 2\n';
  const ticket = await server.client().request('GET', '/v2/file/upload-id', {
    headers: { 'x-widget-key': key, origin: SHOP, 'x-shopper-token': s.token! },
  });
  const tipFile = (
    await server
      .client()
      .uploadBytes(`/v2/file/public/${ticket.body.upload_id}`, new TextEncoder().encode(tip), 'tip.obj')
  ).body.file_id;
  const failed = await s.post(`/v2/file/quote/${tipFile}`, { choices: {} });
  assert.equal(failed.status, 422, JSON.stringify(failed.body));
  const refused = await s.post('/v2/widget/cart', { quote_id: failed.body.error.details.quote_id, quantity: 1 });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, 'quote_not_completed');
  const realNow = server.deps.now;
  server.deps.now = () => new Date(Date.now() + 8 * 86_400_000);
  try {
    const expired = await s.post('/v2/widget/cart', { quote_id: q.quote_id, quantity: 1 });
    assert.equal(expired.status, 410);
    assert.equal(expired.body.error.code, 'quote_expired');
    assert.equal((await s.get(`/v2/quotes/${q.quote_id}`)).body.expired, true);
  } finally {
    server.deps.now = realNow;
  }
});

test('quote validity is a merchant setting (global settings profile), not a request field', async () => {
  const profile = await api.post('/v2/profiles/global', {
    name: 'Short-lived quotes',
    is_default: true,
    settings: { quote_validity_days: 1 },
  });
  assert.equal(profile.status, 201, JSON.stringify(profile.body));
  try {
    const own = (await api.uploadBytes('/v2/file', PART, 'own.obj')).body.file_id;
    const refused = await api.post(`/v2/file/quote/${own}`, { quote_config: { quote_validity_days: 365 } });
    assert.equal(refused.status, 400);
    assert.deepEqual(fieldsOf(refused), ['quote_config.quote_validity_days']);
    const q = (await api.post(`/v2/file/quote/${own}`, {})).body;
    const days = (Date.parse(q.expires_at) - Date.parse(q.completed_at)) / 86_400_000;
    assert.ok(Math.abs(days - 1) < 0.01, `valid for 1 day, got ${days}`);
  } finally {
    await api.delete(`/v2/profiles/global/${profile.body.profile_id}`);
  }
});

test('a widget key can have its own offer; removing it returns the key to the account offer', async () => {
  await api.put('/v2/offer', OFFER);
  const other = await dashboard.post('/dashboard/api/widget-keys', { name: 'Trade counter', allowed_origins: [SHOP] });
  const own = {
    ...OFFER,
    materials: [{ material: 'ABS', colors: ['Black'] }],
    default_material: 'ABS',
    quantity: { min: 10, max: 500 },
  };
  const put = await dashboard.put(`/dashboard/api/widget-keys/${other.body.widget_key_id}/offer`, own);
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.source, 'widget_key');
  const trade = shopper(undefined, other.body.key);
  assert.deepEqual((await trade.get('/v2/widget/config')).body.materials, [
    { name: 'ABS', colors: ['Black'], description: null, swatches: {} },
  ]);
  assert.deepEqual(
    (await shopper().get('/v2/widget/config')).body.materials.map((m: { name: string }) => m.name),
    ['PLA', 'PETG'],
    'other keys keep the account offer',
  );
  const fileId = await trade.upload();
  assert.deepEqual(fieldsOf(await trade.post(`/v2/file/quote/${fileId}`, { choices: { material: 'PLA' } })), [
    'choices.material',
  ]);
  assert.equal(
    (await trade.post(`/v2/file/quote/${fileId}`, { choices: { quantity: 2 } })).status,
    400,
    "below the key's minimum quantity",
  );
  const reset = await dashboard.delete(`/dashboard/api/widget-keys/${other.body.widget_key_id}/offer`);
  assert.equal(reset.body.source, 'account');
  const stranger = server.client();
  const s = await stranger.post('/dashboard/api/signup', {
    email: 'offer-stranger@example.test',
    password: 'a long enough password',
  });
  stranger.csrf = s.body.csrf_token;
  assert.equal((await stranger.get(`/dashboard/api/widget-keys/${keyId}/offer`)).status, 404);
  assert.equal((await stranger.put(`/dashboard/api/widget-keys/${keyId}/offer`, OFFER)).status, 404);
});

test("a shopper's exploration of one model counts once a month against the allowance; API quotes count each", async () => {
  await api.put('/v2/offer', OFFER);
  const used = async () => (await api.get('/v2/user')).body.quotes_used;
  const start = await used();
  // A model no other test of this file quotes: the same model counts once a month for the whole shop.
  const model = new TextEncoder().encode(boxesObj([[0, 0, 0, 12, 11, 8]]));
  const s = shopper();
  const fileId = await s.upload(model);
  for (const choices of [{ infill: 15 }, { infill: 40 }, { material: 'PETG' }, { infill: 15 }]) {
    assert.equal((await s.post(`/v2/file/quote/${fileId}`, { choices })).status, 200);
  }
  assert.equal(await used(), start + 1, 'four quotes of one upload in the widget count as one');
  // The same model uploaded again this month, by this shopper or another, is the same exploration: the same
  // cube sent from many addresses does not close the shop's month.
  for (const again of [s, shopper()]) {
    const copy = await again.upload(model);
    assert.equal((await again.post(`/v2/file/quote/${copy}`, { choices: { infill: 40 } })).status, 200);
  }
  assert.equal(await used(), start + 1, 'the same model uploaded again counts no more this month');
  const other = shopper();
  const second = await other.upload(new TextEncoder().encode(boxesObj([[0, 0, 0, 13, 12, 8]])));
  await other.post(`/v2/file/quote/${second}`, { choices: {} });
  assert.equal(await used(), start + 2, 'another model is a new exploration');
  const own = (await api.uploadBytes('/v2/file', PART, 'own.obj')).body.file_id;
  await api.post(`/v2/file/quote/${own}`, {});
  await api.post(`/v2/file/quote/${own}`, { printer_config: { fill_density: 40 } });
  assert.equal(await used(), start + 4, 'every API quote counts');
});

test("the offer's minimum price per part lifts a speck to the floor with its own breakdown line", async () => {
  await api.put('/v2/offer', { ...OFFER, minimum_price: 50 });
  try {
    const s = shopper();
    const fileId = await s.upload();
    const q = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const b = (await api.get(`/v2/quotes/${q.body.quote_id}`)).body.price_breakdown;
    assert.equal(
      (await api.get(`/v2/quotes/${q.body.quote_id}`)).body.setting_sources['quote_config.minimum_price'],
      'offer',
    );
    assert.equal(b.minor_units.subtotal, 5000, 'the subtotal is raised to the floor');
    assert.ok(b.minor_units.minimum_price_adjustment > 0);
    assert.equal(q.body.price_breakdown.minimum_price_applied, true, 'the shopper is told so, without the amount');
    assert.equal(q.body.total_price, b.total);
    assert.equal((await s.get('/v2/widget/config')).body.minimum_price, 50);
    const minor = q.body.signature.payload.split(':')[8];
    assert.equal(Number(minor), b.minor_units.total, 'the signature carries the floored price');
  } finally {
    await api.put('/v2/offer', OFFER);
  }
});
