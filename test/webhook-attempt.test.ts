// What of a receiver's answer the delivery log keeps (snippetOf): text only, bounded, public addresses only.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTextual, snippetOf } from '../server/webhooks/attempt.ts';
import { ATTEMPT_SNIPPET_CHARS, SNIPPET_CHARS } from '../server/webhooks/settings.ts';

const PUBLIC = '93.184.216.34';
const answer = (bodySnippet: string, contentType?: string, address = PUBLIC) => ({
  ok: false,
  status: 500,
  bodySnippet,
  contentType,
  address,
  durationMs: 5,
});

describe('snippetOf', () => {
  it('keeps 256 characters on the delivery and 2048 per attempt, never more', () => {
    const long = 'x'.repeat(4096);
    assert.equal(snippetOf(answer(long, 'text/plain'))?.length, SNIPPET_CHARS);
    assert.equal(snippetOf(answer(long, 'application/json; charset=utf-8'), ATTEMPT_SNIPPET_CHARS)?.length, 2048);
  });

  it('keeps text answers (text/*, JSON, XML, problem+json, no Content-Type) and drops declared binary ones', () => {
    for (const type of [
      'text/html; charset=utf-8',
      'application/json',
      'application/problem+json',
      'application/vnd.api+json',
      'application/xml',
      undefined,
    ]) {
      assert.equal(
        snippetOf(answer('{"error":"down"}', type), ATTEMPT_SNIPPET_CHARS),
        '{"error":"down"}',
        String(type),
      );
    }
    for (const type of ['image/png', 'application/octet-stream', 'application/zip', 'application/jsonx']) {
      assert.equal(snippetOf(answer('\u0089PNG\r\n', type), ATTEMPT_SNIPPET_CHARS), null, type);
      assert.equal(isTextual(type), false, type);
    }
  });

  it('removes control characters (NUL cannot be stored) and keeps nothing from a private address', () => {
    assert.equal(snippetOf(answer('a\u0000b\u0007c\nd', 'text/plain')), 'abc\nd');
    assert.equal(snippetOf(answer('secret internal page', 'text/plain', '127.0.0.1')), null);
    assert.equal(snippetOf(answer('secret internal page', 'text/plain', '10.1.2.3')), null);
  });
});
