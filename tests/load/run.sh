#!/usr/bin/env bash
# Long load runs: tests/load/run.sh DURATION [qdcache_load options...]
#   DURATION in seconds, or with a unit: 90s, 5m.
#   e.g. tests/load/run.sh 5m --clients 16 --daemon-arg=--workers=2
# Uses the build in $BUILD_DIR (default: build/, the "default" preset).
set -euo pipefail
if [[ $# -lt 1 || ! $1 =~ ^([0-9]+)(s|m)?$ ]]; then
  echo "usage: $0 DURATION[s|m] [qdcache_load options...]" >&2
  exit 2
fi
seconds=${BASH_REMATCH[1]}
[[ ${BASH_REMATCH[2]} == m ]] && seconds=$((seconds * 60))
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake --build "$build" --target qdcache_load qdcached -j2 >/dev/null
exec "$build/tests/load/qdcache_load" --seconds "$seconds" "$@"
