#!/usr/bin/env bash
# Runs every test: unit, parser and engine tests once; the server suite (test/api) on PGlite and again on
# PostgreSQL; the widget's component tests in Chromium; then the browser end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."

export NODE_OPTIONS="${NODE_OPTIONS:-} --import tsx"
run() { node --test --test-concurrency="${TEST_CONCURRENCY:-2}" "$@"; }

npx tsc --noEmit
for app in widget dashboard; do
  if [ -f "$app/tsconfig.json" ]; then npx tsc --noEmit -p "$app/tsconfig.json"; fi
done

mapfile -t unit < <(find test -maxdepth 1 -name '*.test.ts' | sort)
mapfile -t api < <(find test/api -name '*.test.ts' | sort)
mapfile -t e2e < <(find test/e2e -name '*.test.ts' 2>/dev/null | sort)

echo "== unit, parser and engine tests"
run "${unit[@]}"
echo "== server suite on PGlite"
SQ_TEST_DB=pglite run "${api[@]}"
echo "== server suite on PostgreSQL"
SQ_TEST_DB=postgres run "${api[@]}"
if [ -f web-test-runner.config.mjs ]; then
  echo "== widget component tests (Chromium)"
  NODE_OPTIONS= npx web-test-runner
fi
if [ ${#e2e[@]} -gt 0 ]; then
  echo "== end-to-end tests (Chromium)"
  TEST_CONCURRENCY=1 run "${e2e[@]}"
fi
