#!/usr/bin/env bash
# Runs the server (server/main.ts): `npm start` after setup, and every way of starting it in docs/deployment.md.
# Options for node come as arguments (`bash scripts/serve.sh --inspect`); NODE names another node binary.
#
# glibc's allocator keeps what the process freed for its next allocations, and by default it raises the size it
# keeps with each large block freed (start-up frees many: files read, the database's code compiled). An idle server
# then held 20-80 MB it no longer used, a different amount on every start (docs/performance.md, "Idle memory").
# Fixed thresholds hand back what is freed: blocks from 128 KB up are mapped on their own and unmapped when freed,
# and more than 256 KB free at the top of a heap is returned. Values set in the environment are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-262144}"
exec "${NODE:-node}" "$@" --import tsx server/main.ts
