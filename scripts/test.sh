#!/usr/bin/env bash
# Runs the tests: `unit` (lint, types, the server's folder graph, unit, parser and engine tests), `api` (the server
# suite on PGlite and again on PostgreSQL), `browser` (the widget's component tests and the end-to-end tests in
# Chromium), or all of them in that order when no stage is named. Stops at the first failing stage.
set -euo pipefail
cd "$(dirname "$0")/.."

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(unit api browser)

export NODE_OPTIONS="${NODE_OPTIONS:-} --import tsx"
run() { node --test --test-concurrency="${TEST_CONCURRENCY:-2}" "$@"; }

stage_unit() {
  npx biome ci . # lint and format
  npx tsc --noEmit
  node scripts/check-graph.ts # the server's folders: front doors, arrows one way, no circles
  for app in widget dashboard; do
    if [ -f "$app/tsconfig.json" ]; then npx tsc --noEmit -p "$app/tsconfig.json"; fi
  done
  mapfile -t unit < <(find test -maxdepth 1 -name '*.test.ts' | sort)
  echo "== unit, parser and engine tests"
  run "${unit[@]}"
}

# The longest server test files start first, so that the last minutes of a stage are not one long file running
# alone on one core (measured with --test-reporter=tap; see CONTRIBUTING.md, "Tests").
LONGEST_API=(corpus fuzz hostile-uploads instant-price instant-estimate fair-share-slicing fair-share files)

# Files in `dir`, the named ones first (those that exist), then the rest in name order.
ordered() {
  local dir=$1
  shift
  local first=() name
  for name in "$@"; do [ -f "$dir/$name.test.ts" ] && first+=("$dir/$name.test.ts"); done
  printf '%s\n' "${first[@]}"
  find "$dir" -name '*.test.ts' | sort | grep -vxF -f <(printf '%s\n' "${first[@]}")
}

stage_api() {
  mapfile -t api < <(ordered test/api "${LONGEST_API[@]}")
  echo "== server suite on PGlite"
  SQ_TEST_DB=pglite run "${api[@]}"
  echo "== server suite on PostgreSQL"
  SQ_TEST_DB=postgres run "${api[@]}"
}

stage_browser() {
  echo "== widget component tests (Chromium)"
  NODE_OPTIONS= npx web-test-runner
  mapfile -t e2e < <(find test/e2e -name '*.test.ts' | sort)
  echo "== end-to-end tests (Chromium)"
  TEST_CONCURRENCY=1 run "${e2e[@]}"
}

for stage in "${stages[@]}"; do
  case "$stage" in
    unit | api | browser) "stage_$stage" ;;
    *) echo "test: unknown stage '$stage' (expected unit, api or browser)" >&2; exit 2 ;;
  esac
done
