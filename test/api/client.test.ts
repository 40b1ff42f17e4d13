// The typed client (client/) against a real server: upload, quote and read back with types from the contract,
// errors as the API's error shape, and another account's quote invisible.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSlicequoteClient, modelUpload } from '../../client/index.ts';
import { CUBE_OBJ } from '../helpers/meshes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('a merchant backend uploads, quotes and reads a quote back with the typed client', async () => {
  const { token } = await server.newAccount();
  const api = createSlicequoteClient({ baseUrl: `${server.url}/`, token });
  const uploaded = await api.POST('/v2/file', modelUpload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj'));
  assert.equal(uploaded.response.status, 201);
  const fileId = uploaded.data!.file_id;
  assert.equal(uploaded.data!.format, 'obj');

  const quoted = await api.POST('/v2/file/quote/{file_id}', {
    params: { path: { file_id: fileId } },
    body: { material_config: { filament_type: 'PLA' } },
  });
  assert.equal(quoted.response.status, 200, JSON.stringify(quoted.error));
  const quote = quoted.data!;
  assert.ok('total_price' in quote, 'answered synchronously with the price');
  assert.equal(quote.status, 'completed');
  assert.ok((quote.total_price ?? 0) > 0, 'a completed quote has its price');

  const read = await api.GET('/v2/quotes/{quote_id}', { params: { path: { quote_id: quote.quote_id } } });
  assert.equal(read.data!.quote_id, quote.quote_id);
});

test("errors come back in the API's error shape, and another account's quote is not found", async () => {
  const [a, b] = [await server.newAccount(), await server.newAccount()];
  const mine = createSlicequoteClient({ baseUrl: server.url, token: a.token });
  const theirs = createSlicequoteClient({ baseUrl: server.url, token: b.token });
  const file = (await mine.POST('/v2/file', modelUpload(new TextEncoder().encode(CUBE_OBJ), 'cube.obj'))).data!.file_id;
  const refused = await mine.POST('/v2/file/quote/{file_id}', {
    params: { path: { file_id: file } },
    body: { printer_config: { layer_height: -1 } },
  });
  assert.equal(refused.response.status, 400);
  assert.match(refused.error!.error.message, /layer_height/);
  const quote = (await mine.POST('/v2/file/quote/{file_id}', { params: { path: { file_id: file } }, body: {} })).data!;
  const foreign = await theirs.GET('/v2/quotes/{quote_id}', { params: { path: { quote_id: quote.quote_id } } });
  assert.equal(foreign.response.status, 404);
  assert.equal(foreign.error!.error.code, 'not_found');
});

test('a wrong token is refused with 401', async () => {
  const api = createSlicequoteClient({ baseUrl: server.url, token: 'not-a-token' });
  const res = await api.GET('/v2/user');
  assert.equal(res.response.status, 401);
  assert.equal(res.data, undefined);
});
