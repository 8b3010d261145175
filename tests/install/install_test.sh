#!/usr/bin/env bash
# What a user of an installed qdcached gets, end to end: `cmake --install`
# into a fresh prefix (its man pages render), then, using nothing of the
# build tree,
#   - a C program built with only `pkg-config qdcache` compiles and runs a kernel;
#   - the same program built by CMake through find_package(qdcache);
#   - a fresh Python process imports the installed `qdcache` package, has
#     clang-19 make IR, compiles a CPU and a CUDA kernel, runs the CPU one and
#     compares with Python (examples/python/saxpy_clang.py);
# each time starting the installed qdcached on demand (the library finds it
# next to itself), on a private socket and store removed afterwards.
#
# usage: install_test.sh BUILD_DIR SOURCE_DIR
# In a sanitized build, QDCACHE_HOST_PRELOAD names the ASan runtime, which
# the programs loading libqdcache.so need preloaded (and only they: procps'
# tools hang under it).
set -euo pipefail
host() {
  if [[ -n ${QDCACHE_HOST_PRELOAD:-} ]]; then
    LD_PRELOAD=$QDCACHE_HOST_PRELOAD ASAN_OPTIONS=detect_leaks=0:use_sigaltstack=0 "$@"
  else
    "$@"
  fi
}
build=$1
source=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/qdcache-install.XXXXXX")
run="$work/run"
mkdir -m 700 "$run"
cleanup() {
  # The auto-started daemon: SIGTERM, as idle exit would.
  pkill -TERM -f -- "--socket $run/sock" 2>/dev/null || true
  timeout 30 pidwait -f -- "--socket $run/sock" 2>/dev/null || true  # procps 4
  rm -rf "$work"
}
trap cleanup EXIT

prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" --strip >/dev/null
pc=$(find "$prefix" -name qdcache.pc)
libdir=$(dirname "$(find "$prefix" -name 'libqdcache.so.1')")
package=$(dirname "$(find "$prefix" -path '*/qdcache/__init__.py')")
echo "installed: $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"

# The man pages, which man renders without a warning.
for page in man8/qdcached.8.gz man1/qdcache.1.gz; do
  test -s "$prefix/share/man/$page"
  if command -v man >/dev/null; then
    warnings=$(MANWIDTH=100 man -l "$prefix/share/man/$page" 2>&1 >/dev/null)
    [[ -z $warnings ]] || { echo "man -l $page: $warnings"; exit 1; }
  fi
done

# Nothing from the build tree or the test environment.
unset QDCACHE_LIBRARY QDCACHED_BIN PYTHONPATH QDCACHE_AUTOSPAWN
export PATH=/usr/local/bin:/usr/bin:/bin
export QDCACHE_SOCKET="$run/sock" XDG_CACHE_HOME="$work/cache" QDCACHE_SPAWN_IDLE_EXIT=5m

echo "== C through pkg-config"
export PKG_CONFIG_PATH=$(dirname "$pc")
cc -std=c11 -Wall -Wextra -Werror "$source/examples/c/saxpy.c" $(pkg-config --cflags --libs qdcache) -lm \
  -Wl,-rpath,"$libdir" -o "$work/saxpy-pc"
host "$work/saxpy-pc" "$source/tests/data/cpu/saxpy.ll"
# It linked the installed library and nothing else of ours.
# (grep reads all its input: with -q it could exit first and, under pipefail,
# fail the pipeline through the writer's SIGPIPE.)
ldd "$work/saxpy-pc" | grep "$libdir/libqdcache.so.1" >/dev/null

echo "== C through find_package(qdcache)"
cmake -S "$source/examples/c" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER_LAUNCHER= >/dev/null
cmake --build "$work/cmake" | tail -n 20
host "$work/cmake/saxpy" "$source/tests/data/cpu/saxpy.ll"

echo "== Python: the installed package, in a fresh process"
cd "$work"
PYTHONPATH="$(dirname "$package")" host python3 -c 'import qdcache, sys; print(qdcache.__file__, qdcache.__version__)' |
  grep "^$package/__init__.py " >/dev/null
PYTHONPATH="$(dirname "$package")" host python3 "$source/examples/python/saxpy_clang.py" | tee "$work/first"
PYTHONPATH="$(dirname "$package")" host python3 "$source/examples/python/saxpy_clang.py" | tee "$work/second"
grep -q "saxpy.c .*compiled" "$work/first"
grep -q "saxpy.c .*alias_hit" "$work/second"
if ! grep -q "cuda kernel not compiled: .*built without CUDA" "$work/first"; then
  grep -q "saxpy.cu .*compiled" "$work/first"
  grep -q "saxpy.cu .*alias_hit" "$work/second"
fi
echo "== bash completion"
completion="$prefix/share/bash-completion/completions/qdcache"
bash -c "source '$completion' && complete -p qdcache" | grep -- "-F _qdcache qdcache" >/dev/null

# The daemon that served all this is the installed one, started on demand.
pgrep -af -- "--socket $run/sock" | grep "^[0-9]* $prefix/bin/qdcached " >/dev/null
echo "install test: ok"
