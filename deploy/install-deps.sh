#!/usr/bin/env bash
# Installs the Debian 12 packages qdcached needs to build, run and test.
# Idempotent and non-interactive: packages already present are left alone.
# The CUDA Toolkit is not a Debian package; CMake detects it if installed
# (override with -DCUDAToolkit_ROOT=...), and the build works without it.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  llvm-19-dev liblld-19-dev llvm-19-tools clang-19 libclang-rt-19-dev llvm-14
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  librocksdb-dev libspdlog-dev libfmt-dev catch2 libcli11-dev
  nlohmann-json3-dev libssl-dev libzstd-dev zlib1g-dev
  openssl libhiredis-dev redis-server libtomlplusplus-dev libsystemd-dev
  prometheus-cpp-dev grpc-proto python3 python3-prometheus-client mypy
  # The Python package's wheel, built and installed into a venv offline.
  python3-pip python3-setuptools python3-wheel python3-venv
  # AMDGPU: ROCm's device libraries (link_device_libs), the HIP runtime the
  # launcher loads at run time, and ld.lld-19 for the code-object fidelity tests.
  rocm-device-libs libamdhip64-5 lld-19
)

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
