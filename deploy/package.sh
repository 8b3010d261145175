#!/usr/bin/env bash
# Builds qdcached's Debian packages with CPack (deploy/debian/CMakeLists.txt):
# qdcached, libqdcache1, libqdcache-dev and python3-qdcache, version
# project(VERSION), into OUT_DIR (default: dist/), and prints their paths
# (the build's output goes to stderr).
# Configures its own build tree (build-package/, or $QDCACHE_PACKAGE_BUILD)
# for the prefix /usr without the test suite; needs dpkg-dev (dpkg-shlibdeps
# writes the dependencies), which deploy/install-deps.sh --test installs.
# Usage: deploy/package.sh [OUT_DIR]
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$source_dir/dist}")
build=$(realpath -m "${QDCACHE_PACKAGE_BUILD:-$source_dir/build-package}")
jobs=${QDCACHE_BUILD_JOBS:-$(nproc)}
for tool in cpack dpkg-shlibdeps; do
  if ! command -v "$tool" >/dev/null; then
    echo "package.sh: $tool is missing (deploy/install-deps.sh --test installs it)" >&2
    exit 1
  fi
done

cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_SYSCONFDIR=/etc \
  -DQDCACHE_PYTHON_INSTALL_DIR=lib/python3/dist-packages -DQDCACHE_BUILD_TESTS=OFF \
  -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=OFF \
  "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-z,relro -Wl,-z,now" "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,-z,relro -Wl,-z,now" >/dev/null
cmake --build "$build" -j "$jobs" >&2  # stdout: the packages' paths alone
mkdir -p "$out"
# CPack's staging directory stays in the build tree; only the packages go out.
rm -f "$build"/cpack/*.deb  # this script's own earlier output
(cd "$build" && cpack -G DEB -B "$build/cpack" >&2)
# OUT_DIR keeps a list of the packages this script put there, with their
# digests: a file of the same name is replaced only if it is one of those,
# unchanged; anything else there (a package from elsewhere, a link, a FIFO)
# stops the script instead.
manifest="$out/.qdcache-packages"
if [[ -L $manifest || (-e $manifest && ! -f $manifest) ]]; then
  echo "package.sh: $manifest is not a regular file; not touching it" >&2
  exit 1
fi
touch "$manifest"
for deb in "$build"/cpack/*.deb; do
  name=$(basename "$deb")
  dest="$out/$name"
  if [[ -L $dest || -e $dest ]]; then
    sum=$( [[ -f $dest && ! -L $dest ]] && sha256sum <"$dest" | cut -d' ' -f1 || true)
    if [[ -z $sum ]] || ! grep -qxF "$sum  $name" "$manifest"; then
      echo "package.sh: $dest exists and is not a package this script made there; not touching it" >&2
      exit 1
    fi
    rm -f -- "$dest"
  fi
  cp -- "$deb" "$dest"
  { grep -vF "  $name" "$manifest" || true; sha256sum <"$dest" | sed "s/ .*/  $name/"; } >"$manifest.new"
  mv -f -- "$manifest.new" "$manifest"
  echo "$dest"
done
