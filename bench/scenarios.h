// The eight measurements of qdcache-bench (docs/performance.md), each next
// to its baselines in one run. A scenario adds figures and comparisons to
// the report; an error means it could not be measured at all.
#pragma once

#include <chrono>

#include "bench/bench_env.h"
#include "bench/report.h"

namespace qdcache::bench {

// 1: one warm hit of a ~16 KiB artifact over UDS (the lean transport, and
// gRPC) and TCP, by fast key and by IR, vs a bare gRPC echo, a raw
// unix-socket echo and a ccache hit.
[[nodiscard]] Status RunHitLatency(BenchEnv& env, Report& report);
// 2: a fresh process fetching 1,000 artifacts by fast key vs reading them
// from a file-per-entry directory, warm and cold.
[[nodiscard]] Status RunWarmStart(BenchEnv& env, Report& report);
// 3: hit throughput with 1, 4 and 16 client threads vs the bare gRPC echo.
[[nodiscard]] Status RunThroughput(BenchEnv& env, Report& report);
// 4: cold CUDA compiles (small, medium, large) through the daemon vs
// llc-19 + ptxas processes and vs LLVM + nvJitLink in this process.
[[nodiscard]] Status RunColdCompile(BenchEnv& env, Report& report);
// 5: 64 concurrent identical misses vs one compile.
[[nodiscard]] Status RunCoalescing(BenchEnv& env, Report& report);
// 6: hit latency with 10 k and with scale_entries stored entries.
[[nodiscard]] Status RunScale(BenchEnv& env, Report& report);
// 7: start-up + first hit and peak RSS of a minimal client process vs a
// process that loads LLVM and nvJitLink.
[[nodiscard]] Status RunFootprint(BenchEnv& env, Report& report);
// 8: warm hits while as many clients as there are compile workers keep
// them compiling, vs the same hits quiet.
[[nodiscard]] Status RunLoadedHits(BenchEnv& env, Report& report);

// Seconds `f` took.
template <typename F>
double SecondsOf(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace qdcache::bench
