#!/usr/bin/env bash
# Installs the Debian 12 packages qdcached needs. Idempotent and
# non-interactive: packages already present are left alone.
#   deploy/install-deps.sh          what building and running the daemon and
#                                   the CLI needs (the demo)
#   deploy/install-deps.sh --test   that and what the test suite uses
# The CUDA Toolkit is not a Debian package; CMake detects it if installed
# (override with -DCUDAToolkit_ROOT=...), and the build works without it.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  llvm-19-dev liblld-19-dev libclang-rt-19-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  librocksdb-dev libspdlog-dev libfmt-dev catch2 libcli11-dev
  nlohmann-json3-dev libssl-dev libzstd-dev zlib1g-dev
  openssl libhiredis-dev libtomlplusplus-dev libsystemd-dev
  prometheus-cpp-dev python3
  # AMDGPU: ROCm's device libraries, which link_device_libs links.
  rocm-device-libs
)
test_packages=(
  # LLVM's tools, clang (IR for tests and examples), an older LLVM's
  # bitcode, ld.lld-19 for the code-object fidelity tests, and the HIP
  # runtime the launch tests load.
  llvm-19-tools clang-19 llvm-14 lld-19 libamdhip64-5
  # gRPC reflection's proto, a real Redis, man's renderer.
  grpc-proto redis-server man-db
  # ip netns and veth pairs: the fleet test's hosts on a virtual network.
  iproute2
  # Python: the metrics parser, mypy, the wheel built and installed into a
  # venv offline, and Numba for examples/python/numba_cpu.py.
  python3-prometheus-client mypy python3-pip python3-setuptools python3-wheel python3-venv
  python3-numba
  # The Debian packages (deploy/package.sh: dpkg-shlibdeps), checked by
  # lintian and installed into a fresh root made with debootstrap.
  dpkg-dev lintian debootstrap
)
case "${1:-}" in
  "") ;;
  --test) packages+=("${test_packages[@]}") ;;
  *) echo "usage: deploy/install-deps.sh [--test]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
