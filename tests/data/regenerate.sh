#!/bin/sh
# Regenerates tests/data/{cuda,cpu,amdgpu}/*.ll from the .cu / .c / .hip sources next to them.
# Needs clang-19 and llvm-as-19 / llvm-dis-19 (Debian: apt-get install clang-19 llvm-19).
# The IR is emitted at -O1 without unrolling or vectorization, so the compiler
# under test still has real optimization work to do, then stripped of noise
# (TBAA, clang's ident, per-function target-cpu/features that would pin the SM).
set -eu
cd "$(dirname "$0")"
strip_noise() {
  sed -e 's/, !tbaa ![0-9]*//g' -e '/^!llvm.ident/d' -e '/^; Function Attrs/d' \
      -e 's/ "target-cpu"="[^"]*"//' -e 's/ "target-features"="[^"]*"//' \
      -e 's/ "tune-cpu"="[^"]*"//' |
    llvm-as-19 | llvm-dis-19 | sed -e '/^; ModuleID/d'
}
common="-O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -fno-discard-value-names -S -emit-llvm -o -"
for k in saxpy block_reduce stencil2d; do
  clang-19 -x cuda -nocudainc -nocudalib --cuda-device-only --cuda-gpu-arch=sm_75 \
    -Wno-unknown-cuda-version $common "cuda/$k.cu" | strip_noise > "cuda/$k.ll"
  clang-19 --target=x86_64-unknown-linux-gnu -fPIC $common "cpu/$k.c" | strip_noise > "cpu/$k.ll"
done
# HIP kernels for AMDGPU, without the HIP headers and device libraries (as a
# frontend hands IR to qdcached: the daemon links the device libraries).
for k in saxpy block_reduce math; do
  clang-19 -x hip --cuda-device-only --offload-arch=gfx90a -nogpuinc -nogpulib $common "amdgpu/$k.hip" |
    strip_noise > "amdgpu/$k.ll"
done
# Kernels whose half, bfloat, 128-bit integer and long double arithmetic
# becomes calls to compiler-rt's builtins and libm.
clang-19 --target=x86_64-unknown-linux-gnu -fPIC $common cpu/runtime_calls.c | strip_noise > cpu/runtime_calls.ll
# The same modules with debug info (-g), for the canonical-digest tests: once
# debug info is stripped they must equal the files above.
debug="-g -fdebug-compilation-dir=."
for k in saxpy stencil2d; do
  clang-19 -x cuda -nocudainc -nocudalib --cuda-device-only --cuda-gpu-arch=sm_75 \
    -Wno-unknown-cuda-version $debug $common "cuda/$k.cu" | strip_noise > "cuda/${k}_debug.ll"
  clang-19 --target=x86_64-unknown-linux-gnu -fPIC $debug $common "cpu/$k.c" |
    strip_noise > "cpu/${k}_debug.ll"
done
