// qdcache_crash: kill -9 the real daemon at random moments while writers
// compile distinct kernels, restart it on the same store, and check at the
// end that every artifact acknowledged to a client is still served
// byte-identical and that the store is consistent. See README.md.
//
// Exit status: 0 all held, 1 a violation (listed on stderr), 2 usage.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>

#include "tests/crash/crash_check.h"
#include "tests/crash/crash_round.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

namespace qdcache::crash {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int rounds = 0;       // exact number of rounds; 0: as many as fit in `seconds`
  double seconds = 60;  // time budget when rounds == 0
  int min_rounds = 5;   // with a time budget, at least this many
  std::uint64_t seed = 0;
  bool seed_given = false;
  int writers = 4;
  int max_kill_delay_ms = 400;
  std::string work_dir;  // empty: a temporary directory, removed on success
  bool no_cuda = false;
};

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Store writes the daemon logged as failed: their artifacts were served but
// not stored, which would break the test's premise rather than durability.
std::vector<std::string> FailedStoreWrites(const std::string& log) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while ((at = log.find(" write failed", at)) != std::string::npos) {
    const std::size_t begin = log.rfind('\n', at) + 1;
    const std::size_t end = log.find('\n', at);
    out.push_back("daemon log: " + log.substr(begin, end - begin));
    at = end;
  }
  return out;
}

int Run(const Options& options) {
  std::unique_ptr<testing::TempDir> temp;
  std::string dir = options.work_dir;
  if (dir.empty()) {
    temp = std::make_unique<testing::TempDir>();
    dir = temp->path();
  }
  std::filesystem::create_directories(dir);
  const bool cuda = testing::CudaBuilt() && !options.no_cuda;
  std::printf("qdcache_crash: seed=%llu writers=%d cuda=%s dir=%s\n",
              static_cast<unsigned long long>(options.seed), options.writers, cuda ? "yes" : "no",
              dir.c_str());
  std::printf("  reproduce the kill schedule with --seed %llu\n",
              static_cast<unsigned long long>(options.seed));
  std::fflush(stdout);

  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<int> delay_ms(0, options.max_kill_delay_ms);
  Oracle oracle(dir + "/oracle.txt");
  std::atomic<std::uint64_t> next_id{0};
  testing::DaemonProcess daemon(dir);
  std::vector<std::string> violations;
  const Clock::time_point t0 = Clock::now();
  int rounds = 0;
  std::uint64_t rechecked = 0;
  auto more_rounds = [&] {
    if (options.rounds > 0) return rounds < options.rounds;
    return rounds < options.min_rounds || SecondsSince(t0) < options.seconds;
  };
  while (more_rounds() && violations.empty()) {
    const Clock::time_point r0 = Clock::now();
    RoundConfig config;
    config.round = rounds;
    config.writers = options.writers;
    config.cuda = cuda;
    config.kill_delay = std::chrono::milliseconds(delay_ms(rng));
    config.seed = rng();
    daemon.Start();
    RoundResult r = RunRound(daemon, oracle, next_id, config);
    ++rounds;
    rechecked += r.rechecked;
    std::printf(
        "round %3d: killed %4lld ms after the first ack; %3llu acknowledged, %3llu "
        "re-served; %.2f s\n",
        config.round, static_cast<long long>(config.kill_delay.count()),
        static_cast<unsigned long long>(r.acknowledged),
        static_cast<unsigned long long>(r.rechecked), SecondsSince(r0));
    std::fflush(stdout);
    for (std::string& v : r.violations) violations.push_back(std::move(v));
  }
  const double round_seconds = SecondsSince(t0);

  if (violations.empty()) {
    daemon.Start();
    violations = CheckServedBack(daemon, oracle.All());
    const int stop = daemon.Stop();
    if (stop != 0)
      violations.push_back("daemon exited with " + std::to_string(stop) + " on SIGTERM");
    for (std::string& v : AuditStore(daemon.store_dir())) violations.push_back(std::move(v));
  }
  for (std::string& v : FailedStoreWrites(daemon.log())) violations.push_back(std::move(v));

  std::printf(
      "%d rounds in %.1f s (%.2f s per round); %zu artifacts acknowledged, %llu "
      "re-served during the rounds, all checked after the last kill\n",
      rounds, round_seconds, round_seconds / std::max(rounds, 1), oracle.size(),
      static_cast<unsigned long long>(rechecked));
  if (violations.empty()) {
    std::printf("PASS: every acknowledged artifact survived %d kill -9s\n", rounds);
    return 0;
  }
  std::fprintf(stderr, "FAIL (seed %llu): %zu violations\n",
               static_cast<unsigned long long>(options.seed), violations.size());
  for (std::size_t i = 0; i < violations.size() && i < 50; ++i) {
    std::fprintf(stderr, "  %s\n", violations[i].c_str());
  }
  if (temp) {
    // Keep the evidence: copy the store, log and oracle next to the temp dir.
    const std::string kept = dir + ".failed";
    std::error_code ec;
    std::filesystem::copy(dir, kept, std::filesystem::copy_options::recursive, ec);
    std::fprintf(stderr, "store, daemon log and oracle kept in %s\n", kept.c_str());
  } else {
    std::fprintf(stderr, "store, daemon log and oracle are in %s\n", dir.c_str());
  }
  return 1;
}

}  // namespace
}  // namespace qdcache::crash

int main(int argc, char** argv) {
  qdcache::crash::Options options;
  CLI::App app{"kill -9 the daemon at random moments; no acknowledged artifact may be lost"};
  app.add_option("--rounds", options.rounds, "exact number of kill rounds (default: --seconds)");
  app.add_option("--seconds", options.seconds,
                 "time budget for the rounds when --rounds is not given");
  app.add_option("--min-rounds", options.min_rounds,
                 "with a time budget, at least this many rounds");
  auto* seed =
      app.add_option("--seed", options.seed, "seed of the kill schedule (default: random)");
  app.add_option("--writers", options.writers, "concurrent writer connections")
      ->check(CLI::Range(1, 64));
  app.add_option("--max-kill-delay-ms", options.max_kill_delay_ms,
                 "kill uniformly within this many ms after a round's first acknowledgement")
      ->check(CLI::Range(0, 60000));
  app.add_option("--work-dir", options.work_dir, "keep the store, log and oracle here");
  app.add_flag("--no-cuda", options.no_cuda, "CPU kernels only, even in a CUDA build");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (seed->count() == 0) options.seed = std::random_device{}();
  try {
    return qdcache::crash::Run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL (seed %llu): %s\n", static_cast<unsigned long long>(options.seed),
                 e.what());
    return 1;
  }
}
