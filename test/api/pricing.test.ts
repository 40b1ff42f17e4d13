// Money through the API (docs/pricing.md), as a careful merchant and a hostile caller would try it: the merchant's
// per-kg price, currencies converted with the shop's rates or refused, the minimum price, exact lines.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CURRENCY_CODES } from '../../shared/money.ts';
import { boxesObj, CUBE_OBJ } from '../helpers/meshes.ts';
import { assertAddsUp } from '../helpers/money.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

/** A new shop with the cube uploaded. Every shop slices the same cube, so after the first slice quotes are cached. */
async function shop(plan = 'pro'): Promise<{ api: ApiClient; cube: string; quote: (body: unknown) => Promise<any> }> {
  const api = server.client((await server.newAccount({ plan })).token);
  const cube = (await api.uploadBytes('/v2/file', new TextEncoder().encode(CUBE_OBJ), 'cube.obj')).body.file_id;
  const quote = async (body: unknown) => {
    const res = await api.post(`/v2/file/quote/${cube}`, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assertAddsUp(res.body.price_breakdown);
    assert.equal(res.body.total_price, res.body.price_breakdown.total);
    assert.equal(res.body.currency, res.body.price_breakdown.currency);
    return res.body;
  };
  return { api, cube, quote };
}

const modelGrams = (q: any) => q.print_stats.filament_weight_g - q.print_stats.support_weight_g;
const cents = (v: number) => Math.round(Number((v * 100).toPrecision(15)));
const fieldsOf = (res: { body: any }) => res.body.error.details.fields.map((f: { field: string }) => f.field);

test("a material profile's price per kg is the price: it beats the shipped per-gram price, in the dashboard's unit", async () => {
  const { api, quote } = await shop();
  const before = await quote({ material_config: { filament_type: 'PLA' } });
  assert.equal(before.price_breakdown.price_per_gram, 0.025);
  const pla = await api.post('/v2/profiles/material', { name: 'PLA', settings: { price_per_kg: 40 } });
  assert.equal(pla.status, 201);
  const q = await quote({ material_config: { filament_type: 'PLA' } });
  assert.equal(q.price_breakdown.price_per_gram, 0.04);
  assert.equal(q.price_breakdown.minor_units.material, cents(modelGrams(q) * 0.04));
  assert.ok(q.price_breakdown.material > before.price_breakdown.material);
  for (const name of ['price_per_kg', 'price_per_gram'])
    assert.equal(q.setting_sources[`material_config.${name}`], `profile:${pla.body.profile_id}`);
  assert.deepEqual([q.settings.material_config.price_per_kg, q.settings.material_config.price_per_gram], [40, 0.04]);
  const requested = await quote({ material_config: { filament_type: 'PLA', price_per_kg: 50 } });
  assert.equal(requested.price_breakdown.price_per_gram, 0.05, "a request's per-kg price beats every profile");
  assert.equal(requested.setting_sources['material_config.price_per_gram'], 'request');
  const perGram = await quote({ material_config: { filament_type: 'PLA', price_per_gram: 0.031 } });
  assert.equal(perGram.settings.material_config.price_per_kg, 31);
});

test('one price in two units must agree: a profile or request with two different prices is refused by field', async () => {
  const { api, cube, quote } = await shop();
  const both = await api.post('/v2/profiles/material', {
    name: 'Wood PLA',
    settings: { price_per_kg: 40, price_per_gram: 0.025 },
  });
  assert.equal(both.status, 400);
  assert.deepEqual(fieldsOf(both), ['settings.price_per_kg']);
  assert.match(both.body.error.message, /one setting in two units/);
  const equal = await api.post('/v2/profiles/material', {
    name: 'Wood PLA',
    settings: { price_per_kg: 40, price_per_gram: 0.04 },
  });
  assert.equal(equal.status, 201, 'both, equal, as a profile may hold them');
  const put = await api.put(`/v2/profiles/material/${equal.body.profile_id}`, {
    name: 'Wood PLA',
    settings: { price_per_kg: 45, price_per_gram: 0.04 },
  });
  assert.deepEqual([put.status, fieldsOf(put)], [400, ['settings.price_per_kg']]);
  const req = await api.post(`/v2/file/quote/${cube}`, { material_config: { price_per_kg: 40, price_per_gram: 0.05 } });
  assert.deepEqual([req.status, fieldsOf(req)], [400, ['material_config.price_per_kg']]);
  assert.equal((await quote({ material_config: { filament_type: 'Wood PLA' } })).price_breakdown.price_per_gram, 0.04);
});

test('a currency the shop has no rate for is refused naming quote_config.currency; unknown codes are refused', async () => {
  const { api, cube } = await shop();
  const yen = await api.post(`/v2/file/quote/${cube}`, { quote_config: { currency: 'JPY' } });
  assert.equal(yen.status, 422);
  assert.equal(yen.body.error.code, 'currency_not_offered');
  assert.deepEqual(
    [yen.body.error.details.field, yen.body.error.details.available],
    ['quote_config.currency', ['USD']],
  );
  // Codes are enums: any case names the code (docs/api-conventions.md), a code in no case is refused.
  const lower = await api.post(`/v2/file/quote/${cube}`, { quote_config: { currency: 'usd' } });
  assert.deepEqual(
    [lower.status, lower.body.currency, lower.body.settings?.quote_config.currency],
    [200, 'USD', 'USD'],
  );
  for (const currency of ['XYZ', 'xyz', 'XAU', '__proto__', 'US', 'EURO', 7]) {
    const res = await api.post(`/v2/file/quote/${cube}`, { quote_config: { currency } });
    assert.equal(res.status, 400, String(currency));
    assert.deepEqual(fieldsOf(res), ['quote_config.currency'], String(currency));
  }
  const profile = await api.post('/v2/profiles/global', { name: 'Shop', settings: { currency: 'XBT' } });
  assert.deepEqual([profile.status, fieldsOf(profile)], [400, ['settings.currency']]);
  assert.match(profile.body.error.message, /ISO 4217/);
});

test("with the shop's exchange rates, a quote in another currency is converted and says the rate and digits", async () => {
  const { api, quote } = await shop();
  const settings = await api.post('/v2/profiles/global', {
    name: 'Shop',
    is_default: true,
    settings: { exchange_rates: { JPY: 151.37, KWD: 0.307, EUR: 0.92 }, fixed_fee: 2, tax_rate: 10 },
  });
  assert.equal(settings.status, 201, JSON.stringify(settings.body));
  const usd = await quote({});
  assert.deepEqual([usd.currency, usd.price_breakdown.digits, usd.price_breakdown.exchange_rate], ['USD', 2, null]);
  const jpy = await quote({ quote_config: { currency: 'JPY' } });
  assert.deepEqual([jpy.currency, jpy.price_breakdown.digits], ['JPY', 0]);
  assert.deepEqual(jpy.price_breakdown.exchange_rate, { from: 'USD', to: 'JPY', rate: 151.37 });
  assert.ok(Number.isInteger(jpy.total_price));
  assert.equal(jpy.price_breakdown.fixed_fee, 303, 'the 2 USD fee is 302.74 JPY, rounded to whole yen');
  assert.ok(
    Math.abs(jpy.total_price - usd.total_price * 151.37) < 10,
    `${jpy.total_price} JPY for ${usd.total_price} USD`,
  );
  const kwd = await quote({ quote_config: { currency: 'KWD' } });
  assert.equal(kwd.price_breakdown.digits, 3);
  assert.equal(kwd.price_breakdown.fixed_fee, 0.614);
  assert.equal(kwd.setting_sources['quote_config.exchange_rates'], `profile:${settings.body.profile_id}`);
  const gbp = await api.post(`/v2/file/quote/${(await api.get('/v2/quotes?limit=1')).body.data[0].file_id}`, {
    quote_config: { currency: 'GBP' },
  });
  assert.equal(gbp.status, 422);
  assert.deepEqual(
    gbp.body.error.details.available,
    ['USD', 'EUR', 'JPY', 'KWD'],
    'the shop currency, then the others A to Z',
  );
});

test("exchange rates are the merchant's: a request cannot bring its own, and bad tables are refused by field", async () => {
  const { api, cube } = await shop();
  const req = await api.post(`/v2/file/quote/${cube}`, {
    quote_config: { currency: 'EUR', exchange_rates: { EUR: 1000 } },
  });
  assert.deepEqual([req.status, fieldsOf(req)], [400, ['quote_config.exchange_rates']]);
  for (const exchange_rates of [{ XYZ: 1 }, { EUR: 0 }, { EUR: -1 }, { EUR: '0.9' }, { EUR: 1e10 }, [0.9], 'EUR 0.9']) {
    const res = await api.post('/v2/profiles/global', { name: 'Shop', settings: { exchange_rates } });
    assert.deepEqual([res.status, fieldsOf(res)], [400, ['settings.exchange_rates']], JSON.stringify(res.body));
  }
  const onPrinter = await api.post('/v2/profiles/printer', { name: 'P', settings: { exchange_rates: { EUR: 0.9 } } });
  assert.deepEqual([onPrinter.status, fieldsOf(onPrinter)], [400, ['settings.exchange_rates']]);
});

test('a shop in yen prices in yen; it must set its own amounts, since the shipped ones are dollars', async () => {
  const { api, cube, quote } = await shop();
  assert.equal(
    (
      await api.post('/v2/profiles/global', {
        name: 'Yen shop',
        is_default: true,
        settings: { currency: 'JPY', energy_cost_per_kwh: 31 },
      })
    ).status,
    201,
  );
  const incomplete = await api.post(`/v2/file/quote/${cube}`, {});
  assert.equal(incomplete.status, 422);
  assert.equal(incomplete.body.error.code, 'settings_conflict');
  assert.deepEqual(fieldsOf(incomplete).sort(), ['material_config.price_per_gram', 'printer_config.hourly_cost']);
  assert.equal(
    (await api.post('/v2/profiles/printer', { name: 'Mine', is_default: true, settings: { hourly_cost: 250 } })).status,
    201,
  );
  assert.equal(
    (await api.post('/v2/profiles/material', { name: 'PLA', is_default: true, settings: { price_per_kg: 3300 } }))
      .status,
    201,
  );
  const q = await quote({});
  assert.deepEqual([q.currency, q.price_breakdown.digits, q.price_breakdown.exchange_rate], ['JPY', 0, null]);
  assert.equal(q.price_breakdown.material, Math.round(modelGrams(q) * 3.3));
  assert.ok(q.total_price > 50, `a 20 mm cube costs tens of yen, not ¥1: ${q.total_price}`);
  const usd = await api.post(`/v2/file/quote/${cube}`, { quote_config: { currency: 'USD' } });
  assert.deepEqual(
    [usd.status, usd.body.error.code, usd.body.error.details.available],
    [422, 'currency_not_offered', ['JPY']],
  );
});

test("no part is sold for 0: a merchant's API quote of a 2 mm speck gets the shipped minimum, unless the shop sets 0", async () => {
  const api = server.client((await server.newAccount({ plan: 'pro' })).token);
  const speck = await api.uploadBytes(
    '/v2/file',
    new TextEncoder().encode(boxesObj([[0, 0, 0, 2, 2, 2]])),
    'speck.obj',
  );
  assert.equal(speck.status, 201, JSON.stringify(speck.body));
  const quoted = await api.post(`/v2/file/quote/${speck.body.file_id}`, {});
  assert.equal(quoted.status, 200, JSON.stringify(quoted.body));
  const b = quoted.body.price_breakdown;
  assertAddsUp(b);
  assert.ok(b.minimum_price_adjustment > 0, 'the speck is raised to the minimum, and says so');
  assert.deepEqual([b.subtotal, b.minimum_unit_price], [1, 1], 'one unit of the shop currency, before and with tax');
  assert.equal(quoted.body.setting_sources['quote_config.minimum_price'], 'global:prof_global_settings');
  // A shop that sells at cost sets 0 itself, and then it is 0.
  const free = await api.post(`/v2/file/quote/${speck.body.file_id}`, {
    quote_config: { minimum_price: 0, fixed_fee: 0 },
  });
  assert.equal(free.body.price_breakdown.minimum_price_adjustment, 0);
  assert.equal(free.body.price_breakdown.minimum_unit_price, null);
  assert.ok(free.body.total_price < 1);
});

test('a minimum price lifts a cheap part to the floor with its own line, also converted', async () => {
  const { api, cube, quote } = await shop();
  // The 20 mm cube's lines come to less than the shipped minimum of one unit: it is raised to it.
  const plain = await quote({});
  assert.ok(plain.price_breakdown.minimum_price_adjustment > 0);
  assert.equal(plain.price_breakdown.subtotal, 1);
  const settings = await api.post('/v2/profiles/global', {
    name: 'Shop',
    is_default: true,
    settings: { minimum_price: 25, tax_rate: 20, exchange_rates: { EUR: 0.92 } },
  });
  assert.equal(settings.status, 201);
  const floored = await quote({});
  const b = floored.price_breakdown;
  assert.deepEqual([b.subtotal, b.tax, b.total], [25, 5, 30]);
  assert.equal(
    b.minor_units.minimum_price_adjustment,
    2500 - (b.minor_units.subtotal - b.minor_units.minimum_price_adjustment),
  );
  assert.equal(floored.setting_sources['quote_config.minimum_price'], `profile:${settings.body.profile_id}`);
  const requested = await quote({ quote_config: { minimum_price: 40 } });
  assert.equal(requested.price_breakdown.subtotal, 40, 'a token caller may set the floor per request');
  const low = await quote({ quote_config: { minimum_price: 0.01 } });
  assert.equal(low.price_breakdown.minimum_price_adjustment, 0, 'a floor below the price changes nothing');
  const eur = await quote({ quote_config: { currency: 'EUR' } });
  assert.deepEqual([eur.price_breakdown.subtotal, eur.price_breakdown.total], [23, 27.6], '25 USD at 0.92');
  for (const minimum_price of [-1, '25', 1e7]) {
    const res = await api.post(`/v2/file/quote/${cube}`, { quote_config: { minimum_price } });
    assert.deepEqual([res.status, fieldsOf(res)], [400, ['quote_config.minimum_price']], String(minimum_price));
  }
});

test('a price too large to be exact is refused as price_out_of_range, sliced or from the cache', async () => {
  const { api, cube } = await shop();
  assert.equal(
    (
      await api.post('/v2/profiles/global', {
        name: 'Shop',
        is_default: true,
        settings: { exchange_rates: { IDR: 1e9 } },
      })
    ).status,
    201,
  );
  const body = {
    material_config: { price_per_gram: 1000 },
    quote_config: { currency: 'IDR' },
    printer_config: { fill_density: 27 },
  };
  for (const attempt of ['sliced', 'cached']) {
    const res = await api.post(`/v2/file/quote/${cube}`, body);
    assert.equal(res.status, 422, attempt);
    assert.equal(res.body.error.code, 'price_out_of_range', JSON.stringify(res.body));
  }
});

test("every quote's lines add up, for a hundred price settings in every kind of currency", async () => {
  const { api, quote } = await shop('business');
  const rates = { JPY: 151.37, KWD: 0.307, CLF: 0.0264, EUR: 0.92, HUF: 361.5, IDR: 16234.5, BHD: 0.377 };
  assert.equal(
    (await api.post('/v2/profiles/global', { name: 'Shop', is_default: true, settings: { exchange_rates: rates } }))
      .status,
    201,
  );
  const currencies = ['USD', ...Object.keys(rates)];
  for (let i = 0; i < 100; i++) {
    const f = (n: number) => ((i * 7919 + n * 104729) % 1000) / 1000; // deterministic spread in [0, 1)
    await quote({
      quote_config: {
        currency: currencies[i % currencies.length],
        tax_rate: Math.round(f(1) * 2500) / 100,
        fixed_fee: Math.round(f(2) * 1000) / 1000,
        minimum_price: i % 3 ? 0 : f(3) * 10,
        energy_cost_per_kwh: f(4),
      },
      material_config: { price_per_kg: 10 + f(5) * 90, support_cost_multiplier: f(6) * 3 },
      printer_config: { hourly_cost: f(7) * 5 },
    });
  }
  assert.ok(CURRENCY_CODES.length > 150);
});
