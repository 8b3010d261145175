// Scenario 7: what a client costs a process. A minimal client (the client
// library only) started fresh for one hit, against a process that loads
// LLVM's targets and nvJitLink as an in-process compiling framework does.
#include "bench/bench_kernels.h"
#include "bench/scenarios.h"
#include "tests/support/kernels.h"
#include "common/digest.h"

namespace qdcache::bench {
namespace {

// The "peak_rss_kib" a child printed about itself.
long ReportedPeakKib(const std::string& out) {
  const std::string field = "\"peak_rss_kib\":";
  const std::size_t at = out.find(field);
  return at == std::string::npos ? 0 : std::atol(out.c_str() + at + field.size());
}

}  // namespace

Status RunFootprint(BenchEnv& env, Report& report) {
  const char* kScenario = "7 footprint";
  const std::string fast_key = "bench-footprint";
  QDC_RETURN_IF_ERROR(
      CompileOne(*env.uds, CpuDescriptor(testing::PaddedCpuKernel(2, TableBytesFor(env.options.artifact_bytes)), fast_key))
          .status());
  const std::string keys_file = env.dir / "footprint-keys.txt";
  testing::WriteFileOrDie(keys_file, ToHex(fast_key) + "\n");
  const std::vector<std::string> client = {BenchClientBinary(), "first-hit", "--socket",
                                           env.daemon->socket_path(), "--namespace", "bench",
                                           "--target", "cpu:x86-64", "--keys", keys_file};
  const std::vector<std::string> toolchain = {ToolchainBinary()};
  std::vector<double> client_ms, client_mb, toolchain_ms, toolchain_mb;
  const int rounds = std::max(10, env.options.rounds);
  for (int round = 0; round <= rounds; ++round) {
    QDC_ASSIGN_OR_RETURN(TimedRun c, RunTimed(client));
    QDC_ASSIGN_OR_RETURN(TimedRun t, RunTimed(toolchain));
    if (c.exit_code != 0 || c.out.rfind("{\"items\":1,", 0) != 0) return Internal("the first-hit client failed");
    if (t.exit_code != 0) return Internal("the toolchain-loading process failed");
    if (round == 0) continue;
    client_ms.push_back(c.seconds * 1e3);
    client_mb.push_back(static_cast<double>(ReportedPeakKib(c.out)) / 1024.0);
    toolchain_ms.push_back(t.seconds * 1e3);
    toolchain_mb.push_back(static_cast<double>(ReportedPeakKib(t.out)) / 1024.0);
  }
  const Summary cm = Summarize(client_ms), cr = Summarize(client_mb), tm = Summarize(toolchain_ms),
                tr = Summarize(toolchain_mb);
  report.Add({kScenario, "minimal client: process start + first hit", "ms", cm});
  report.Add({kScenario, "minimal client: peak RSS", "MiB", cr});
  report.Add({kScenario, "process loading LLVM + nvJitLink: start to exit", "ms", tm});
  report.Add({kScenario, "process loading LLVM + nvJitLink: peak RSS", "MiB", tr});
  report.Compare(kScenario, "client start + first hit p50 / 15 ms", cm.p50, 15.0, 1.0);
  report.Compare(kScenario, "client peak RSS p50 / 20 MB", cr.p50 * 1.048576, 20.0, 1.0);
  report.Compare(kScenario, "client start + first hit / LLVM-loading process", cm.p50, tm.p50, std::nullopt);
  report.Compare(kScenario, "client RSS / LLVM-loading process RSS", cr.p50, tr.p50, std::nullopt);
  return Status::Ok();
}

}  // namespace qdcache::bench
