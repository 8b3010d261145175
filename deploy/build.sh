#!/usr/bin/env bash
# Configures and builds qdcached with a CMake preset (default: "default";
# also "asan-ubsan", "tsan"): every target, or only the TARGETs named (the
# demo builds the daemon and the CLI alone).
# Usage: deploy/build.sh [PRESET [TARGET...]]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
shift || true
jobs=${QDCACHE_BUILD_JOBS:-$(nproc)}
targets=()
if (($# > 0)); then targets=(--target "$@"); fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"
