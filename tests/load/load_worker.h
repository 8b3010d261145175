// One client process of the load generator: for a fixed time it sends a mix
// of requests over its own connection and records every outcome and latency.
//
// Operations (chosen at random with the configured ratios):
//   hit      compile one of the pre-compiled "warm" kernels: expects HIT
//   lookup   look one of them up by fast key: expects ALIAS_HIT
//   bad      compile IR that does not parse: expects INVALID_ARGUMENT
//   compile  compile a kernel never seen before: expects COMPILED
// With `cuda`, one kernel in four of each kind is for cuda:sm_90 (LLVM
// NVPTX codegen and nvJitLink in the workers, PTX and cubin stages).
// Anything else is an unexpected outcome.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::load {

struct WorkerConfig {
  std::string socket;
  double seconds = 10;
  int index = 0;  // distinct per worker: keeps "compile" kernels distinct
  std::uint64_t seed = 0;
  int warm_kernels = 32;
  double hit_ratio = 0.6;
  double lookup_ratio = 0.15;
  double bad_ratio = 0.05;  // the rest compiles fresh kernels
  bool cuda = false;        // one kernel in four (warm and fresh) is for cuda:sm_90
  double rate = 0;          // requests per second; 0: each as soon as the last is answered
};

// Outcomes and latencies of one worker, or of all of them merged.
struct LoadResult {
  // "<op> <outcome>" -> count; outcome "ok" or e.g. "call:UNAVAILABLE",
  // "item:INTERNAL", "status:CACHE_STATUS_COMPILED".
  std::map<std::string, std::uint64_t> outcomes;
  std::map<std::string, std::vector<std::uint32_t>> latency_us;  // by op, ok outcomes only

  void Merge(const LoadResult& other);
  // Text form written by a worker and read back by the driver.
  [[nodiscard]] std::string Serialize() const;
  // False on malformed text.
  [[nodiscard]] static bool Parse(const std::string& text, LoadResult* out);
};

// The descriptor of warm kernel `n` (also compiled by the driver beforehand)
// and of fresh kernel `id`; with `cuda`, one in four is a CUDA kernel.
[[nodiscard]] v1::KernelDescriptor WarmKernel(int n, bool cuda);
[[nodiscard]] v1::KernelDescriptor FreshKernel(std::uint64_t id, bool cuda);
[[nodiscard]] std::string WarmFastKey(int n);
inline constexpr const char* kWarmNamespace = "load";

// Runs the worker loop; returns what it saw.
[[nodiscard]] LoadResult RunWorker(const WorkerConfig& config);

}  // namespace qdcache::load
