#!/usr/bin/env bash
# Runs every test: unit and engine tests once, the server suite (test/api) on PGlite and again on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -d ../shared/models ] || { echo "test: the model corpus is missing: expected ../shared/models beside the repository" >&2; exit 1; }

export NODE_OPTIONS="${NODE_OPTIONS:-} --import tsx"
run() { node --test --test-concurrency="${TEST_CONCURRENCY:-2}" "$@"; }

npx tsc --noEmit

mapfile -t unit < <(find test -maxdepth 1 -name '*.test.ts' | sort)
mapfile -t api < <(find test/api -name '*.test.ts' | sort)

echo "== unit, parser and engine tests"
run "${unit[@]}"
echo "== server suite on PGlite"
SQ_TEST_DB=pglite run "${api[@]}"
echo "== server suite on PostgreSQL"
SQ_TEST_DB=postgres run "${api[@]}"
