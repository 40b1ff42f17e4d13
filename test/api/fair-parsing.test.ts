// Fair parsing (docs/limits.md, "Fair parsing"), on a real server with real parse workers: one parse at a time
// per caller with a bounded queue (503 + Retry-After past it), callers served in turns rather than first come,
// first served, a small upload parsed while another caller's parses hold the shared workers, a small file that
// outgrows its slice on the small-file worker finished by a shared one, and a 3MF stating far more bytes than
// its size refused before it is inflated. Slow parses are stood for by a gate the test holds (the parser's
// `hold` seam, awaited once a task has its worker slot); every wait is on the pool's state, never on time.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, afterEach, before, test } from 'node:test';
import {
  createModelParser,
  type Lane,
  type ModelParser,
  type ParserOptions,
  parserOptions,
} from '../../server/mesh/parse.ts';
import { uploadFrom } from '../helpers/from-address.ts';
import { hostileCase, instancingBomb } from '../helpers/hostile.ts';
import { type ApiClient, startTestServer, type TestServer } from '../helpers/server.ts';

const fixture = (p: string) => readFileSync(`test/fixtures/models/${p}`);
/** 3 KB: a small file. */
const CUBE = fixture('stl/cube20_ascii.stl');
/** 1.5 MB: too large for the small-file worker. */
const GEARS = fixture('stl/heartgears.stl');
/** 1.3 MB stating 524 MB of <vertex> elements (the flood of 3MFs an attacker sends). */
const VERTEX_FLOOD = hostileCase('3mf_vertex_flood').build();

/** Holds the parses of chosen callers until released, and records every parse that took a worker. */
class Gate {
  readonly started: { caller: string; lane: Lane }[] = [];
  private readonly waiting = new Map<string, (() => void)[]>();
  constructor(private readonly holds: (caller: string, lane: Lane) => boolean) {}

  readonly hold = (caller: string, lane: Lane): Promise<void> => {
    this.started.push({ caller, lane });
    if (!this.holds(caller, lane)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(caller, [...(this.waiting.get(caller) ?? []), resolve]));
  };

  /** Lets the first held parse of `caller` go on. */
  release(caller: string): void {
    this.waiting.get(caller)?.shift()?.();
  }

  releaseAll(): void {
    for (const list of this.waiting.values()) for (const go of list.splice(0)) go();
  }
}

let server: TestServer;
let api: ApiClient;
let parser: ModelParser;
let gate: Gate;

/** A real parser with the gate, in place of the server's (the routes read deps.parser on every upload). */
async function useParser(holds: (caller: string, lane: Lane) => boolean, options: Partial<ParserOptions> = {}) {
  gate = new Gate(holds);
  await server.deps.parser.close();
  parser = createModelParser({ ...parserOptions(server.deps.config), ...options, hold: gate.hold });
  server.deps.parser = parser;
}

/** Resolves once the parser's state satisfies `done`, re-checked on each of its changes. */
function until(done: (p: ModelParser) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!done(parser)) return;
      parser.changes.off('change', check);
      resolve();
    };
    parser.changes.on('change', check);
    check();
  });
}

const callerState = (caller: string) => parser.state().callers.find((c) => c.caller === caller);

async function uploadId(): Promise<string> {
  const res = await api.get('/v2/file/upload-id');
  assert.equal(res.status, 200);
  return res.body.upload_id;
}

/** A public upload from `address`, counted as that client address. */
async function publicUpload(address: string, bytes: Uint8Array, name: string) {
  return uploadFrom(server.url, `/v2/file/public/${await uploadId()}`, address, bytes, name);
}

before(async () => {
  server = await startTestServer();
  const account = await server.newAccount({ plan: 'business' });
  api = server.client(account.token);
});
afterEach(() => gate?.releaseAll());
after(() => server.stop());

test('one parse at a time per caller: the next uploads wait, and one past the queue answers 503 with Retry-After', async () => {
  const tokenCaller = (c: string) => c.startsWith('tok:');
  await useParser(tokenCaller);
  const first = api.uploadBytes('/v2/file', CUBE, 'one.stl');
  await until(() => gate.started.length === 1);
  const caller = gate.started[0]!.caller;
  const queued = [api.uploadBytes('/v2/file', CUBE, 'two.stl'), api.uploadBytes('/v2/file', CUBE, 'three.stl')];
  await until(() => callerState(caller)?.waiting === 2);
  // Two more workers are free, yet the caller's next uploads wait for its first.
  assert.deepEqual(parser.state().busy, { shared: 0, small: 1 });

  const refused = await api.uploadBytes('/v2/file', CUBE, 'four.stl');
  assert.equal(refused.status, 503);
  assert.equal(refused.body.error.code, 'parse_queue_full');
  assert.equal(refused.body.error.details.limit, 2);
  const retryAfter = Number(refused.headers.get('retry-after'));
  assert.ok(retryAfter >= 1, `Retry-After: ${refused.headers.get('retry-after')}`);
  assert.equal(refused.body.error.details.retry_after, retryAfter);

  gate.releaseAll();
  await until(() => gate.started.length === 2);
  gate.releaseAll();
  await until(() => gate.started.length === 3);
  gate.releaseAll();
  for (const res of await Promise.all([first, ...queued])) assert.equal(res.status, 201);
  assert.equal(gate.started.length, 3, 'the refused upload was never parsed');
});

test('callers take turns: a caller with several uploads queued lets another caller go in between', async () => {
  // Files over 1 MiB use the shared workers only; with one of them, every parse goes through one slot.
  await useParser(() => true, { sharedWorkers: 1 });
  const other = server.client((await server.newAccount({ plan: 'business' })).token);
  const a1 = api.uploadBytes('/v2/file', GEARS, 'a1.stl');
  await until(() => gate.started.length === 1);
  const a = gate.started[0]!.caller;
  const a2 = api.uploadBytes('/v2/file', GEARS, 'a2.stl');
  await until(() => callerState(a)?.waiting === 1);
  const b1 = other.uploadBytes('/v2/file', GEARS, 'b1.stl');
  await until(() => parser.state().callers.length === 2);
  const b = parser.state().callers.find((c) => c.caller !== a)!.caller;

  gate.release(a);
  await until(() => gate.started.length === 2);
  assert.equal(gate.started[1]!.caller, b, 'first come, first served would have parsed a2 next');
  gate.release(b);
  await until(() => gate.started.length === 3);
  assert.equal(gate.started[2]!.caller, a);
  gate.release(a);
  for (const res of await Promise.all([a1, a2, b1])) assert.equal(res.status, 201);
});

test("another address's small upload is parsed while four attacker addresses' parses hold the shared workers", async () => {
  const attackers = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
  await useParser((caller) => attackers.some((a) => caller === `ip:${a}`));
  const flood = attackers.map((address) => publicUpload(address, VERTEX_FLOOD, 'vertices.3mf'));
  await until(() => parser.state().callers.length === 4 && parser.state().busy.shared === 2);

  const honest = await publicUpload('127.0.0.9', CUBE, 'cube.stl');
  assert.equal(honest.status, 201, JSON.stringify(honest.body));
  // Every attacker parse is still held: two on the shared workers, two waiting for them.
  assert.deepEqual(parser.state().busy, { shared: 2, small: 0 });
  assert.deepEqual(
    parser
      .state()
      .callers.map((c) => c.caller)
      .sort(),
    attackers.map((a) => `ip:${a}`),
  );

  gate.releaseAll();
  await until(() => gate.started.length === 1 + attackers.length);
  gate.releaseAll();
  for (const res of await Promise.all(flood)) {
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'compression_ratio_too_high');
  }
});

test("a 3 KB upload from one more address goes before eight addresses' small, slow 3MFs on the small-file worker; each of those stops at its counted work and waits for a shared worker in its own turn", async () => {
  const heavy = ['127.0.0.30', '127.0.0.31'];
  const attackers = Array.from({ length: 8 }, (_, i) => `127.0.0.${20 + i}`);
  const ip = (address: string) => `ip:${address}`;
  // Two large files hold the shared workers. The first attacker's turn on the small-file worker is held, so the
  // others are certainly waiting for it when the honest upload comes. The CPU slice is out of reach: only the
  // count (20,000 vertices here) can stop a file on the small-file worker.
  await useParser(
    (caller, lane) => heavy.map(ip).includes(caller) || (caller === ip(attackers[0]!) && lane === 'small'),
    { smallSliceMs: 600_000, smallLimits: { maxInflatedBytes: 4 << 20, maxVertices: 20_000, maxTriangles: 20_000 } },
  );
  const large = heavy.map((address) => publicUpload(address, GEARS, 'gears.stl'));
  // Their parses (read as they arrived) run: held once the files are in.
  await until(() => gate.started.filter((s) => heavy.map(ip).includes(s.caller)).length === 2);
  // 10 KB placing a strip of 202 vertices 150 times: 30,300 vertices.
  const slow = instancingBomb(100, 150);
  const flood = [publicUpload(attackers[0]!, slow, 'slow.3mf')];
  await until(() => parser.state().busy.small === 1);
  for (const address of attackers.slice(1)) flood.push(publicUpload(address, slow, 'slow.3mf'));
  await until(() => parser.state().callers.length === heavy.length + attackers.length);

  const honest = publicUpload('127.0.0.9', CUBE, 'cube.stl');
  await until(() => parser.state().callers.length === heavy.length + attackers.length + 1);
  gate.release(ip(attackers[0]!));
  assert.equal((await honest).status, 201);
  const onSmall = () => gate.started.filter((s) => s.lane === 'small').map((s) => s.caller);
  assert.deepEqual(onSmall().slice(0, 2), [ip(attackers[0]!), 'ip:127.0.0.9'], 'the honest upload went next');
  // Each attacker's turn on the small-file worker ends at its count; its file then waits for a shared worker.
  await until(() => onSmall().length === attackers.length + 1);
  await until(() => attackers.every((a) => callerState(ip(a))?.waiting === 1 && !callerState(ip(a))?.running));
  gate.releaseAll();
  for (const res of await Promise.all(large)) assert.equal(res.status, 201);
  for (const res of await Promise.all(flood)) assert.ok([201, 422].includes(res.status), JSON.stringify(res.body));
  for (const address of attackers)
    assert.deepEqual(
      gate.started.filter((s) => s.caller === ip(address)).map((s) => s.lane),
      ['small', 'shared'],
      address,
    );
});

test('a small file that needs longer than its slice on the small-file worker is finished by a shared worker; its caller uses the shared workers from then on', async () => {
  // A 70 KB 3MF takes far longer to read than a 1 ms slice.
  await useParser(() => false, { smallSliceMs: 1 });
  const slow = fixture('3mf/conformance/examples/dodeca_chain_loop_color.3mf');
  const res = await api.uploadBytes('/v2/file', slow, 'd.3mf');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.deepEqual(
    gate.started.map((s) => s.lane),
    ['small', 'shared'],
  );
  assert.equal((await api.uploadBytes('/v2/file', CUBE, 'cube.stl')).status, 201);
  assert.equal(gate.started[2]!.lane, 'shared', 'the slow caller is not given the small-file worker again');
  const other = server.client((await server.newAccount({ plan: 'business' })).token);
  assert.equal((await other.uploadBytes('/v2/file', CUBE, 'cube.stl')).status, 201);
  assert.equal(gate.started[3]!.lane, 'small', 'another caller still is');
});

test('a 3MF stating 400 times its size is refused before it is inflated, naming the limit and its ratio; real 3MFs parse', async () => {
  await useParser(() => false);
  const res = await api.uploadBytes('/v2/file', VERTEX_FLOOD, 'vertices.3mf');
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, 'compression_ratio_too_high');
  const { details, message } = res.body.error;
  assert.equal(details.limit, 50);
  assert.equal(details.file_bytes, VERTEX_FLOOD.length);
  assert.ok(details.stated_bytes > 500_000_000, `stated ${details.stated_bytes}`);
  assert.equal(details.ratio, Math.round(details.stated_bytes / VERTEX_FLOOD.length));
  assert.match(message, new RegExp(`${details.ratio} times its size.*at most 50 times`));
  // The most compressible models of the corpus (10 and 8 to 1) are accepted.
  for (const name of ['dodeca_chain_loop_color.3mf', 'cube_gears.3mf']) {
    const ok = await api.uploadBytes('/v2/file', fixture(`3mf/conformance/examples/${name}`), name);
    assert.equal(ok.status, 201, `${name}: ${JSON.stringify(ok.body)}`);
  }
});

test("a quote's instant estimate is measured in its caller's turn, not as a caller of its own", async () => {
  await useParser(() => false);
  const up = await api.uploadBytes('/v2/file', GEARS, 'gears.stl');
  assert.equal(up.status, 201);
  const uploader = gate.started.at(-1)!.caller;
  assert.match(uploader, /^tok:/);
  gate.started.length = 0;
  // A quote that waits for its slice is estimated meanwhile: the mesh's features are measured by the parsers. The
  // asynchronous route answers 202 whatever finishes first, with the estimate when it is made in time (a
  // synchronous one answers the exact quote when the slice beats the estimate, as it may on a loaded host).
  const quote = await api.post(`/v2/file/quote/${up.body.file_id}/async`, {
    material_config: { filament_type: 'PETG' },
  });
  assert.equal(quote.status, 202, JSON.stringify(quote.body));
  await until(() => gate.started.length > 0);
  // The same caller as the upload: a visitor asking for many estimates waits behind their own work.
  assert.deepEqual(
    gate.started.map((s) => s.caller),
    [uploader],
  );
});
