// A respawn storm: one tenant streams distinct inputs that each cost a
// compile worker (the digest worker refuses the IR and is replaced) while a
// well-behaved tenant compiles and hits. The storm's failures are charged to
// the storm's tenant (--peer-failure-burst): past its budget its new inputs
// are refused before any worker is asked, its respawns are bounded
// (--worker-respawns), and the other tenant's requests all succeed. The
// latencies of the well-behaved tenant, quiet and under the storm, are
// printed for the record (tests/load/README.md); nothing here asserts a time.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <cstdio>
#include <thread>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

using Clock = std::chrono::steady_clock;

const std::string kStormToken = "storm-token-4b1d8e2f9a7c";
const std::string kGoodToken = "good-token-7e3a9c1b5d2f";
constexpr int kBurst = 5;

std::unique_ptr<client::Client> TcpClient(const DaemonProcess& daemon, const std::string& token) {
  client::ClientOptions o;
  o.address = daemon.TcpAddress();
  o.token = token;
  o.timeout = std::chrono::seconds(120);
  auto c = client::Client::Connect(o);
  REQUIRE(c.ok());
  return std::move(c).value();
}

v1::KernelDescriptor CpuKernel(const std::string& ir) {
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_ir(ir);
  return d;
}

// Kernel `n`: distinct n, distinct artifact.
v1::KernelDescriptor Numbered(int n) {
  return CpuKernel("define i64 @value() {\n  ret i64 " + std::to_string(n) + "\n}\n");
}

// One request's answer, timed.
struct Timed {
  v1::CompileResult result;
  double ms = 0;
};

Timed Send(client::Client& c, const v1::KernelDescriptor& d) {
  const Clock::time_point t0 = Clock::now();
  Timed t{CompileOne(c, d), 0};
  t.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return t;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// The well-behaved tenant's round: hits of one warm kernel and compiles of
// fresh ones; every answer must be right.
struct Round {
  std::vector<double> hit_ms, compile_ms;
  int wrong = 0;
};

// Compiles kernels first_fresh, first_fresh + 1, ...
Round GoodRound(client::Client& c, int first_fresh, int hits, int compiles) {
  Round r;
  for (int i = 0; i < hits; ++i) {
    Timed t = Send(c, Numbered(0));
    if (t.result.status() == v1::CACHE_STATUS_HIT) {
      r.hit_ms.push_back(t.ms);
    } else {
      ++r.wrong;
    }
  }
  for (int i = 0; i < compiles; ++i) {
    Timed t = Send(c, Numbered(first_fresh + i));
    if (t.result.status() == v1::CACHE_STATUS_COMPILED) {
      r.compile_ms.push_back(t.ms);
    } else {
      ++r.wrong;
    }
  }
  return r;
}

}  // namespace

TEST_CASE("a tenant streaming inputs that each cost a worker is refused past its budget, and the "
          "others are served",
          "[integration][workers][storm]") {
  TempDir dir;
  const std::string tokens = dir / "tokens";
  WriteFileOrDie(tokens, "storm write " + kStormToken + "\ngood write " + kGoodToken + "\n");
  REQUIRE(::chmod(tokens.c_str(), 0600) == 0);
  DaemonProcess daemon(dir.path(), {"--listen", "127.0.0.1:0", "--token-file", tokens, "--workers", "2",
                                    "--peer-failure-burst", std::to_string(kBurst), "--peer-failure-refill",
                                    "60s", "--worker-respawns", "10"});
  daemon.set_log_level("info");
  daemon.Start();
  auto good = TcpClient(daemon, kGoodToken);
  REQUIRE(Send(*good, Numbered(0)).result.status() == v1::CACHE_STATUS_COMPILED);
  const Round quiet = GoodRound(*good, 1000, 1000, 30);
  CHECK(quiet.wrong == 0);
  const std::uint64_t starts_before = StatsOf(daemon).worker_starts();

  // The storm: two connections of the storm tenant, each sending IR that
  // no worker can parse, every input distinct (no failure memory helps),
  // the next as soon as the last is answered.
  std::atomic<bool> stop{false};
  std::atomic<int> refused{0}, failed{0}, other{0};
  std::mutex mu;
  std::condition_variable budget_engaged;
  std::vector<std::thread> storm;
  // Connected here: Catch's assertions (TcpClient's REQUIRE) are for the
  // test's own thread only.
  std::unique_ptr<client::Client> storm_clients[2] = {TcpClient(daemon, kStormToken), TcpClient(daemon, kStormToken)};
  for (int s = 0; s < 2; ++s) {
    storm.emplace_back([&, s] {
      client::Client& c = *storm_clients[s];
      for (int n = 0; !stop.load(); ++n) {
        v1::CompileResult r;
        try {
          r = CompileOne(c, CpuKernel("this is not IR " + std::to_string(s) + "-" + std::to_string(n)));
        } catch (const std::exception&) {  // the call itself failed: counted, and this thread ends
          ++other;
          return;
        }
        const Code code = static_cast<Code>(r.error().code());
        if (code == Code::kResourceExhausted) {
          std::lock_guard lock(mu);
          ++refused;
          budget_engaged.notify_all();
        } else if (code == Code::kInvalidArgument) {
          ++failed;
        } else {
          ++other;
        }
      }
    });
  }
  // Its onset: the burst of failures and respawns until the budget engages
  // (measured by the well-behaved tenant meanwhile, for the record).
  const Round onset = GoodRound(*good, 2000, 100, 3);
  {
    std::unique_lock lock(mu);
    REQUIRE(budget_engaged.wait_for(lock, std::chrono::seconds(120), [&] { return refused > 0; }));
  }
  const Round stormy = GoodRound(*good, 3000, 1000, 30);
  stop = true;
  for (std::thread& t : storm) t.join();

  CHECK(onset.wrong == 0);
  CHECK(stormy.wrong == 0);
  CHECK(other == 0);
  CHECK(refused > 0);
  // Each storm connection may have had one input at a worker when the
  // budget ran out: at most that many failures past the burst.
  CHECK(failed <= kBurst + 2);
  const v1::Stats s = StatsOf(daemon);
  CHECK(s.peer_worker_failures() == static_cast<std::uint64_t>(failed.load()));
  CHECK(s.peer_failure_refusals() == static_cast<std::uint64_t>(refused.load()));
  CHECK(s.worker_starts() - starts_before <= static_cast<std::uint64_t>(failed.load()));

  auto row = [](const char* what, const std::vector<double>& q, const std::vector<double>& onset_ms,
                const std::vector<double>& storm_ms) {
    std::printf("  %-8s %7.2f / %7.2f   %7.2f / %7.2f   %7.2f / %7.2f   %5.2f\n", what, Percentile(q, 0.5),
                Percentile(q, 0.99), Percentile(onset_ms, 0.5), Percentile(onset_ms, 0.99),
                Percentile(storm_ms, 0.5), Percentile(storm_ms, 0.99),
                Percentile(storm_ms, 0.5) / std::max(Percentile(q, 0.5), 1e-9));
  };
  std::printf(
      "respawn storm: storm tenant %d inputs failed a worker, %d refused by its budget; %llu workers "
      "started during the storm, %llu delayed by --worker-respawns\n"
      "well-behaved tenant, ms: quiet p50 / p99   onset p50 / p99     storm p50 / p99     storm/quiet p50\n",
      failed.load(), refused.load(), static_cast<unsigned long long>(s.worker_starts() - starts_before),
      static_cast<unsigned long long>(s.worker_respawns_delayed()));
  row("hit", quiet.hit_ms, onset.hit_ms, stormy.hit_ms);
  row("compile", quiet.compile_ms, onset.compile_ms, stormy.compile_ms);
  std::fflush(stdout);
}
