// A multi-colour 3MF (a PrusaSlicer project whose two parts print with two extruders) cannot be priced automatically
// yet: the upload is accepted with a `multi_material` warning, a storefront shopper's quote is refused before any
// slicing (422 multi_material, a failed quote), and the shopper's request for a quote reaches the shop's requests and
// its signed webhook. The shop's own API token still gets the one-material price, with the warning.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/poll.ts';
import { projectThreeMf, TWO_COLOUR_PROJECT } from '../helpers/prusa-project.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { merchantShop, startTestServer, type TestServer } from '../helpers/server.ts';
import { widgetShopper } from '../helpers/shopper.ts';

const SHOP = 'https://colours.example';
let server: TestServer;
let hooks: Receiver;
let hookSecret: string;
let shop: Awaited<ReturnType<typeof merchantShop>>;
const TWO_COLOURS = projectThreeMf(TWO_COLOUR_PROJECT);

before(async () => {
  hooks = await startReceiver();
  server = await startTestServer({ RATE_LIMIT_ANON_PLAN: 'business', WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32' });
  shop = await merchantShop(server, 'colours-shop@example.test', SHOP);
  const hook = await shop.api.post('/v2/webhooks', { url: hooks.url, events: ['quote_request.created'] });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  hookSecret = hook.body.secret;
});
after(async () => {
  await server.stop();
  await hooks.close();
});

test('a shopper’s two-colour 3MF is refused a price, named multi-colour, and becomes a request the shop receives', async () => {
  const s = widgetShopper(server, shop.key, SHOP);
  const fileId = await s.upload(TWO_COLOURS, 'two-colours.3mf');
  const uploads = await shop.api.get('/v2/user/uploads');
  assert.equal(uploads.status, 200, JSON.stringify(uploads.body));
  const file = uploads.body.data.find((f: { file_id: string }) => f.file_id === fileId);
  const warning = file.warnings.find((w: { code: string }) => w.code === 'multi_material');
  assert.deepEqual([warning?.assignment, warning?.count], ['extruders', 2]);

  const refused = await s.post(`/v2/file/quote/${fileId}`, { choices: {} });
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'multi_material');
  assert.match(refused.body.error.message, /multi-colour/);
  assert.deepEqual([refused.body.error.details.assignment, refused.body.error.details.count], ['extruders', 2]);
  const history = await shop.api.get(`/v2/quotes/${refused.body.error.details.quote_id}`);
  assert.deepEqual([history.body.status, history.body.error.code], ['failed', 'multi_material'], 'never sliced');

  const sent = await s.post('/v2/quote-requests', {
    file_id: fileId,
    reason: 'not_priceable',
    reason_code: 'multi_material',
    choices: {},
    quantity: 2,
    name: 'Ada Lovelace',
    email: 'ada@example.test',
    note: 'Red and white, please.',
    page: `${SHOP}/`,
  });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  const listed = await shop.api.get('/v2/quote-requests?status=requested');
  const mine = listed.body.data.find((r: { request_id: string }) => r.request_id === sent.body.request_id);
  assert.deepEqual([mine?.status, mine?.reason, mine?.reason_code], ['requested', 'not_priceable', 'multi_material']);
  const created = await eventually(
    async () => hooks.requests.find((r) => r.json?.data?.requestId === sent.body.request_id) ?? null,
    20_000,
    'the quote_request.created delivery',
  );
  assert.equal(created.json.event, 'quote_request.created');
  assert.equal(created.json.data.reasonCode, 'multi_material');
  const signature = `sha256=${createHmac('sha256', hookSecret).update(created.body).digest('hex')}`;
  assert.equal(created.headers['x-webhook-signature'], signature, 'signed with the webhook secret');
});

test('the shop’s own API token prices the same file in one material, the warning beside it', async () => {
  const up = await shop.api.uploadBytes('/v2/file', TWO_COLOURS, 'two-colours.3mf');
  assert.equal(up.status, 201, JSON.stringify(up.body));
  assert.ok(up.body.warnings.some((w: { code: string }) => w.code === 'multi_material'));
  const q = await shop.api.post(`/v2/file/quote/${up.body.file_id}`, {});
  assert.equal(q.status, 200, JSON.stringify(q.body));
  assert.ok(q.body.total_price > 0);
});
