// Scenarios 4 and 5: cold compiles and coalescing. Every compile is of a
// kernel nobody compiled before (bench_kernels.h), so nothing is served
// from a cache, a memo or a stage output.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <thread>

#include "bench/bench_kernels.h"
#include "bench/scenarios.h"
#include "client/client.h"
#include "tests/support/kernels.h"
#include "backends/in_process_compiler.h"
#include "compiler/compiler.h"

namespace qdcache::bench {
namespace {

std::atomic<std::uint64_t> next_salt{1};

v1::KernelDescriptor CudaDescriptor(const std::string& ir, const std::string& sm) {
  v1::KernelDescriptor d;
  d.set_ir(ir);
  d.mutable_target()->mutable_cuda()->set_sm(sm);
  d.add_entry_points("bench_kernel");
  return d;
}

// Where a daemon compile's time went: end to end at the client, in the
// engine (worker calls and stage writes), and in LLVM + nvJitLink proper.
struct DaemonCompile {
  double end_to_end_ms = 0;
  double engine_ms = 0;
  double toolchain_ms = 0;
};

Expected<DaemonCompile> DaemonCompileMs(BenchEnv& env, int ops) {
  const v1::KernelDescriptor d = CudaDescriptor(CudaChainKernel(ops, next_salt++), env.options.cuda_sm);
  Expected<v1::CompileResult> r = Internal("not run");
  const double s = SecondsOf([&] { r = CompileOne(*env.uds, d); });
  QDC_RETURN_IF_ERROR(r.status());
  if (r->status() != v1::CACHE_STATUS_COMPILED) return Internal("the cold compile was not compiled");
  const v1::CompileTimings& t = r->artifact().timings();
  return DaemonCompile{s * 1e3, t.total_seconds() * 1e3,
                       (t.parse_seconds() + t.optimize_seconds() + t.codegen_seconds() + t.link_seconds()) * 1e3};
}

Expected<double> InProcessMs(compiler::Compiler& compiler, const compiler::Target& target, int ops) {
  const std::string ir = CudaChainKernel(ops, next_salt++);
  compiler::CompileInput input;
  input.ir = ir;
  input.target = target;
  input.entry_points = {"bench_kernel"};
  Expected<compiler::CompileOutput> out = Internal("not run");
  const double s = SecondsOf([&] { out = compiler.Compile(input); });
  QDC_RETURN_IF_ERROR(out.status());
  return s * 1e3;
}

// The canonical digest of a kernel's IR, in-process: what keying a miss
// costs a key worker, besides the call.
Expected<double> DigestMs(compiler::Compiler& compiler, const compiler::Target& target, int ops) {
  const std::string ir = CudaChainKernel(ops, next_salt++);
  Expected<Digest> digest = Internal("not run");
  const double s = SecondsOf([&] { digest = compiler.CanonicalIrDigest(ir, target, false); });
  QDC_RETURN_IF_ERROR(digest.status());
  return s * 1e3;
}

// llc-19 then ptxas, as a build script runs them: both processes timed.
Expected<double> TwoProcessMs(const BenchEnv& env, const std::string& llc, const std::string& ptxas,
                              const std::string& ptx_attr, int ops) {
  const std::string ll = env.dir / "pipeline.ll", ptx = env.dir / "pipeline.ptx",
                    cubin = env.dir / "pipeline.cubin";
  testing::WriteFileOrDie(ll, CudaChainKernel(ops, next_salt++));
  double seconds = 0;
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{llc, "-O3", "-march=nvptx64", "-mcpu=" + env.options.cuda_sm,
                                 "-mattr=" + ptx_attr, ll, "-o", ptx},
        std::vector<std::string>{ptxas, "-O3", "-arch=" + env.options.cuda_sm, ptx, "-o", cubin}}) {
    QDC_ASSIGN_OR_RETURN(TimedRun run, RunTimed(argv));
    if (run.exit_code != 0) return Internal(argv[0] + " failed on the bench kernel");
    seconds += run.seconds;
  }
  return seconds * 1e3;
}

// "+ptx85" for PTX ISA "8.5".
std::string PtxAttr(const std::string& isa) {
  std::string digits;
  for (char c : isa) {
    if (c != '.') digits += c;
  }
  return "+ptx" + digits;
}

}  // namespace

Status RunColdCompile(BenchEnv& env, Report& report) {
  const char* kScenario = "4 cold compile";
  std::unique_ptr<compiler::Compiler> compiler = compiler::MakeInProcessCompiler();
  if (!compiler->toolchain().cuda_available) {
    report.Note(kScenario, "built without CUDA: no CUDA compiles to measure");
    return Status::Ok();
  }
  QDC_ASSIGN_OR_RETURN(compiler::Target target, compiler::ParseTarget("cuda:" + env.options.cuda_sm));
  const std::string llc = testing::FindOnPath("llc-19");
  std::string ptxas = testing::FindOnPath("ptxas");
  if (ptxas.empty()) ptxas = QDCACHE_BENCH_PTXAS;
  const bool pipeline = !llc.empty() && ::access(ptxas.c_str(), X_OK) == 0;
  if (!pipeline) report.Note(kScenario, "llc-19 or ptxas not found: no two-process comparison");
  const std::string attr = PtxAttr(compiler->toolchain().ptx_isa_version);

  const std::pair<const char*, int> sizes[] = {
      {"small", kSmallOps}, {"medium", kMediumOps}, {"large", kLargeOps}};
  for (const auto& [name, ops] : sizes) {
    std::vector<double> daemon, engine, toolchain, in_process, digest, two;
    for (int round = 0; round <= env.options.compile_rounds; ++round) {
      QDC_ASSIGN_OR_RETURN(DaemonCompile d, DaemonCompileMs(env, ops));
      QDC_ASSIGN_OR_RETURN(double i, InProcessMs(*compiler, target, ops));
      QDC_ASSIGN_OR_RETURN(double k, DigestMs(*compiler, target, ops));
      double t = 0;
      if (pipeline) {
        QDC_ASSIGN_OR_RETURN(t, TwoProcessMs(env, llc, ptxas, attr, ops));
      }
      if (round == 0) continue;  // warm-up: first use of each path
      daemon.push_back(d.end_to_end_ms);
      engine.push_back(d.engine_ms);
      toolchain.push_back(d.toolchain_ms);
      in_process.push_back(i);
      digest.push_back(k);
      two.push_back(t);
    }
    const std::string label = std::string(name) + " (" + std::to_string(ops) + " ops), " + env.options.cuda_sm;
    const Summary d = Summarize(daemon), i = Summarize(in_process), t = Summarize(two);
    report.Add({kScenario, "daemon compile, " + label, "ms", d});
    report.Add({kScenario, "  of which the engine's compile (one worker call, stage writes)", "ms", Summarize(engine)});
    report.Add({kScenario, "  of which LLVM + nvJitLink in the workers", "ms", Summarize(toolchain)});
    report.Add({kScenario, "in-process LLVM + nvJitLink, " + label, "ms", i});
    report.Add({kScenario, "in-process canonical digest (keying a miss), " + label, "ms", Summarize(digest)});
    if (pipeline) report.Add({kScenario, "llc-19 + ptxas processes, " + label, "ms", t});
    const bool small = ops == kSmallOps;
    if (pipeline) {
      report.Compare(kScenario, std::string("daemon / llc+ptxas p50, ") + name, d.p50, t.p50,
                     small ? std::optional<double>(0.4) : std::nullopt);
    }
    report.Compare(kScenario, std::string("daemon / in-process p50, ") + name, d.p50, i.p50, 1.1);
  }
  return Status::Ok();
}

Status RunCoalescing(BenchEnv& env, Report& report) {
  const char* kScenario = "5 coalescing";
  constexpr int kClients = 64;
  const bool cuda = compiler::MakeInProcessCompiler()->toolchain().cuda_available;
  auto fresh = [&] {
    return cuda ? CudaDescriptor(CudaChainKernel(kMediumOps, next_salt++), env.options.cuda_sm)
                : CpuDescriptor(testing::PaddedCpuKernel(1u << 30 | next_salt++, 4096), "");
  };
  // Per transport: 64 clients ask for one new kernel at once. Each has its
  // own Client, as 64 processes (a CI fleet's jobs) would, and keeps its
  // connection between rounds.
  struct Transport {
    const char* name;
    bool lean;
    std::vector<std::unique_ptr<client::Client>> clients;
    std::vector<double> together_ms, first_ms, follower_us, compiles;
  };
  Transport transports[] = {{"lean transport", true, {}, {}, {}, {}, {}}, {"gRPC", false, {}, {}, {}, {}, {}}};
  for (Transport& t : transports) {
    client::ClientOptions options;
    options.socket_path = env.daemon->socket_path();
    options.spawn = false;
    options.lean = t.lean;
    for (int c = 0; c < kClients; ++c) {
      QDC_ASSIGN_OR_RETURN(std::unique_ptr<client::Client> one, client::Client::Connect(options));
      t.clients.push_back(std::move(one));
    }
  }
  // The 64 clients' threads live across the rounds, as those processes
  // would: what is timed is asking and being answered, not starting and
  // ending threads. Between rounds they wait at `start`.
  struct Round {
    Transport* transport = nullptr;  // null: the threads end
    const v1::KernelDescriptor* descriptor = nullptr;
  } now;
  std::barrier start(kClients + 1), finish(kClients + 1);
  std::atomic<int> failures{0};
  std::vector<std::chrono::steady_clock::time_point> answered(kClients);
  std::vector<std::thread> crew;
  for (int c = 0; c < kClients; ++c) {
    crew.emplace_back([&, c] {
      for (;;) {
        start.arrive_and_wait();
        if (now.transport == nullptr) return;
        if (!CompileOne(*now.transport->clients[static_cast<std::size_t>(c)], *now.descriptor).ok()) ++failures;
        answered[c] = std::chrono::steady_clock::now();
        finish.arrive_and_wait();
      }
    });
  }
  struct EndCrew {
    Round& now;
    std::barrier<>& start;
    std::vector<std::thread>& crew;
    ~EndCrew() {
      now.transport = nullptr;
      start.arrive_and_wait();
      for (std::thread& thread : crew) thread.join();
    }
  } end_crew{now, start, crew};
  std::vector<double> single_ms;
  for (int round = 0; round <= env.options.compile_rounds; ++round) {
    for (Transport& t : transports) {  // interleaved: noise hits both alike
      QDC_ASSIGN_OR_RETURN(v1::Stats before, env.uds->Stats());
      const v1::KernelDescriptor d = fresh();
      now = Round{&t, &d};
      const auto t0 = std::chrono::steady_clock::now();
      start.arrive_and_wait();
      finish.arrive_and_wait();
      const auto [first_at, last_at] = std::minmax_element(answered.begin(), answered.end());
      const double together = std::chrono::duration<double>(*last_at - t0).count();
      const double first = std::chrono::duration<double>(*first_at - t0).count();
      const double followers = std::chrono::duration<double>(*last_at - *first_at).count() / (kClients - 1);
      if (failures > 0) return Internal(std::to_string(failures.load()) + " coalesced compiles failed");
      QDC_ASSIGN_OR_RETURN(v1::Stats after, env.uds->Stats());
      if (round == 0) continue;
      t.together_ms.push_back(together * 1e3);
      t.first_ms.push_back(first * 1e3);
      t.follower_us.push_back(followers * 1e6);
      t.compiles.push_back(static_cast<double>(after.compiles() - before.compiles()));
    }
    const v1::KernelDescriptor other = fresh();
    Status single_status;
    const double single = SecondsOf([&] { single_status = CompileOne(*env.uds, other).status(); });
    QDC_RETURN_IF_ERROR(single_status);
    if (round > 0) single_ms.push_back(single * 1e3);
  }
  // What one follower's answer is measured against: a whole gRPC call for
  // an artifact of the same size (a hit by IR), on a quiet daemon.
  const v1::KernelDescriptor last = fresh();
  QDC_RETURN_IF_ERROR(CompileOne(*env.uds_grpc, last).status());
  std::vector<double> grpc_hit_us;
  for (int i = 0; i < 200; ++i) {
    Status hit_status;
    const double seconds = SecondsOf([&] { hit_status = CompileOne(*env.uds_grpc, last).status(); });
    QDC_RETURN_IF_ERROR(hit_status);
    grpc_hit_us.push_back(seconds * 1e6);
  }
  const Summary s = Summarize(single_ms), hit = Summarize(grpc_hit_us);
  report.Add({kScenario, "one compile of a kernel of the same size (lean)", "ms", s});
  report.Add({kScenario, "a hit by IR of such a kernel over gRPC, quiet", "us", hit});
  for (Transport& t : transports) {
    const std::string over = std::string(", ") + t.name;
    const Summary all = Summarize(t.together_ms), f = Summarize(t.follower_us), c = Summarize(t.compiles);
    report.Add({kScenario, std::to_string(kClients) + " concurrent identical misses, all answered" + over, "ms", all});
    report.Add({kScenario, std::to_string(kClients) + " concurrent identical misses, first answered" + over, "ms",
                Summarize(t.first_ms)});
    report.Add({kScenario, "each follower after the first answer" + over, "us", f});
    report.Add({kScenario, "compiles per " + std::to_string(kClients) + " identical misses" + over, "compiles", c});
    const bool lean = t.lean;
    report.Compare(kScenario, "compiles for 64 identical misses (max) / 1" + over, c.p99, 1.0, 1.0);
    report.Compare(kScenario, "64 identical misses p50 / one compile p50" + over, all.p50, s.p50,
                   lean ? std::optional<double>(1.1) : std::nullopt);
    report.Compare(kScenario, "each follower p50 / a gRPC hit p50" + over, f.p50, hit.p50,
                   lean ? std::optional<double>(1.0) : std::nullopt);
  }
  return Status::Ok();
}

}  // namespace qdcache::bench
