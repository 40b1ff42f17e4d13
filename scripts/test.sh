#!/usr/bin/env bash
# Runs the tests: `unit` (lint, types, the server's folder graph, unit, parser and engine tests), `api` (the server
# suite on PGlite and again on PostgreSQL), `browser` (the widget's component tests and the end-to-end tests in
# Chromium), or, when no stage is named, `unit` and then the other three parts side by side (see `side_by_side`).
# Stops at the first failing stage: a lint or type error ends the run in two minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(unit rest)

# The test files run as JavaScript compiled beforehand (scripts/compile-tests.ts, about 2 s for them all): through the
# TypeScript loader each test process paid 1.3-1.7 CPU s more to load the server's modules, and each worker thread
# 0.4 s more. What still runs TypeScript as it is (the checks below, the servers and scripts tests spawn) names tsx
# itself.
mapfile -t test_files < <(find test -name '*.test.ts' -not -path 'test/widget/*')
compiled_tests=$(mkdir -p .cache && mktemp -d .cache/tests.XXXXXX)
trap 'rm -rf "$compiled_tests"' EXIT
node --import tsx scripts/compile-tests.ts "$compiled_tests" "${test_files[@]}"
# Tests wait on conditions, with no clock of their own: a loaded host only makes them slower. The one clock is the
# hang guard: a test still running after 30 minutes waits for something that will never happen.
# --liftoff-only (passed on to each test file's process and to the servers it spawns): PGlite's WebAssembly is
# compiled by V8's baseline compiler only, not again by its optimising one in the background. A test's database
# lives seconds to a minute, too short for the optimised code to pay for its compiling: a PGlite test file takes
# a fifth to a quarter less CPU (CONTRIBUTING.md). It changes how fast PGlite runs, not what it does.
# How many files each part runs at a time (each can be set; TEST_CONCURRENCY sets them all): the files mostly wait
# (on slices, on a server's answer, on a page's frames), so on two cores more of them at once finish sooner: one run
# takes 15-19 minutes on two 2-core EPYC VMs (26-27 on a third), and two runs at once on each of the first two were
# both green, in 2,151-2,425 s (CONTRIBUTING.md).
UNIT_FILES_AT_ONCE=${UNIT_FILES_AT_ONCE:-3}
SERVER_FILES_AT_ONCE=${SERVER_FILES_AT_ONCE:-3}
BROWSER_FILES_AT_ONCE=${BROWSER_FILES_AT_ONCE:-2}
run() {
  local at_once=$1
  shift
  local compiled=("${@/#/$compiled_tests/}")
  node --test --liftoff-only --test-concurrency="${TEST_CONCURRENCY:-$at_once}" --test-timeout=1800000 \
    "${compiled[@]/%.ts/.js}"
}

stage_unit() {
  npx biome ci . # lint and format
  npx tsc --noEmit
  node --import tsx scripts/check-graph.ts # the server's folders: front doors, arrows one way, no circles
  for app in widget dashboard; do
    if [ -f "$app/tsconfig.json" ]; then npx tsc --noEmit -p "$app/tsconfig.json"; fi
  done
  mapfile -t unit < <(find test -maxdepth 1 -name '*.test.ts' | sort)
  echo "== unit, parser and engine tests"
  run "$UNIT_FILES_AT_ONCE" "${unit[@]}"
}

# Files whose subject is not the database run on one of the two; every file whose subject is SQL runs on both
# (claims and fair shares, leases and crashes, migrations, idempotency, quotas and usage, retention, webhooks'
# outbox, the cart's and requests' records, sessions and sign-up, the slice cache, prefetching, money in numeric
# columns, the fuzz of every operation). The files run once are about model files and parsers, the slicer's geometry,
# processes and budgets, the estimator, printer profiles and their import, placement, HTTP connections and headers,
# logs, temporary folders and object storage, and the API's behaviour over plain rows: the offer and its terms, quotes
# and their failures, files, the widget's routes, rate limits and login throttling, webhooks' management, readiness
# and metrics, the first-run checklist, kept quotes, the hot path's counts. Those about the data folder run on PGlite,
# which keeps its database there; the cluster of processes sharing one database is PostgreSQL's. The others run on
# PostgreSQL: a test server starts there for a third of PGlite's CPU, and PostgreSQL 15 is the older of the two
# engines (PGlite 0.5 is PostgreSQL 18), the one to refuse a statement the other would take. The files run on both,
# and every browser test, still exercise PGlite's own adapter (parameters, numbers, notifications).
# CONTRIBUTING.md measures the parts and weighs the choice.
PGLITE_ONLY=(corpus tmp-owners data-dir-modes)
POSTGRES_ONLY=(busy-host hostile-uploads early-refusal fair-parsing fair-share-slicing kept-quotes-picture thin-parts
  s3-storage project-3mf upload-errors cluster
  estimate instant-estimate material-prices placement print-presets printer-library profile-check profile-import
  multi-colour client cost-breakdown demo-allowance logging operator-switches
  enum-case files hot-path kept-quotes limits limits-redis login-throttle offer offer-terms operations
  quote-failures quotes setup webhooks webhooks-detail widget)

# node --test runs its files in name order, whatever order they are given in.
api_files() { find test/api -name '*.test.ts' | sort; }

# The server suite's files but those named (test/api/<name>.test.ts).
api_files_but() { api_files | grep -vxF -f <(printf 'test/api/%s.test.ts\n' "$@"); }

part_pglite() {
  mapfile -t files < <(api_files_but "${POSTGRES_ONLY[@]}")
  echo "== server suite on PGlite (${#files[@]} files: ${#POSTGRES_ONLY[@]} whose subject is not the database run on PostgreSQL)"
  SQ_TEST_DB=pglite run "$SERVER_FILES_AT_ONCE" "${files[@]}"
}

part_postgres() {
  mapfile -t files < <(api_files_but "${PGLITE_ONLY[@]}")
  echo "== server suite on PostgreSQL (${#files[@]} files: ${#PGLITE_ONLY[@]} whose subject is not the database run on PGlite)"
  SQ_TEST_DB=postgres run "$SERVER_FILES_AT_ONCE" "${files[@]}"
}

stage_api() {
  part_pglite
  part_postgres
}

stage_browser() {
  echo "== widget component tests (Chromium)"
  NODE_OPTIONS= npx web-test-runner
  mapfile -t e2e < <(find test/e2e -name '*.test.ts' | sort)
  echo "== end-to-end tests (Chromium)"
  run "$BROWSER_FILES_AT_ONCE" "${e2e[@]}"
}

part_browser() { stage_browser; }

# The server suite on each database and the browser tests at the same time, each part's output kept in a file and
# printed whole once the part has ended (in this order, so the log reads part by part). One after the other, each part
# ends with its last long files running alone while a core waits; side by side the cores stay busy to the end.
side_by_side() {
  local logs pids=() parts=(pglite postgres browser) failed=0
  logs=$(mktemp -d)
  for part in "${parts[@]}"; do
    (
      set +e
      (
        set -e # each part stops at its first failing command, as a stage does
        "part_$part"
      )
      status=$?
      echo "== $part ended ${SECONDS} s after the tests began"
      exit "$status"
    ) >"$logs/$part.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!parts[@]}"; do
    local status=passed
    wait "${pids[$i]}" || { status=FAILED; failed=1; }
    cat "$logs/${parts[$i]}.log"
    echo "== ${parts[$i]}: $status"
  done
  rm -rf "$logs"
  return "$failed"
}

for stage in "${stages[@]}"; do
  case "$stage" in
    unit | api | browser) "stage_$stage" ;;
    rest) side_by_side ;;
    *) echo "test: unknown stage '$stage' (expected unit, api or browser)" >&2; exit 2 ;;
  esac
done
