// The widget's reading of the server's error answers (widget/src/errors.ts): what a shopper is offered depends on it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { httpError } from '../widget/src/errors.ts';

const overLimit = (details: Record<string, unknown>) => ({
  error: { code: 'model_too_complex', message: 'over the limit', details },
});

test("a choice over the shop's slicer limit carries the finest quality within it, offered instead", () => {
  const err = httpError(
    422,
    overLimit({
      field: 'max_slice_seconds',
      limit_seconds: 60,
      predicted_seconds: 95,
      over_limit: { quality: 'fine', label: 'Fine 0.1 mm' },
      within_limit: [
        { quality: 'standard', label: 'Standard 0.2 mm', predicted_seconds: 48 },
        { quality: 'draft', label: 'Draft 0.3 mm', predicted_seconds: 31 },
      ],
    }),
    null,
  );
  assert.equal(err.code, 'model_too_complex');
  assert.equal(err.retryable, false);
  assert.deepEqual(err.slicerLimit, {
    over: { quality: 'fine', label: 'Fine 0.1 mm' },
    instead: { quality: 'standard', label: 'Standard 0.2 mm' },
  });
});

test('a slicer-limit refusal with no quality within it names the choice and offers none; a parse refusal is not one', () => {
  const none = httpError(
    422,
    overLimit({ field: 'max_slice_seconds', over_limit: { quality: 'draft', label: 'Draft' }, within_limit: [] }),
    null,
  );
  assert.deepEqual(none.slicerLimit, { over: { quality: 'draft', label: 'Draft' }, instead: null });
  const malformed = httpError(422, overLimit({ field: 'max_slice_seconds', within_limit: [{ quality: 3 }] }), null);
  assert.deepEqual(malformed.slicerLimit, { over: null, instead: null });
  // The same code for a file that took too much work to read: the model's own wording applies.
  assert.equal(httpError(422, overLimit({ limit_seconds: 16 }), null).slicerLimit, null);
  assert.equal(httpError(500, 'not json', null).slicerLimit, null);
});
