// Scenario 3: hit throughput with 1, 4 and 16 client threads sharing one
// channel, against a bare gRPC call of the same shape (scenario 1).
#include <atomic>
#include <thread>

#include "bench/bench_kernels.h"
#include "bench/scenarios.h"
#include "tests/support/kernels.h"

namespace qdcache::bench {
namespace {

// Calls per second that `threads` threads make running `call` for `seconds`.
template <typename Call>
Expected<double> Rate(int threads, double seconds, Call call) {
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> calls{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> pool;
  const auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      std::uint64_t mine = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        if (!call()) {
          failed = true;
          break;
        }
        ++mine;
      }
      calls += mine;
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));  // the measuring window
  stop = true;
  for (std::thread& t : pool) t.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failed) return Internal("a call failed under load");
  return static_cast<double>(calls.load()) / elapsed;
}

}  // namespace

Status RunThroughput(BenchEnv& env, Report& report) {
  const char* kScenario = "3 throughput";
  const std::string fast_key = "bench-throughput";
  QDC_ASSIGN_OR_RETURN(
      v1::CompileResult first,
      CompileOne(*env.uds, CpuDescriptor(testing::PaddedCpuKernel(1, TableBytesFor(env.options.artifact_bytes)), fast_key)));
  const v1::LookupRequest lookup = LookupOf(fast_key);
  const bench_echo::EchoMessage echo = EchoRequestFor(lookup, first.artifact().payload().size());

  auto hit = [&] {
    Expected<v1::LookupResponse> r = env.uds->Lookup(lookup);
    return r.ok() && r->results_size() == 1 && r->results(0).status() == v1::CACHE_STATUS_ALIAS_HIT;
  };
  auto bare = [&] { return EchoCall(*env.echo_uds, echo).ok(); };
  const int rounds = std::max(3, env.options.rounds / 5);
  for (int threads : {1, 4, 16}) {
    std::vector<double> ours, base;
    for (int round = 0; round < rounds; ++round) {
      QDC_ASSIGN_OR_RETURN(double o, Rate(threads, env.options.throughput_seconds, hit));
      QDC_ASSIGN_OR_RETURN(double b, Rate(threads, env.options.throughput_seconds, bare));
      ours.push_back(o);
      base.push_back(b);
    }
    const std::string t = std::to_string(threads) + (threads == 1 ? " thread" : " threads");
    const Summary o = Summarize(ours), b = Summarize(base);
    report.Add({kScenario, "Lookup hits/s, UDS, " + t, "calls/s", o});
    report.Add({kScenario, "bare gRPC calls/s, UDS, " + t, "calls/s", b});
    report.Compare(kScenario, "Lookup / bare gRPC throughput (median), " + t, o.p50, b.p50, std::nullopt, 0.9);
  }
  return Status::Ok();
}

}  // namespace qdcache::bench
