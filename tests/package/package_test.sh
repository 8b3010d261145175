#!/usr/bin/env bash
# The Debian packages as an operator meets them (deploy/package.sh), on a
# fresh Debian root made with debootstrap from the archive this machine's apt
# uses:
#   - lintian finds no error and no warning in them;
#   - apt installs the four packages there, resolving their dependencies
#     from Debian's archive alone; the postinst made the qdcache user;
#     /etc/qdcached/qdcached.toml is a conffile; every version is project()'s;
#   - the installed daemon, run as qdcache exactly as the installed unit's
#     ExecStart= runs it, on the installed configuration (edited as an
#     operator would: the daemon logs JSON then), serves the installed
#     CLI a compile and then a hit, and the installed Python package a compile
#     it runs, and a fast-key lookup;
#   - systemd-analyze verify accepts the installed units in that root (with
#     systemd installed after the packages: they install without it);
#   - apt purges the packages, leaving none of their files.
# Skips (77), saying why, where it cannot run: not root, no debootstrap, no
# Debian archive configured, or the archive unreachable. Everything it makes is under one scratch
# directory, unmounted and removed at the end.
#
# usage: package_test.sh SOURCE_DIR SCRATCH_PARENT
set -euo pipefail
source_dir=$1
scratch_parent=$2
skip() {
  echo "SKIP: $*"
  exit 77
}
[[ $(id -u) == 0 ]] || skip "debootstrap and chroot need root"
command -v debootstrap >/dev/null || skip "debootstrap is not installed (deploy/install-deps.sh --test installs it)"
# shellcheck source=/dev/null
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
# The Debian archive apt uses here: its main suite, and every suite (updates,
# security) for the root's own sources.
mapfile -t suites < <(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' \
  'Component: main' 'Origin: Debian' | sort -u)
mirror=""
for line in "${suites[@]}"; do
  [[ ${line#* } == "$codename" ]] && mirror=${line% *}
done
[[ -n $codename && -n $mirror ]] || skip "apt has no Debian archive with suite '$codename' configured"

work=$(realpath "$(mktemp -d "$scratch_parent/package-test.XXXXXX")")
root="$work/root"
daemon_pid=""
cleanup() {
  if [[ -n $daemon_pid ]]; then
    kill -TERM "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  # The root's mounts go first; nothing is removed while one is left.
  for mnt in "$root/proc"; do
    if mountpoint -q "$mnt" 2>/dev/null; then umount -l "$mnt" || true; fi
  done
  if grep -q " $work" /proc/self/mounts; then
    echo "package_test.sh: mounts are left under $work; not removing it" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

echo "== the packages (deploy/package.sh)"
made=$(QDCACHE_PACKAGE_BUILD="$scratch_parent/package-build" "$source_dir/deploy/package.sh" "$work/debs")
mapfile -t debs <<<"$made"
printf '%s\n' "${debs[@]}"
version=$(sed -n 's/^project(qdcached VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
for package in qdcached libqdcache1 libqdcache-dev python3-qdcache; do
  deb=$(printf '%s\n' "${debs[@]}" | grep "/${package}_" || true)
  [[ -n $deb ]] || { echo "no package $package was made" >&2; exit 1; }
  got=$(dpkg-deb -f "$deb" Version)
  [[ $got == "$version" ]] || { echo "$package has version $got, project() says $version" >&2; exit 1; }
done

if command -v lintian >/dev/null; then
  echo "== lintian"
  lintian --fail-on error,warning --display-info "${debs[@]}"
else
  echo "== lintian is not installed: not run (deploy/install-deps.sh --test installs it)"
fi

echo "== a fresh $codename root (debootstrap --variant=minbase, $mirror)"
cache="$scratch_parent/debootstrap-cache"  # kept: the next run downloads nothing again
mkdir -p "$cache"
if ! debootstrap --variant=minbase --cache-dir="$cache" "$codename" "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
  tail -20 "$work/debootstrap.log"
  if grep -qE "Failed getting release file|Couldn't download|Temporary failure resolving" "$work/debootstrap.log"; then
    skip "the Debian archive $mirror cannot be reached (debootstrap says so above)"
  fi
  exit 1
fi
printf 'deb %s\n' "${suites[@]/%/ main}" >"$root/etc/apt/sources.list"
# This machine's way to the archive (a proxy, a snapshot's expired Release).
apt-config dump | grep -E '^Acquire::(https?::Proxy|Check-Valid-Until|Check-Date) ' \
  >"$root/etc/apt/apt.conf.d/99host" || true
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
# Each command in the root has 10 minutes (apt's downloads included): a hang
# fails the test instead of holding it to CTest's limit.
in_root() { timeout 600 chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

echo "== apt installs the packages and their dependencies"
mkdir "$root/tmp/debs"
cp "${debs[@]}" "$root/tmp/debs/"
in_root_debs=()
for deb in "${debs[@]}"; do in_root_debs+=("/tmp/debs/$(basename "$deb")"); done
in_root apt-get -q update >/dev/null
in_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends install "${in_root_debs[@]}" \
  >"$work/apt.log" 2>&1 || { tail -30 "$work/apt.log"; exit 1; }
in_root id qdcache
in_root dpkg-query -W -f='${Conffiles}\n' qdcached | grep -q "^ /etc/qdcached/qdcached.toml " ||
  { echo "/etc/qdcached/qdcached.toml is not a conffile of qdcached" >&2; exit 1; }
[[ $(in_root qdcached --version) == "qdcached $version" ]] || { echo "qdcached --version: wrong" >&2; exit 1; }
[[ $(in_root qdcache --version) == *"$version"* ]] || { echo "qdcache --version: wrong" >&2; exit 1; }

echo "== the installed daemon, as qdcache, as the installed unit starts it"
exec_start=$(sed -n 's/^ExecStart=//p' "$root/usr/lib/systemd/system/qdcached.service")
[[ $exec_start == /usr/bin/qdcached\ * ]] || { echo "unexpected ExecStart=$exec_start" >&2; exit 1; }
# The daemon reads the installed configuration: an operator's edit of the
# conffile (JSON logs) shows in its log.
sed -i 's/^log-format = "human"$/log-format = "json"/' "$root/etc/qdcached/qdcached.toml"
grep -qx 'log-format = "json"' "$root/etc/qdcached/qdcached.toml"
# What RuntimeDirectory= would make; StateDirectory= is the package's.
in_root install -d -o qdcache -g qdcache -m 0755 /run/qdcached
mkfifo -m 0600 "$work/ready"
# shellcheck disable=SC2086  # ExecStart's words
# setpriv execs the daemon (runuser would stay its parent): $! is qdcached.
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  setpriv --reuid=qdcache --regid=qdcache --init-groups -- $exec_start --ready-fd 3 \
  3>"$work/ready" >"$work/daemon.log" 2>&1 &
daemon_pid=$!
# The daemon closes the FIFO's write end by exiting (nothing else holds it):
# EOF then, not a hang; -t bounds a daemon that neither serves nor exits.
read -r -t 120 ready <"$work/ready" || true
[[ $ready == ready ]] || { cat "$work/daemon.log"; echo "the installed daemon did not start" >&2; exit 1; }
[[ $(head -c1 "$work/daemon.log") == "{" ]] ||
  { cat "$work/daemon.log"; echo "the daemon did not log as /etc/qdcached/qdcached.toml says" >&2; exit 1; }
socket=/run/qdcached/qdcached.sock
cp "$source_dir/tests/data/cpu/saxpy.ll" "$source_dir/tests/package/installed_python.py" "$root/tmp/"
first=$(in_root qdcache --socket "$socket" compile /tmp/saxpy.ll --target cpu:x86-64 -o /tmp/saxpy.so --json)
second=$(in_root qdcache --socket "$socket" compile /tmp/saxpy.ll --target cpu:x86-64 -o /tmp/saxpy2.so --json)
echo "$first"
echo "$second"
grep -q '"status":"compiled"' <<<"$first" || { echo "the first compile was not a compile" >&2; exit 1; }
grep -q '"status":"hit"' <<<"$second" || { echo "the second compile was not a hit" >&2; exit 1; }
cmp "$root/tmp/saxpy.so" "$root/tmp/saxpy2.so"
in_root python3 /tmp/installed_python.py "$socket" /tmp/saxpy.ll
in_root stat -c '%U %n' /var/lib/qdcached | grep -q "^qdcache " ||
  { echo "the store is not the qdcache user's" >&2; exit 1; }
kill -TERM "$daemon_pid"
timeout 120 tail --pid="$daemon_pid" -f /dev/null || { echo "the daemon did not exit within 2 minutes of SIGTERM" >&2; exit 1; }
wait "$daemon_pid" || { cat "$work/daemon.log"; echo "the daemon did not exit cleanly" >&2; exit 1; }
daemon_pid=""

echo "== systemd-analyze verify, on the installed units (systemd installed there now, for its own units)"
in_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends install systemd \
  >"$work/systemd.log" 2>&1 || { tail -30 "$work/systemd.log"; exit 1; }
if command -v systemd-analyze >/dev/null; then
  out=$(systemd-analyze verify --man=no --root="$root" qdcached.service qdcached.socket 2>&1) ||
    { echo "$out"; exit 1; }
  [[ -z $out ]] || { echo "$out"; echo "systemd-analyze verify said the above" >&2; exit 1; }
else
  echo "systemd-analyze is not installed here: not run"
fi

echo "== apt purges them"
mapfile -t files < <(in_root dpkg-query -L qdcached libqdcache1 libqdcache-dev python3-qdcache | grep -v '^/\.$')
in_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y purge qdcached libqdcache1 libqdcache-dev python3-qdcache \
  >"$work/purge.log" 2>&1 || { tail -30 "$work/purge.log"; exit 1; }
for f in "${files[@]}"; do
  if [[ -f "$root$f" || -L "$root$f" ]]; then
    echo "$f is still there after the purge" >&2
    exit 1
  fi
done
echo "package test: passed"
