// qdcache-bench: the performance figures of qdcached, each measured next to
// its baselines in one run (docs/performance.md). Starts its own daemon and
// baseline servers on a temporary directory; prints a table and, with
// --json, writes the same figures as JSON. Exit 0 when every scenario could
// be measured (whether or not its targets were met), 1 otherwise.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <set>

#include "bench/scenarios.h"

namespace {

using qdcache::bench::BenchEnv;
using qdcache::bench::Report;

struct Scenario {
  int number;
  qdcache::Status (*run)(BenchEnv&, Report&);
};

}  // namespace

int main(int argc, char** argv) {
  qdcache::bench::BenchOptions o;
  bool quick = false;
  CLI::App app{"qdcache-bench: qdcached's performance, side by side with its baselines"};
  app.add_flag("--quick", quick, "Few rounds and small stores: checks the bench runs, not the figures");
  app.add_option("--only", o.only, "Scenario numbers to run (1-8; default: all)")->check(CLI::Range(1, 8));
  app.add_option("--rounds", o.rounds, "Interleaved rounds per latency figure")->check(CLI::Range(1, 10000));
  app.add_option("--calls", o.calls_per_round, "Calls per variant and round")->check(CLI::Range(1, 1000000));
  app.add_option("--warm-kernels", o.warm_kernels, "Kernels of the warm-start scenario's sets (comma-separated)")
      ->delimiter(',')
      ->check(CLI::Range(1, 100000));
  app.add_option("--warm-bytes", o.warm_bytes, "Artifact sizes of the warm-start scenario's sets (comma-separated)")
      ->delimiter(',')
      ->check(CLI::Range(1024, 16 << 20));
  app.add_option("--scale-entries", o.scale_entries, "Entries of the large store in the scale scenario")
      ->check(CLI::Range(10, 100000000));
  app.add_option("--artifact-bytes", o.artifact_bytes, "Size of the artifacts served in scenarios 1-3, 7")
      ->check(CLI::Range(1024, 16 << 20));
  app.add_option("--compile-rounds", o.compile_rounds, "Rounds of scenarios 4 and 5")->check(CLI::Range(1, 1000));
  app.add_option("--throughput-seconds", o.throughput_seconds, "Window per throughput measurement")
      ->check(CLI::Range(0.05, 600.0));
  app.add_option("--sm", o.cuda_sm, "CUDA SM of the compile scenarios");
  app.add_option("--daemon-arg", o.daemon_args, "Extra qdcached flag (repeat)")->allow_extra_args(false);
  app.add_option("--json", o.json_path, "Also write the figures as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    o.rounds = 2;
    o.calls_per_round = 10;
    o.warm_kernels = {20};
    o.warm_bytes = {4096};
    o.scale_entries = 2000;
    o.compile_rounds = 1;
    o.throughput_seconds = 0.1;
  }

  const Scenario scenarios[] = {
      {1, qdcache::bench::RunHitLatency}, {2, qdcache::bench::RunWarmStart},
      {3, qdcache::bench::RunThroughput}, {4, qdcache::bench::RunColdCompile},
      {5, qdcache::bench::RunCoalescing}, {6, qdcache::bench::RunScale},
      {7, qdcache::bench::RunFootprint},       {8, qdcache::bench::RunLoadedHits},
  };
  const std::set<int> only(o.only.begin(), o.only.end());
  auto env = BenchEnv::Start(o);
  if (!env.ok()) {
    std::fprintf(stderr, "qdcache-bench: %s\n", env.status().ToString().c_str());
    return 1;
  }
  Report report;
  int failed = 0;
  for (const Scenario& s : scenarios) {
    if (!only.empty() && only.count(s.number) == 0) continue;
    std::fprintf(stderr, "qdcache-bench: scenario %d...\n", s.number);
    qdcache::Status status = s.run(**env, report);
    if (!status.ok()) {
      ++failed;
      std::fprintf(stderr, "qdcache-bench: scenario %d failed: %s\n", s.number, status.ToString().c_str());
      report.Note(std::to_string(s.number), "FAILED: " + status.ToString());
    }
  }
  report.Print(stdout);
  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    out << report.Json().dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "qdcache-bench: cannot write %s\n", o.json_path.c_str());
      return 1;
    }
  }
  return failed == 0 ? 0 : 1;
}
