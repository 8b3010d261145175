#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine: installs what is missing,
# builds, and runs every test through CTest. Usage: deploy/test.sh [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
./deploy/install-deps.sh --test
./deploy/build.sh "$preset"
ctest --preset "$preset" -j "${QDCACHE_TEST_JOBS:-2}"
