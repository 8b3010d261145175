#!/usr/bin/env bash
# Long crash-test runs: tests/crash/run.sh ROUNDS [qdcache_crash options...]
#   e.g. tests/crash/run.sh 500 --seed 42 --writers 8
# Uses the build in $BUILD_DIR (default: build/, the "default" preset).
set -euo pipefail
if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 ROUNDS [qdcache_crash options...]" >&2
  exit 2
fi
rounds=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake --build "$build" --target qdcache_crash qdcached -j2 >/dev/null
exec "$build/tests/crash/qdcache_crash" --rounds "$rounds" "$@"
