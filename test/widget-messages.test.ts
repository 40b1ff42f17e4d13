// The widget's shopper wording (widget/src/shopper-messages.ts) covers every error code a shopper can
// meet: each code the parsers throw, each code the slicer fails with, and each API error a widget route
// can answer. The codes are read from the sources, so a new code without shopper wording fails here.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SHOPPER_MESSAGES, shopperMessage } from '../widget/src/shopper-messages.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** API codes only the dashboard, an API token or a programming mistake can meet; never a shopper. */
const NOT_FOR_SHOPPERS = new Set([
  'csrf_failed',
  'email_taken',
  'forbidden',
  'invalid_json',
  'json_required',
  'method_not_allowed',
  'multipart_required',
  'offer_conflict',
  'profile_in_use',
  'profile_name_taken',
  'profile_read_only',
  'route_not_found',
  'unsupported_media_type',
  'webhook_inactive',
  'webhook_limit_reached',
  // Dashboard logins and sign-up, and the Idempotency-Key header the widget never sends.
  'login_throttled',
  'signup_closed',
  'invite_required',
  'invite_invalid',
  'invalid_idempotency_key',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  // The merchant's check of an imported printer profile (an API token or the dashboard).
  'gcode_too_large',
  'bgcode_unreadable',
  'slicer_busy',
  // Pricing a quote request: the merchant's token or dashboard only.
  'quote_request_ordered',
]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [readFileSync(p, 'utf8')] : [];
  });
}

/** The first capture group of every match; a match of an alternative without that group adds nothing. */
function codes(dir: string, pattern: RegExp): Set<string> {
  return new Set(
    sources(path.join(ROOT, dir)).flatMap((text) => [...text.matchAll(pattern)].flatMap((m) => m[1] ?? [])),
  );
}

const parserCodes = codes('shared/model', /(?:\bfail|new ModelError)\(\s*'([a-z0-9_]+)'/g);
const slicerErrors = readFileSync(path.join(ROOT, 'server/slicer/errors.ts'), 'utf8');
const slicerCodes = new Set(
  [...(/type SliceFailureCode =([^;]+);/.exec(slicerErrors)?.[1] ?? '').matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!),
);
const apiCodes = codes('server', /ApiError\(\s*\d+,\s*'([a-z0-9_]+)'|\n\s+'([a-z_]+_exceeded|rate_limited)',/g);
apiCodes.add('validation_failed'); // ValidationError's default code

test('the sources name the codes this test checks (the patterns still match)', () => {
  assert.ok(
    parserCodes.has('stl_truncated') && parserCodes.has('mesh_not_closed') && parserCodes.size > 30,
    [...parserCodes].join(),
  );
  assert.ok(slicerCodes.has('first_layer_empty') && slicerCodes.has('bad_output'), [...slicerCodes].join());
  assert.ok(apiCodes.has('origin_not_allowed') && apiCodes.has('quote_expired'), [...apiCodes].join());
});

test('every parser and slicer code has shopper wording', () => {
  const missing = [...parserCodes, ...slicerCodes].filter((c) => !(c in SHOPPER_MESSAGES));
  assert.deepEqual(missing, []);
});

test('every API error a widget route can answer has shopper wording', () => {
  const missing = [...apiCodes].filter((c) => c && !NOT_FOR_SHOPPERS.has(c) && !(c in SHOPPER_MESSAGES));
  assert.deepEqual(missing, []);
});

test('shopper wording is plain: no codes, numbers of triangles, bytes or file-format rules', () => {
  for (const [code, sentence] of Object.entries(SHOPPER_MESSAGES)) {
    assert.doesNotMatch(
      sentence,
      /[a-z]+_[a-z]+|\d{2,}|\bbytes\b|\bheader\b|\bXML\b|\bCORS\b|\borigin\b|\bkey\b|\bHTTP\b/i,
      code,
    );
    assert.match(sentence, /^[A-Z].*[.]$/, `${code} is a sentence`);
  }
});

test('unknown codes fall back by whether retrying can help', () => {
  assert.match(shopperMessage('some_new_code', true), /try again in a moment/);
  assert.match(shopperMessage('some_new_code', false), /contact the shop/);
});
