#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs what is missing, builds,
# starts qdcached on its zero-configuration defaults (unless one already
# serves), and pushes sample kernels through it: a compile, then a cache hit.
# It builds only what it runs: the daemon (which is also its own compile
# worker) and the CLI; deploy/test.sh builds the rest in the same tree.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh
./deploy/build.sh default qdcached qdcache
bin=build
qdcache=("$bin/client/cli/qdcache")

started=""
if "${qdcache[@]}" --timeout 2 ping >/dev/null 2>&1; then
  echo "== using the qdcached already serving the default socket"
else
  echo "== starting qdcached on its defaults"
  ready=$(mktemp -u)
  mkfifo "$ready"
  "$bin/daemon/qdcached" --ready-fd 4 4>"$ready" &
  started=$!
  trap 'kill -TERM "$started" 2>/dev/null; wait "$started" 2>/dev/null; rm -f "$ready"' EXIT
  read -r line <"$ready" || { echo "qdcached failed to start"; exit 1; }
fi
"${qdcache[@]}" ping

out=$(mktemp -d)
run() { echo "\$ qdcache $*"; "${qdcache[@]}" "$@"; }
run compile tests/data/cpu/saxpy.ll --target cpu:x86-64 -o "$out/saxpy.so" --json
run compile tests/data/cpu/saxpy.ll --target cpu:x86-64 -o "$out/saxpy.so" --json
if run compile tests/data/cuda/saxpy.ll --target cuda:sm_90 -o "$out/saxpy.cubin" --json; then
  run compile tests/data/cuda/saxpy.ll --target cuda:sm_90 -o "$out/saxpy.cubin" --json
else
  echo "(CUDA compile refused above: this build has no CUDA Toolkit)"
fi
run stats
ls -l "$out"
rm -rf "$out"
