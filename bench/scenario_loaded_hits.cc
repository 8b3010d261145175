// Scenario 8: hits while compiles saturate the workers. The same warm hits
// as scenario 1 (by fast key, and by IR), quiet and then while as many
// clients as the daemon has compile workers keep sending kernels nobody
// compiled before, each as soon as its last one was answered.
#include <atomic>
#include <latch>
#include <thread>

#include "bench/bench_kernels.h"
#include "bench/scenarios.h"
#include "tests/support/kernels.h"

namespace qdcache::bench {
namespace {

std::atomic<std::uint64_t> next_fresh{1u << 20};

// A kernel no one compiled before: CUDA when the daemon has it (the heavier
// compile), else x86-64.
v1::KernelDescriptor FreshKernel(bool cuda, const std::string& sm) {
  if (!cuda) return CpuDescriptor(testing::PaddedCpuKernel(next_fresh++, 4096), "");
  v1::KernelDescriptor d;
  d.set_ir(CudaChainKernel(kMediumOps, next_fresh++));
  d.mutable_target()->mutable_cuda()->set_sm(sm);
  return d;
}

// p50/p99 of `calls` hits of each kind, interleaved.
Status MeasureHits(BenchEnv& env, const v1::LookupRequest& lookup, const v1::CompileRequest& compile, int calls,
                   std::vector<double>* by_key, std::vector<double>* by_ir) {
  for (int i = 0; i < calls; ++i) {
    Expected<v1::LookupResponse> l = Internal("not run");
    by_key->push_back(SecondsOf([&] { l = env.uds->Lookup(lookup); }) * 1e6);
    if (!l.ok() || l->results(0).status() != v1::CACHE_STATUS_ALIAS_HIT) return Internal("the warm lookup missed");
    Expected<v1::CompileResponse> c = Internal("not run");
    by_ir->push_back(SecondsOf([&] { c = env.uds->Compile(compile); }) * 1e6);
    if (!c.ok() || c->results(0).status() != v1::CACHE_STATUS_HIT) return Internal("the IR hit missed");
  }
  return Status::Ok();
}

}  // namespace

Status RunLoadedHits(BenchEnv& env, Report& report) {
  const char* kScenario = "8 loaded hits";
  const std::string fast_key = "bench-loaded-hit";
  const v1::KernelDescriptor d = HitKernel(env, 1, fast_key);
  QDC_RETURN_IF_ERROR(CompileOne(*env.uds, d).status());
  const v1::LookupRequest lookup = LookupOf(fast_key);
  v1::CompileRequest compile;
  *compile.add_kernels() = d;
  QDC_ASSIGN_OR_RETURN(v1::Stats stats, env.uds->Stats());
  const int workers = static_cast<int>(std::max<std::uint32_t>(1, stats.workers()));
  const bool cuda = stats.cuda_version() != "none" && !stats.cuda_version().empty();
  const int calls = env.options.calls_per_round * env.options.rounds / 4 + 10;

  std::vector<double> quiet_key, quiet_ir, loaded_key, loaded_ir;
  QDC_RETURN_IF_ERROR(MeasureHits(env, lookup, compile, calls, &quiet_key, &quiet_ir));

  std::atomic<bool> stop{false};
  std::atomic<int> compiled{0}, failed{0};
  // The measurement starts once every compiling client has had one answer:
  // from then on each keeps a compile in flight.
  std::latch warmed(workers);
  std::vector<std::thread> compilers;
  for (int i = 0; i < workers; ++i) {
    compilers.emplace_back([&] {
      client::ClientOptions options;
      options.socket_path = env.daemon->socket_path();
      options.spawn = false;
      auto client = client::Client::Connect(options);
      bool first = true;
      while (client.ok() && !stop) {
        if (CompileOne(**client, FreshKernel(cuda, env.options.cuda_sm)).ok()) {
          ++compiled;
        } else {
          ++failed;
        }
        if (first) warmed.count_down();
        first = false;
      }
      if (!client.ok()) {
        ++failed;
        warmed.count_down();
      }
    });
  }
  warmed.wait();
  Status measured = MeasureHits(env, lookup, compile, calls, &loaded_key, &loaded_ir);
  stop = true;
  for (std::thread& t : compilers) t.join();
  QDC_RETURN_IF_ERROR(measured);
  if (failed > 0) return Internal(std::to_string(failed.load()) + " background compiles failed");

  const Summary qk = Summarize(quiet_key), qi = Summarize(quiet_ir), lk = Summarize(loaded_key),
                li = Summarize(loaded_ir);
  const std::string load = std::to_string(workers) + " clients compiling fresh " + (cuda ? "CUDA" : "x86-64") +
                           " kernels (" + std::to_string(compiled.load()) + " compiled meanwhile)";
  report.Add({kScenario, "hit by fast key (Lookup), UDS, quiet", "us", qk});
  report.Add({kScenario, "hit by fast key (Lookup), UDS, " + load, "us", lk});
  report.Add({kScenario, "hit by IR (Compile), UDS, quiet", "us", qi});
  report.Add({kScenario, "hit by IR (Compile), UDS, under the same load", "us", li});
  report.Compare(kScenario, "Lookup hit p50 under compiles / quiet p50", lk.p50, qk.p50, 3.0);
  report.Compare(kScenario, "IR hit p50 under compiles / quiet p50", li.p50, qi.p50, 3.0);
  return Status::Ok();
}

}  // namespace qdcache::bench
