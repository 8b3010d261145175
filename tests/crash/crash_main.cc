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
#include <map>
#include <thread>
#include <random>

#include "tests/crash/crash_check.h"
#include "tests/crash/crash_round.h"
#include "tests/crash/crash_sources.h"
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
  bool no_redis = false;
};

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Store writes the daemon logged as failed (back-fills of remote entries
// included): their artifacts were served but not stored, which would break
// the test's premise rather than durability.
std::vector<std::string> FailedStoreWrites(const std::string& log) {
  std::vector<std::string> out;
  for (const char* failed : {" write failed", "back-fill of a remote"}) {
    std::size_t at = 0;
    while ((at = log.find(failed, at)) != std::string::npos) {
      const std::size_t begin = log.rfind('\n', at) + 1;
      const std::size_t end = log.find('\n', at);
      out.push_back("daemon log: " + log.substr(begin, end - begin));
      at = end;
    }
  }
  return out;
}

// What a round does besides writing: see README.md.
enum class RoundKind { kWrite, kStartup, kEviction, kImport, kBackfill, kDamage };

const char* KindName(RoundKind kind) {
  switch (kind) {
    case RoundKind::kWrite: return "write";
    case RoundKind::kStartup: return "startup";
    case RoundKind::kEviction: return "evict";
    case RoundKind::kImport: return "import";
    case RoundKind::kBackfill: return "backfill";
    case RoundKind::kDamage: return "damage";
  }
  return "?";
}

RoundKind DrawKind(std::mt19937_64& rng, int round, bool remote) {
  if (round == 0) return RoundKind::kWrite;  // something to recover, import and evict first
  // write 40%, startup 15%, evict 10%, import 15%, backfill 10% (write without Redis), damage 10%
  const int r = std::uniform_int_distribution<int>(0, 99)(rng);
  if (r < 40) return RoundKind::kWrite;
  if (r < 55) return RoundKind::kStartup;
  if (r < 65) return RoundKind::kEviction;
  if (r < 80) return RoundKind::kImport;
  if (r < 90) return remote ? RoundKind::kBackfill : RoundKind::kWrite;
  return RoundKind::kDamage;
}

// Kernel ids of the bundle and the remote tier, far from the writers'.
constexpr std::uint64_t kImportIds = std::uint64_t{1} << 40;
constexpr std::uint64_t kRemoteIds = std::uint64_t{2} << 40;
constexpr int kSourceKernels = 24;

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
  testing::DaemonProcess daemon(dir + "/daemon");
  std::filesystem::create_directories(dir + "/daemon");
  const ImportSource bundle = MakeImportSource(dir + "/bundle", oracle, kImportIds, kSourceKernels, cuda);
  const std::unique_ptr<RemoteSource> remote =
      options.no_redis ? nullptr : MakeRemoteSource(dir + "/remote", oracle, kRemoteIds, kSourceKernels, cuda);
  if (!remote) std::printf("  no back-fill rounds: %s\n", options.no_redis ? "--no-redis" : "redis-server not found");
  std::vector<std::string> violations;
  const Clock::time_point t0 = Clock::now();
  int rounds = 0;
  std::map<RoundKind, int> kinds;
  std::uint64_t rechecked = 0;
  bool damaged = false;
  double start_ms = 200;  // how long the last full start took
  auto more_rounds = [&] {
    if (options.rounds > 0) return rounds < options.rounds;
    return rounds < options.min_rounds || SecondsSince(t0) < options.seconds;
  };
  auto start = [&](std::vector<std::string> args) {
    daemon.set_extra_args(std::move(args));
    const int aside = MovedAsideStores(daemon.store_dir());
    const std::size_t log_mark = daemon.log().size();
    const Clock::time_point s0 = Clock::now();
    daemon.Start();
    start_ms = SecondsSince(s0) * 1000;
    // A store moved aside must say why in the log (a damaged store may be).
    if (MovedAsideStores(daemon.store_dir()) != aside &&
        daemon.log().find("is incompatible (", log_mark) == std::string::npos) {
      violations.push_back("the store was moved aside without a logged reason");
    }
  };
  while (more_rounds() && violations.empty()) {
    const Clock::time_point r0 = Clock::now();
    const RoundKind kind = DrawKind(rng, rounds, remote != nullptr);
    ++kinds[kind];
    RoundConfig config;
    config.round = rounds;
    config.writers = options.writers;
    config.cuda = cuda;
    config.kill_delay = std::chrono::milliseconds(delay_ms(rng));
    config.seed = rng();
    std::string note;
    std::vector<std::string> args;
    if (kind == RoundKind::kEviction) {
      // A cap below what the store holds: every write starts an eviction pass.
      args = {"--max-size", "64K"};
      config.evicting = true;
      oracle.DropGuarantees();
    } else if (kind == RoundKind::kImport) {
      config.import_bundle = bundle.bundle;
      config.import_ids = bundle.ids;
    } else if (kind == RoundKind::kBackfill) {
      args = {"--remote", remote->url};
      config.also_request = remote->kernels;
    }
    RoundResult r;
    if (kind == RoundKind::kStartup) {
      // Killed while it opens (and recovers) its store and starts workers:
      // somewhere within a start's time.
      const auto kill_at = std::chrono::milliseconds(
          std::uniform_int_distribution<int>(0, static_cast<int>(start_ms * 1.2) + 1)(rng));
      daemon.set_extra_args({});
      daemon.Launch();
      // The random moment of the kill is what this round is about.
      std::this_thread::sleep_for(kill_at);
      daemon.Kill();
      note = "killed " + std::to_string(kill_at.count()) + " ms into its start";
    } else {
      start(args);
      r = RunRound(daemon, oracle, next_id, config);
      note = "killed " + std::to_string(config.kill_delay.count()) + " ms after the first ack";
      if (r.imported) note += "; import acknowledged";
    }
    if (kind == RoundKind::kDamage) {
      const std::string what = DamageNewestFile(daemon.store_dir(), rng);
      if (!what.empty()) {
        damaged = true;
        oracle.DropGuarantees();
        note += "; " + what;
      }
    }
    ++rounds;
    rechecked += r.rechecked;
    std::printf("round %3d %-8s %s; %3llu acknowledged, %3llu re-served; %.2f s\n", config.round,
                KindName(kind), note.c_str(), static_cast<unsigned long long>(r.acknowledged),
                static_cast<unsigned long long>(r.rechecked), SecondsSince(r0));
    std::fflush(stdout);
    for (std::string& v : r.violations) violations.push_back(std::move(v));
  }
  // A closing write round: whatever the last rounds took away, the final
  // check then has freshly guaranteed entries to find.
  if (violations.empty()) {
    RoundConfig config;
    config.round = rounds++;
    config.writers = options.writers;
    config.cuda = cuda;
    config.kill_delay = std::chrono::milliseconds(delay_ms(rng));
    config.seed = rng();
    ++kinds[RoundKind::kWrite];
    start({});
    RoundResult r = RunRound(daemon, oracle, next_id, config);
    rechecked += r.rechecked;
    for (std::string& v : r.violations) violations.push_back(std::move(v));
  }
  const double round_seconds = SecondsSince(t0);

  if (violations.empty()) {
    start({});
    violations = CheckServedBack(daemon, oracle.All(), damaged);
    const int stop = daemon.Stop();
    if (stop != 0)
      violations.push_back("daemon exited with " + std::to_string(stop) + " on SIGTERM");
    for (std::string& v : AuditStore(daemon.store_dir())) violations.push_back(std::move(v));
  }
  for (std::string& v : FailedStoreWrites(daemon.log())) violations.push_back(std::move(v));

  std::string mix;
  for (const auto& [kind, n] : kinds) mix += std::string(mix.empty() ? "" : ", ") + std::to_string(n) + " " + KindName(kind);
  std::printf(
      "%d rounds (%s) in %.1f s (%.2f s per round); %zu artifacts acknowledged (%zu still guaranteed), "
      "%llu re-served during the rounds, all checked after the last kill\n",
      rounds, mix.c_str(), round_seconds, round_seconds / std::max(rounds, 1), oracle.size(),
      oracle.guaranteed(), static_cast<unsigned long long>(rechecked));
  if (violations.empty()) {
    std::printf("PASS: every acknowledged artifact survived %d kill -9s; nothing corrupt was served\n", rounds);
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
  app.add_flag("--no-redis", options.no_redis, "no back-fill rounds, even with redis-server installed");
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
