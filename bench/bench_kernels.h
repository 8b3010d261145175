// The kernels the bench compiles, generated so that every call can ask for
// one the daemon has never seen (a `salt` changes the code, not just a
// comment): no cache, memo or stage output can answer for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace qdcache::bench {

// The table size whose PaddedCpuKernel (tests/support/kernels.h) has a
// shared object of about `artifact_bytes`.
[[nodiscard]] inline std::size_t TableBytesFor(std::size_t artifact_bytes) {
  return artifact_bytes > 8192 ? artifact_bytes - 1900 : artifact_bytes / 2;
}

// A CUDA kernel `bench_kernel` computing y[i] = f(x[i]) with `ops` dependent
// floating-point operations (constants derived from `salt`) in one block.
[[nodiscard]] std::string CudaChainKernel(int ops, std::uint64_t salt);

// The sizes the cold-compile figures use: small (a saxpy's worth), medium,
// large.
inline constexpr int kSmallOps = 4;
inline constexpr int kMediumOps = 400;
inline constexpr int kLargeOps = 4000;

}  // namespace qdcache::bench
