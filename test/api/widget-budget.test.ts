// What a shop's public widget may spend (docs/limits.md, "Widget budgets"): the attacker's sequence (many shopper
// sessions from several addresses, each uploading a small cube and quoting it, on the free plan) stops at the
// widget's share of the month and leaves the merchant's own API quotes; quotes per shopper session per hour (429 +
// Retry-After), quotes per day of the shop (402), storage for shopper uploads (402, exact under concurrency); the
// budget in the offer, validated by field; the share in GET /v2/usage and in usage.alert.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { pruneBudgetWindows } from '../../server/limits/widget-budget-sql.ts';
import { eventsForAccount } from '../../server/outbox/sql.ts';
import { assertWebhookBody } from '../helpers/contract.ts';
import { boxesObj, CUBE_OBJ } from '../helpers/meshes.ts';
import { type ApiClient, merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { storedBytesOf } from '../helpers/stored-bytes.ts';

const SHOP = 'https://budget-shop.example';
const CUBE = new TextEncoder().encode(CUBE_OBJ);
let server: TestServer;

before(async () => {
  // Client addresses come from X-Forwarded-For, so the attacker below is several addresses, as in the field.
  server = await startTestServer({ TRUST_PROXY: '1' });
});
after(() => server.stop());

/** A shopper of the shop at one client address: a session of its own once it has uploaded. */
function shopper(key: string, address: string) {
  const client = server.client();
  let token: string | undefined;
  const headers = () => ({
    'x-widget-key': key,
    origin: SHOP,
    'x-forwarded-for': address,
    ...(token ? { 'x-shopper-token': token } : {}),
  });
  return {
    async upload(bytes: Uint8Array = CUBE) {
      const id = await client.request('GET', '/v2/file/upload-id', { headers: headers() });
      assert.equal(id.status, 200, JSON.stringify(id.body));
      token = id.body.shopper_token;
      const form = new FormData();
      form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), 'part.obj');
      return client.request('POST', `/v2/file/public/${id.body.upload_id}`, {
        form,
        headers: { 'x-forwarded-for': address },
      });
    },
    quote(fileId: string, choices: Record<string, unknown> = {}) {
      return client.request('POST', `/v2/file/quote/${fileId}`, { json: { choices }, headers: headers() });
    },
  };
}

/** Replaces the widget_budget of the account's offer (the rest as it is). */
async function setBudget(api: ApiClient, budget: Record<string, unknown>) {
  const { source: _, ...offer } = (await api.get('/v2/offer')).body;
  const saved = await api.put('/v2/offer', { ...offer, widget_budget: budget });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  return saved.body;
}

test('a stranger with the public key cannot use up the month: shoppers stop at the widget share, its last tenth kept for newcomers; the API still quotes', async () => {
  const shop = await merchantShop(server, 'attacked@example.test', SHOP);
  assert.equal((await shop.api.get('/v2/quota')).body.plan, 'free');
  // Free plan: 100 quotes a month; the widget's share set to 10 %, of which 1 is kept for newcomers. Three addresses,
  // a new session and a model of its own each time (the same model again would count once: docs/limits.md).
  await setBudget(shop.api, { monthly_quote_share_percent: 10 });
  const part = (i: number) => new TextEncoder().encode(boxesObj([[0, 0, 0, 10 + i, 10, 5]]));
  const attempt = async (address: string, i: number) => {
    const s = shopper(shop.key, address);
    const up = await s.upload(part(i));
    assert.equal(up.status, 201, JSON.stringify(up.body));
    return s.quote(up.body.file_id);
  };
  const population = ['198.51.100.0', '198.51.100.1', '198.51.100.2'];
  for (let i = 0; i < 9; i++) {
    const quote = await attempt(population[i % 3]!, i);
    assert.equal(quote.status, 200, `shopper ${i}: ${JSON.stringify(quote.body)}`);
  }
  // Only the reserve is left: the population's next session is refused, a shopper new this month is not.
  const again = await attempt(population[0]!, 9);
  assert.equal(again.status, 402, JSON.stringify(again.body));
  assert.equal(again.body.error.code, 'widget_allowance_exhausted');
  assert.deepEqual(
    { ...again.body.error.details, resets_at: undefined },
    {
      used: 9,
      limit: 10,
      newcomer_reserve: 1,
      share_percent: 10,
      period: again.body.error.details.period,
      resets_at: undefined,
    },
  );
  assert.match(again.body.error.message, /keeps for shoppers new this month/);
  assert.equal((await attempt('198.51.100.200', 10)).status, 200, 'a newcomer gets the reserve');
  const refused = await attempt('198.51.100.201', 11);
  assert.equal(refused.status, 402);
  assert.equal(refused.body.error.code, 'widget_allowance_exhausted');
  assert.equal(refused.headers.get('retry-after'), null);
  assert.deepEqual(
    { ...refused.body.error.details, resets_at: undefined },
    {
      used: 10,
      limit: 10,
      newcomer_reserve: 1,
      share_percent: 10,
      period: refused.body.error.details.period,
      resets_at: undefined,
    },
  );

  // The merchant's own backend still quotes: 90 quotes of the month are left for it.
  const own = await shop.api.uploadBytes('/v2/file', CUBE, 'own.obj');
  assert.equal(own.status, 201);
  const ownQuote = await shop.api.post(`/v2/file/quote/${own.body.file_id}`, {});
  assert.equal(ownQuote.status, 200, JSON.stringify(ownQuote.body));
  const quota = (await shop.api.get('/v2/quota')).body;
  assert.equal(quota.quotes.used, 11);

  // The usage page shows the widget's share; usage.alert said so at 80 % and 100 % of it, once each.
  const usage = await shop.api.get('/v2/usage');
  const [widget] = usage.body.widget_budgets;
  assert.equal(widget.widget_key_id, shop.keyId);
  const { top_addresses, top_sessions, ...share } = widget.monthly_quotes;
  assert.deepEqual(share, { used: 10, limit: 10, newcomer_reserve: 1, share_percent: 10, period: quota.period });
  // Who spent it: the population's three addresses first, three quotes each; ten sessions of one quote each.
  assert.deepEqual(top_addresses, [
    { address: '198.51.100.0', quotes: 3 },
    { address: '198.51.100.1', quotes: 3 },
    { address: '198.51.100.2', quotes: 3 },
    { address: '198.51.100.200', quotes: 1 },
  ]);
  assert.equal(top_sessions.length, 5);
  for (const row of top_sessions) assert.deepEqual([row.session.length, row.quotes], [12, 1]);
  assert.equal(widget.quotes_today.used, 10, 'each quote request takes from the day; the refused ones did not');
  const alertEvents = await eventsForAccount(server.deps.db, shop.accountId, 'usage.alert');
  for (const e of alertEvents) assertWebhookBody('WebhookEventUsageAlert', e.payload);
  const alerts = alertEvents
    .map((e) => (e.payload as { data: Record<string, unknown> }).data)
    .filter((d) => d.resource === 'widget_quotes');
  assert.deepEqual(
    alerts.map((d) => [d.level, d.used, d.limit, d.widget_key_id]),
    [
      [80, 8, 10, shop.keyId],
      [100, 10, 10, shop.keyId],
    ],
  );
});

test("a shopper session gets its hour's quotes, then 429 with Retry-After; other shoppers and the next hour are not held up", async (t) => {
  t.after(() => {
    server.deps.now = () => new Date();
  });
  server.deps.now = () => new Date('2031-05-20T10:59:30.000Z');
  const shop = await merchantShop(server, 'hourly@example.test', SHOP);
  await setBudget(shop.api, { quotes_per_shopper_hour: 3 });
  const eager = shopper(shop.key, '203.0.113.10');
  const file = (await eager.upload()).body.file_id;
  for (const infill of [10, 20, 30]) assert.equal((await eager.quote(file, { infill })).status, 200);
  const refused = await eager.quote(file, { infill: 50 });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, 'shopper_quote_budget_exhausted');
  assert.equal(refused.headers.get('retry-after'), '30');
  assert.match(refused.headers.get('access-control-expose-headers') ?? '', /Retry-After/, 'the widget may read it');
  assert.deepEqual(refused.body.error.details, {
    limit: 3,
    retry_after: 30,
    resets_at: '2031-05-20T11:00:00.000Z',
  });

  const other = shopper(shop.key, '203.0.113.10'); // the same address, another session
  assert.equal((await other.quote((await other.upload()).body.file_id)).status, 200);

  server.deps.now = () => new Date('2031-05-20T11:00:00.000Z');
  assert.equal((await eager.quote(file, { infill: 50 })).status, 200);
});

test("the shop's quotes of the day answer 402 once used, for every shopper, until the next UTC day", async (t) => {
  t.after(() => {
    server.deps.now = () => new Date();
  });
  server.deps.now = () => new Date('2031-05-21T23:00:00.000Z');
  const shop = await merchantShop(server, 'daily@example.test', SHOP);
  await setBudget(shop.api, { quotes_per_day: 2, quotes_per_shopper_hour: 5 });
  const first = shopper(shop.key, '203.0.113.20');
  const file = (await first.upload()).body.file_id;
  assert.equal((await first.quote(file)).status, 200);
  const second = shopper(shop.key, '203.0.113.21');
  const secondFile = (await second.upload()).body.file_id;
  assert.equal((await second.quote(secondFile)).status, 200);
  const refused = await first.quote(file, { infill: 30 });
  assert.equal(refused.status, 402);
  assert.equal(refused.body.error.code, 'widget_daily_budget_exhausted');
  assert.deepEqual(refused.body.error.details, { limit: 2, resets_at: '2031-05-22T00:00:00.000Z' });

  // The merchant's API is not a shopper: its quotes are not counted against the widget's day.
  assert.equal((await shop.api.post(`/v2/file/quote/${file}`, {})).status, 200);

  server.deps.now = () => new Date('2031-05-22T00:00:01.000Z');
  assert.equal((await first.quote(file, { infill: 30 })).status, 200);
  const usage = (await shop.api.get('/v2/usage')).body.widget_budgets[0];
  assert.deepEqual(usage.quotes_today, { used: 1, limit: 2 });
  assert.equal(usage.quotes_per_shopper_hour, 5);
});

test("shopper uploads stop at the key's storage budget, exactly under concurrency; the merchant's uploads do not", async () => {
  const shop = await merchantShop(server, 'storage@example.test', SHOP);
  const parts = Array.from({ length: 6 }, (_, i) => new TextEncoder().encode(boxesObj([[0, 0, 0, 10 + i, 10, 10]])));
  // What each stores: the upload and its canonical mesh.
  const sizes = parts.map((p) => storedBytesOf(p, 'obj'));
  // Room for two of the six parts, whichever two finish first.
  const limit = Math.max(...sizes) * 2 + 1;
  await setBudget(shop.api, { upload_storage_bytes: limit });
  const results = await Promise.all(parts.map((p, i) => shopper(shop.key, `203.0.113.${40 + i}`).upload(p)));
  const stored = results.filter((r) => r.status === 201);
  const refused = results.filter((r) => r.status === 402);
  assert.equal(stored.length, 2, JSON.stringify(results.map((r) => r.status)));
  assert.equal(refused.length, 4);
  for (const r of refused) {
    assert.equal(r.body.error.code, 'widget_storage_exhausted');
    assert.equal(r.body.error.details.limit_bytes, limit);
    assert.ok(r.body.error.details.used_bytes + r.body.error.details.needed_bytes > limit);
  }
  const storedOf = (sha256: string) =>
    sizes[parts.findIndex((p) => createHash('sha256').update(p).digest('hex') === sha256)]!;
  const usedBytes = stored.reduce((n, r) => n + storedOf(r.body.sha256), 0);
  const usage = (await shop.api.get('/v2/usage')).body.widget_budgets[0];
  assert.deepEqual(usage.upload_storage, { used_bytes: usedBytes, limit_bytes: limit });

  const own = await shop.api.uploadBytes('/v2/file', parts[0]!, 'own.obj');
  assert.equal(own.status, 201, 'the merchant uploads as before');
  // Deleting a shopper's upload frees its bytes for the next shopper at once.
  assert.equal((await shop.api.delete(`/v2/file/${stored[0]!.body.file_id}`)).status, 200);
  assert.equal((await shopper(shop.key, '203.0.113.60').upload(parts[0])).status, 201);
});

test('the budget is part of the offer: defaults until set, each bad field named, a key with its own offer has its own', async () => {
  const shop = await merchantShop(server, 'offer-budget@example.test', SHOP);
  const initial = (await shop.api.get('/v2/offer')).body;
  assert.deepEqual(initial.widget_budget, {
    quotes_per_shopper_hour: 60,
    quotes_per_day: 1000,
    monthly_quote_share_percent: 80,
    upload_storage_bytes: 536870912,
  });
  const { source: _, ...offer } = initial;
  const bad = await shop.api.put('/v2/offer', {
    ...offer,
    widget_budget: { quotes_per_day: 0, monthly_quote_share_percent: 100.5, burst: 3 },
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort(), [
    'widget_budget.burst',
    'widget_budget.monthly_quote_share_percent',
    'widget_budget.quotes_per_day',
  ]);
  const partial = await setBudget(shop.api, { monthly_quote_share_percent: 50 });
  assert.deepEqual(partial.widget_budget, { ...initial.widget_budget, monthly_quote_share_percent: 50 });

  const keyOffer = `/dashboard/api/widget-keys/${shop.keyId}/offer`;
  const own = await shop.dashboard.put(keyOffer, { ...offer, widget_budget: { quotes_per_day: 7 } });
  assert.equal(own.status, 200, JSON.stringify(own.body));
  assert.equal(own.body.widget_budget.quotes_per_day, 7);
  const usage = (await shop.api.get('/v2/usage')).body.widget_budgets[0];
  assert.deepEqual(usage.quotes_today, { used: 0, limit: 7 });
  assert.equal(usage.monthly_quotes.share_percent, 80, "the key's own offer has its own (default) share");
});

test('the day holds exactly under concurrency: of eight shoppers quoting at once, the budget of four get a price', async () => {
  const shop = await merchantShop(server, 'concurrent@example.test', SHOP);
  await setBudget(shop.api, { quotes_per_day: 4 });
  const shoppers = Array.from({ length: 8 }, (_, i) => shopper(shop.key, `203.0.113.${80 + i}`));
  const files: string[] = [];
  for (const [i, s] of shoppers.entries())
    files.push((await s.upload(new TextEncoder().encode(boxesObj([[0, 0, 0, 10 + i, 10, 5]])))).body.file_id as string);
  const answers = await Promise.all(shoppers.map((s, i) => s.quote(files[i]!)));
  const statuses = answers.map((a) => a.status).sort();
  assert.deepEqual(statuses, [200, 200, 200, 200, 402, 402, 402, 402]);
  const usage = (await shop.api.get('/v2/usage')).body.widget_budgets[0];
  assert.deepEqual(usage.quotes_today, { used: 4, limit: 4 });
  assert.equal(usage.monthly_quotes.used, 4);
});

test("windows that ended are pruned a day later; the month's count and today's stay", async (t) => {
  t.after(() => {
    server.deps.now = () => new Date();
  });
  server.deps.now = () => new Date('2031-09-10T08:30:00.000Z');
  const shop = await merchantShop(server, 'prune@example.test', SHOP);
  const s = shopper(shop.key, '203.0.113.99');
  assert.equal((await s.quote((await s.upload()).body.file_id)).status, 200);
  const scopes = async () =>
    (
      await server.deps.db.query<{ scope: string }>(
        'SELECT scope FROM widget_budget_counters WHERE widget_key_id = $1 ORDER BY scope',
        [shop.keyId],
      )
    ).map((r) => r.scope.replace(/:.*/, ''));
  assert.deepEqual(await scopes(), ['day', 'month', 'shopper']);
  await pruneBudgetWindows(server.deps.db, new Date('2031-09-11T08:59:00.000Z'));
  assert.deepEqual(await scopes(), ['day', 'month', 'shopper'], 'ended less than a day ago: kept');
  await pruneBudgetWindows(server.deps.db, new Date('2031-09-11T09:00:01.000Z'));
  assert.deepEqual(await scopes(), ['day', 'month'], "the shopper's hour ended more than a day ago");
  await pruneBudgetWindows(server.deps.db, new Date('2031-09-12T00:00:01.000Z'));
  assert.deepEqual(await scopes(), ['month']);
  server.deps.now = () => new Date('2031-09-30T12:00:00.000Z');
  assert.equal((await shop.api.get('/v2/usage')).body.widget_budgets[0].monthly_quotes.used, 1);
});
