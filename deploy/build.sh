#!/usr/bin/env bash
# Configures and builds qdcached with a CMake preset (default: "default";
# also "asan-ubsan", "tsan"). Usage: deploy/build.sh [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
jobs=${QDCACHE_BUILD_JOBS:-$(nproc)}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
