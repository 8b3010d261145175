#!/usr/bin/env bash
# The benchmark as docs/performance.md reports it:
#   bench/run.sh [qdcache-bench options...]     e.g. bench/run.sh --only 1 --only 2
# Builds what it needs in $BUILD_DIR (default: build/, the "default"
# preset), runs every scenario side by side with its baselines, prints the
# table and writes it as JSON to $BENCH_JSON (default: bench-results.json).
# Run it on a quiet machine; the figures are ratios measured in one run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
json=${BENCH_JSON:-bench-results.json}
if [[ ! -f $build/CMakeCache.txt ]]; then
  (cd "$root" && cmake --preset default >/dev/null)
fi
cmake --build "$build" --target qdcache-bench qdcache-bench-client qdcache-bench-echo qdcache-bench-toolchain qdcache-bench-capi qdcache_c qdcached -j"$(nproc)" >/dev/null
exec "$build/bench/qdcache-bench" --json "$json" "$@"
